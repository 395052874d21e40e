"""``rollbridge table create --settings`` reads the settings as ``resolve`` does (flat
or nested, one function: ``rollbridge.cli.offline.table_settings``), and the store
options: an option on the command line wins over the environment (``--db`` over
``ROLLBRIDGE_REDIS``), both options at once are refused."""

from __future__ import annotations

import json
import types
from pathlib import Path

import pytest

from rollbridge.cli import build_parser, main
from rollbridge.cli.offline import table_settings
from rollbridge.cli.serve_lock import hold_unserved
from rollbridge.exceptions import Conflict, InvalidSettings
from rollbridge.stores.sqlite import SQLiteStore
from tests.server.test_server_lifecycle import Serve

#: A Redis address nothing listens on: a command that tried it would fail.
NOWHERE = "redis://127.0.0.1:9/0"
SR2_OWN = "rule_of_one, show_npc_details, show_npc_sheet, stun_carry"
CORE = "approval, locale, player_dice, ruleset, verifiable"


pytestmark = pytest.mark.usefixtures("english_without_stores")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def create(
    capsys, db: Path, settings: str, ruleset: str = "sr2", *, as_json: bool = True
) -> tuple[int, str, str]:
    """``table create``, with ``--json`` unless ``as_json`` is false (a refusal read as
    its text line on stderr: with ``--json`` it is JSON on stdout)."""
    return run(capsys, "table", "create", "--db", str(db), "--ruleset", ruleset,
               "--name", "T", "--settings", settings, *(["--json"] if as_json else []))  # fmt: skip


def stored_settings(db: Path, table: str) -> dict:
    with SQLiteStore(db) as store:
        return next(t for t in store.tables() if t.id == table).settings


# -- table create --settings -------------------------------------------------------


@pytest.mark.parametrize(
    "settings",
    [
        '{"rule_of_one": false, "approval": true, "locale": "de"}',  # as README's resolve
        '{"ruleset": {"rule_of_one": false}, "approval": true, "locale": "de"}',
        '{"ruleset": {"rule_of_one": true, "stun_carry": false}, "rule_of_one": false,'
        ' "approval": true, "locale": "de"}',  # both: the flat key over the nested one
    ],
)
def test_table_create_takes_the_settings_flat_or_nested(capsys, tmp_path, settings):
    code, out, err = create(capsys, tmp_path / "t.db", settings)
    assert code == 0, err
    saved = stored_settings(tmp_path / "t.db", json.loads(out)["table"])
    assert saved["approval"] is True and saved["locale"] == "de"
    assert saved["ruleset"]["rule_of_one"] is False
    assert saved["ruleset"]["stun_carry"] is ("stun_carry" not in settings)  # its default


def test_a_flat_verifiable_is_the_tables_not_the_rulesets(capsys, tmp_path):
    code, out, err = create(capsys, tmp_path / "t.db", '{"verifiable": true}')
    assert code == 0, err
    table = json.loads(out)["table"]
    assert stored_settings(tmp_path / "t.db", table)["verifiable"] is True
    code, out, err = run(capsys, "resolve", "sr2", "success_test", "--params",
                         '{"dice": 2, "tn": 4}', "--settings", '{"verifiable": true}',
                         "--json")  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["data"]["draws"]  # rolled from the committed seed


def test_supplied_dice_on_a_verifiable_table_are_refused_not_ignored(capsys):
    for dice in (["--dice", "1,1"], ["--seed", "3"]):
        code, out, err = run(capsys, "resolve", "sr2", "success_test", "--params",
                             '{"dice": 2, "tn": 4}', "--settings", '{"verifiable": true}',
                             *dice)  # fmt: skip
        assert code == 1 and out == ""
        assert err.startswith("rollbridge: error: invalid_request: --dice and --seed ")


@pytest.mark.parametrize("command", ["table", "resolve", "odds"])
def test_a_key_neither_core_nor_the_rulesets_names_both_lists(capsys, tmp_path, command):
    db = tmp_path / "t.db"
    given = '{"approval": true, "rule_of_ones": false}'
    if command == "table":
        code, out, err = create(capsys, db, given, as_json=False)
    else:
        code, out, err = run(capsys, command, "sr2", "success_test", "--params",
                             '{"dice": 2, "tn": 4}', "--settings", given)  # fmt: skip
    assert code == 1 and out == ""
    assert err == (
        "rollbridge: error: invalid_settings: settings.rule_of_ones: is neither a table "
        f"setting (known: {CORE}) nor a setting of ruleset sr2 (known: {SR2_OWN})\n"
    )
    if command == "table":
        with SQLiteStore(db) as store:
            assert store.tables() == []  # nothing made


