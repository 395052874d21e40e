"""``table tokens``, ``table delete``, ``admin-token`` and ``backup`` take ``--locale``.

They printed in the environment's language only, while ``serve``, ``migrate`` and
``table create``/``list`` took ``--locale``: an operator who runs the server with
``--locale cs`` from a shell whose ``LANG`` is English could not have these lines in
Czech. Each now takes the option (else the environment's language, as before); an
unknown language is refused before the command touches the database.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rollbridge.cli import admin, backup, main, tables
from tests.cli.test_cli_startup_locale import environment  # noqa: F401  (a fixture)

pytestmark = pytest.mark.usefixtures("environment")

LOCALES = ["cs", "de", "ru"]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def table(capsys, tmp_path: Path) -> tuple[Path, str]:
    """A database with one sr2 table; (its file, the table's id)."""
    db = tmp_path / "t.db"
    code, out, _ = run(capsys, "table", "create", "--db", str(db), "--ruleset", "sr2",
                       "--name", "Friday", "--json")  # fmt: skip
    assert code == 0
    return db, json.loads(out)["id"]


def english_differs(text, locale: str) -> str:
    """``text`` rendered in ``locale``, checked to differ from its English (a real check)."""
    said = text.render(locale)
    assert said != text.render("en"), (locale, said)
    return said


@pytest.mark.parametrize("locale", LOCALES)
def test_table_tokens_new_and_revoke_speak_the_chosen_language(capsys, table, locale):
    db, table_id = table
    code, out, _ = run(capsys, "table", "tokens", table_id, "--db", str(db), "--new", "player",
                       "--name", "bob", "--locale", locale)  # fmt: skip
    assert code == 0
    new = tables.NEW_TOKEN(role="player", name=repr("bob"))
    assert english_differs(new, locale) in out.splitlines()
    listed = json.loads(run(capsys, "table", "tokens", table_id, "--db", str(db), "--json")[1])
    bob = next(t for t in listed["tokens"] if t["name"] == "bob")
    code, out, _ = run(capsys, "table", "tokens", table_id, "--db", str(db),
                       "--revoke", bob["id"], "--locale", locale)  # fmt: skip
    assert code == 0
    gone = tables.REVOKED(token=bob["id"], role="player", name=repr("bob"), table=table_id)
    assert english_differs(gone, locale) in out.splitlines()


@pytest.mark.parametrize("locale", LOCALES)
def test_table_delete_speaks_the_chosen_language(capsys, table, locale):
    db, table_id = table
    code, out, _ = run(capsys, "table", "delete", table_id, "--db", str(db), "--locale", locale)
    assert code == 0
    assert out == english_differs(tables.DELETED(table=table_id), locale) + "\n"


@pytest.mark.parametrize("locale", LOCALES)
def test_admin_token_make_list_and_revoke_speak_the_chosen_language(capsys, tmp_path, locale):
    db = str(tmp_path / "a.db")
    code, out, _ = run(capsys, "admin-token", "--db", db, "--name", "ops", "--locale", locale)
    assert code == 0
    made = json.loads(run(capsys, "admin-token", "--db", db, "--list", "--json")[1])
    record = made["admin_tokens"][0]
    assert out.splitlines()[0] == english_differs(admin.MADE(id=record["id"], name="ops"), locale)
    code, out, _ = run(capsys, "admin-token", "--db", db, "--revoke", record["id"],
                       "--locale", locale)  # fmt: skip
    assert code == 0
    assert out == english_differs(admin.REVOKED(id=record["id"]), locale) + "\n"
    code, out, _ = run(capsys, "admin-token", "--db", db, "--list", "--locale", locale)
    assert code == 0
    assert out == english_differs(admin.NONE(), locale) + "\n"


@pytest.mark.parametrize("locale", LOCALES)
def test_backup_speaks_the_chosen_language(capsys, table, tmp_path, locale):
    db, _table_id = table
    dest = tmp_path / f"copy-{locale}.db"
    code, out, _ = run(capsys, "backup", "--db", str(db), str(dest), "--locale", locale)
    assert code == 0 and dest.is_file()
    facts = json.loads(run(capsys, "backup", "--db", str(db), str(tmp_path / "x.db"), "--json")[1])
    done = backup.DONE(source=facts["source"], dest=str(dest), count=facts["tables"],
                       size=facts["size"], version=facts["schema_version"])  # fmt: skip
    assert out.splitlines()[0] == english_differs(done, locale)


def test_the_environment_s_language_is_still_the_default(capsys, table, monkeypatch):
    db, table_id = table
    monkeypatch.setenv("LANGUAGE", "de")
    code, out, _ = run(capsys, "table", "delete", table_id, "--db", str(db))
    assert code == 0
    assert out == tables.DELETED(table=table_id).render("de") + "\n"


@pytest.mark.parametrize(
    "argv",
    [
        ("table", "delete", "{table}"),
        ("table", "tokens", "{table}", "--new", "player", "--name", "eve"),
        ("admin-token", "--name", "ops"),
    ],
)
def test_an_unknown_language_is_refused_before_anything_changes(capsys, table, argv):
    db, table_id = table
    argv = [part.format(table=table_id) for part in argv]
    before = run(capsys, "table", "tokens", table_id, "--db", str(db), "--json")[1]
    code, out, err = run(capsys, *argv, "--db", str(db), "--locale", "xx")
    assert code == 1 and out == ""
    assert "invalid_request" in err and "'xx'" in err
    after = run(capsys, "table", "tokens", table_id, "--db", str(db), "--json")
    assert after[0] == 0 and after[1] == before
    admins = json.loads(run(capsys, "admin-token", "--db", str(db), "--list", "--json")[1])
    assert admins["admin_tokens"] == []


def test_the_readme_names_the_commands_without_a_language_as_they_are():
    """README said every command takes ``--locale`` "but the developers' ``catalogs``
    and ``release``": there is no ``release`` (it is ``foundry-release``), and
    ``catalogs`` has a ``--locale`` of its own (the catalogues to work on). Every
    other command takes the language, and README names the two as they are."""
    import argparse
    import re

    from rollbridge.cli import build_parser

    def commands(parser: argparse.ArgumentParser, path: str = "") -> dict[str, set[str]]:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            return {
                path.strip(): {a.dest for a in parser._actions if "--locale" in a.option_strings}
            }
        return {k: v for s in subs for name, sub in s.choices.items()
                for k, v in commands(sub, f"{path} {name}").items()}  # fmt: skip

    found = commands(build_parser())
    without = {name for name, dests in found.items() if dests != {"locale"}}
    readme = " ".join((Path(__file__).resolve().parents[2] / "README.md").read_text().split())
    said = re.search(
        r"\(every command but the developers' (.*?)\) or else of the environment", readme
    )
    assert said is not None
    named = set(re.findall(r"`([a-z-]+)`", said.group(1))) - {"--locale"}
    assert {name.split()[0] for name in without} == named, (without, said.group(1))