def test_a_nested_unknown_key_is_refused_by_the_table(capsys, tmp_path):
    code, _out, err = create(capsys, tmp_path / "t.db", '{"ruleset": {"nope": 1}}', as_json=False)
    assert code == 1
    assert err == (
        "rollbridge: error: invalid_settings: settings.ruleset.nope: is not a known field "
        f"(known: {SR2_OWN})\n"
    )


@pytest.mark.parametrize(
    ("settings", "said"),
    [
        ("[1]", "invalid_request: --settings: give a JSON object"),
        ("{bad", "invalid_request: --settings: not valid JSON"),
        ('{"ruleset": 3, "rule_of_one": false}', "invalid_settings: settings.ruleset: must be"),
        ('{"rule_of_one": 3}', "invalid_settings: settings.ruleset.rule_of_one: must be"),
    ],
)
def test_bad_settings_are_one_error_line(capsys, tmp_path, settings, said):
    code, out, err = create(capsys, tmp_path / "t.db", settings, as_json=False)
    assert code == 1 and out == "" and err.count("\n") == 1
    assert err.startswith(f"rollbridge: error: {said}")


@pytest.mark.parametrize("locale", ["\nru\x1b[2J", "ru\t", "\u2028de"])
def test_a_locale_with_a_control_character_is_refused_in_one_inert_line(capsys, tmp_path, locale):
    """Since ``negotiate`` names no language for a locale with a control character
    (0e68b9f), ``settings.locale`` refuses it, and quoted the value as it came: the
    CLI's error was two lines with the escape sequence raw (a terminal cleared). It
    is quoted as ``--locale`` and the export quote theirs, the controls escaped."""
    settings = json.dumps({"locale": locale})
    code, out, err = create(capsys, tmp_path / "t.db", settings, as_json=False)
    assert code == 1 and out == "" and err.count("\n") == 1, err
    assert err.startswith(f"rollbridge: error: invalid_settings: settings.locale: {locale!r} ")
    assert "\x1b" not in err and "\t" not in err and "\u2028" not in err


def test_resolve_with_a_ruleset_that_is_no_object_is_one_error_line(capsys):
    """It was a TypeError's traceback: the flat keys were merged into the text."""
    code, out, err = run(capsys, "resolve", "sr2", "success_test", "--params",
                         '{"dice": 2, "tn": 4}', "--settings",
                         '{"ruleset": "x", "rule_of_one": false}')  # fmt: skip
    assert code == 1 and out == "" and err.count("\n") == 1
    assert err.startswith("rollbridge: error: invalid_settings: settings.ruleset: must be")


def test_a_ruleset_without_settings_or_with_free_ones():
    bare = types.SimpleNamespace(id="bare", settings_schema={"type": "object", "properties": {}})
    with pytest.raises(InvalidSettings) as caught:
        table_settings('{"x": 1}', bare)  # type: ignore[arg-type]
    assert caught.value.details == {"field": "settings.x"}
    assert caught.value.render("en") == (
        f"settings.x: is not a table setting (known: {CORE}), and ruleset bare has no "
        "settings of its own"
    )
    free_schema = {"type": "object", "additionalProperties": True}
    free = types.SimpleNamespace(id="free", settings_schema=free_schema)
    assert table_settings('{"x": 1, "approval": true}', free) == {  # type: ignore[arg-type]
        "approval": True,
        "ruleset": {"x": 1},
    }


def test_the_help_of_table_create_shows_the_flat_form():
    create_help = _subparser("table", "create").format_help()
    assert '{"rule_of_one": false}' in create_help and "verifiable" in create_help


# -- where the tables live: an option wins over the environment ---------------------


def test_db_wins_over_rollbridge_redis(capsys, tmp_path, monkeypatch):
    db = tmp_path / "t.db"
    assert create(capsys, db, "{}")[0] == 0
    monkeypatch.setenv("ROLLBRIDGE_REDIS", NOWHERE)
    code, out, err = run(capsys, "table", "list", "--db", str(db), "--json")
    assert code == 0, err
    assert [t["ruleset"] for t in json.loads(out)] == ["sr2"]
    code, out, err = run(capsys, "admin-token", "--db", str(db), "--list")
    assert code == 0 and err == ""


def test_rollbridge_redis_without_db_is_used(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("ROLLBRIDGE_REDIS", NOWHERE)
    monkeypatch.setenv("ROLLBRIDGE_DB", str(tmp_path / "t.db"))
    code, _out, err = run(capsys, "table", "list")
    assert code == 1 and err.startswith("rollbridge: error: store_error: ")
    assert "127.0.0.1:9" in err and not (tmp_path / "t.db").exists()


def test_both_options_at_once_are_refused(capsys, tmp_path):
    code, _out, err = run(capsys, "table", "list", "--db", str(tmp_path / "t.db"),
                          "--redis", NOWHERE)  # fmt: skip
    assert (
        code == 1 and err == "rollbridge: error: invalid_request: give --db or --redis, not both\n"
    )
    assert not (tmp_path / "t.db").exists()


@pytest.mark.parametrize(
    "argv",
    [
        ("table", "list"),
        ("table", "tokens", "t"),
        ("table", "delete", "t"),
        ("table", "export", "t", "--as", "gm", "--format", "jsonl"),
        ("table", "stats", "t"),
        ("admin-token", "--list"),
        ("admin-token", "--revoke", "a1"),
    ],
)
def test_a_mistyped_db_is_named_not_made(capsys, tmp_path, argv):
    """Before, ``table list --db rollbrige.db`` made an empty database there and said
    "no tables" — an operator's tables seemingly gone, and a stray file left."""
    typo = tmp_path / "rollbrige.db"
    code, out, err = run(capsys, *argv, "--db", str(typo))
    assert (code, out) == (1, "")
    assert err == (
        f"rollbridge: error: no_database: no database file {typo}: check --db (or "
        "$ROLLBRIDGE_DB); rollbridge serve or rollbridge table create makes one\n"
    )
    assert list(tmp_path.iterdir()) == []


def test_what_makes_a_database_still_makes_one(capsys, tmp_path):
    code, _out, err = run(capsys, "admin-token", "--db", str(tmp_path / "a.db"), "--json")
    assert code == 0, err
    assert create(capsys, tmp_path / "t.db", "{}")[0] == 0
    assert run(capsys, "table", "list", "--db", str(tmp_path / "t.db"))[0] == 0


def test_the_help_says_which_wins():
    for command in (("table", "list"), ("serve",), ("admin-token",)):
        text = " ".join(_subparser(*command).format_help().split())
        assert "--db DB SQLite file (default: $ROLLBRIDGE_DB, else in the user data" in text
        assert "used even with $ROLLBRIDGE_REDIS set" in text
        assert "(default: $ROLLBRIDGE_REDIS, unless --db is given)" in text


def test_serve_with_db_serves_that_file_and_locks_it_despite_rollbridge_redis(
    tmp_path, monkeypatch
):
    db = tmp_path / "served.db"
    monkeypatch.setenv("ROLLBRIDGE_REDIS", NOWHERE)  # the subprocess's environment
    serve = Serve(db)
    try:
        assert any(f"(db {db})" in line for line in serve.lines), serve.lines
        with pytest.raises(Conflict) as caught:
            hold_unserved(db)  # what migrate takes: serve holds it
        assert caught.value.code == "database_in_use"
    finally:
        assert serve.stop() == 0
        serve.process.communicate(timeout=20)


def _subparser(*names: str):
    parser = build_parser()
    for name in names:
        action = next(a for a in parser._actions if a.dest.endswith("command"))
        parser = action.choices[name]
    return parser


def test_a_folder_given_as_the_database_is_named(capsys, tmp_path, monkeypatch):
    """Before: ``table list`` said SQLite's "unable to open database file" as a
    permission problem, and ``migrate`` that the folder "does not exist" (later "no
    database file FOLDER"; now, as ``table list``, that it is a folder)."""
    code, _out, err = run(capsys, "table", "list", "--db", str(tmp_path))
    assert code == 1 and err.startswith(
        f"rollbridge: error: no_database: cannot open {tmp_path}: it is a folder"
    )
    monkeypatch.setenv("ROLLBRIDGE_DB", str(tmp_path / "none.db"))  # no serve database
    code, _out, err = run(capsys, "migrate", "--from", str(tmp_path), "--to", NOWHERE)
    assert code == 1
    assert err == (
        f"rollbridge: error: no_database: cannot open {tmp_path}: it is a folder, not a"
        " database file: give --from the path of a file\n"
    )
