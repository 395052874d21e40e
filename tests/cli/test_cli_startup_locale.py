"""``serve``'s start-up lines and ``table create``'s lines in the operator's language:
``--locale``, else the environment's (docs/operations.md, "Languages of the command
line"). They were English whatever the operator's language, while the errors of the
same commands were not (a previous session's closing note, 5 December). What a script
or another command reads stays: URLs, ids, tokens, role names, ``--json``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rollbridge.cli import main
from tests.cli.test_serve_options import ENV, printed_at_start

LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
#: table create's lines, per locale: the head (before the id), the head's ruleset
#: word, the tokens' line, the web view's and Foundry's (``{web}``, ``{url}``).
CREATED = {
    "en": ("table ", "ruleset sr2 ", "join tokens (shown once):",
           "web view  {web}  (a player's link: {web}#token=TOKEN)",
           "Foundry   {url}  (the module's Server URL)"),
    "cs": ("stůl ", "pravidla sr2 ", "tokeny pro připojení (zobrazí se jen jednou):",
           "webové zobrazení  {web}  (odkaz pro hráče: {web}#token=TOKEN)",
           "Foundry   {url}  (URL serveru v nastavení modulu)"),
    "de": ("Tisch ", "Regelwerk sr2 ", "Beitritts-Tokens (nur einmal angezeigt):",
           "Webansicht  {web}  (ein Link für Spieler: {web}#token=TOKEN)",
           "Foundry   {url}  (die Server-URL des Moduls)"),
    "ru": ("стол ", "правила sr2 ", "токены для входа (показываются один раз):",
           "веб-просмотр  {web}  (ссылка для игрока: {web}#token=TOKEN)",
           "Foundry   {url}  (URL сервера для настроек модуля)"),
}  # fmt: skip


@pytest.fixture
def environment(monkeypatch):
    """No locale variable set, nor a store in the environment; the test sets what it needs."""
    for variable in (*LOCALE_VARIABLES, "ROLLBRIDGE_REDIS", "ROLLBRIDGE_DB"):
        monkeypatch.delenv(variable, raising=False)
    return monkeypatch


def create(capsys, db: Path, *extra: str) -> tuple[int, str, str]:
    argv = ["table", "create", "--db", str(db), "--ruleset", "sr2", "--name", "Friday"]
    code = main([*argv, "--public-url", "https://rb.example.org", *extra])
    out, err = capsys.readouterr()
    return code, out, err


def assert_created(out: str, locale: str) -> None:
    """``out`` is table create's lines in ``locale``, its id, tokens and links as ever."""
    head, ruleset, tokens, web_line, foundry_line = CREATED[locale]
    lines = out.splitlines()
    assert lines[0].startswith(head) and f"(Friday, {ruleset}" in lines[0], lines[0]
    table = lines[0].split()[1]
    assert lines[1] == tokens
    roles = [line.split() for line in lines[2:5]]
    assert [role for role, _token in roles] == ["gm", "player", "observer"]
    assert all(token.startswith("rbt_") and line.startswith("  ") for line in lines[2:5]
               for _role, token in [line.split()])  # fmt: skip
    web, url = f"https://rb.example.org/tables/{table}", f"wss://rb.example.org/tables/{table}"
    assert lines[5:] == [web_line.format(web=web), foundry_line.format(url=url)]


@pytest.mark.parametrize("locale", ["en", "cs", "de", "ru"])
def test_table_create_prints_in_the_locale(capsys, tmp_path, environment, locale):
    code, out, err = create(capsys, tmp_path / "t.db", "--locale", locale)
    assert (code, err) == (0, "")
    assert_created(out, locale)


def test_table_create_prints_in_the_environments_language(capsys, tmp_path, environment):
    environment.setenv("LANG", "de_AT.UTF-8")
    code, out, _err = create(capsys, tmp_path / "t.db")
    assert code == 0
    assert_created(out, "de")
    environment.setenv("LANGUAGE", "ru")  # as gettext reads it: LANGUAGE first
    assert_created(create(capsys, tmp_path / "t.db")[1], "ru")
    code, out, _err = create(capsys, tmp_path / "t.db", "--locale", "cs")  # the option wins
    assert_created(out, "cs")


def test_table_create_json_is_the_same_in_every_language(capsys, tmp_path, environment):
    """``--json`` is a script's: no word of it changes with the language."""
    answers = []
    for locale in ("en", "cs", "ru"):
        code, out, _err = create(capsys, tmp_path / "t.db", "--json", "--locale", locale)
        assert code == 0
        answers.append(json.loads(out))
    keys = {"id", "name", "ruleset", "ruleset_version", "epoch", "seq", "tokens", "table",
            "web_view", "server_url"}  # fmt: skip
    assert all(set(answer) == keys for answer in answers)
    varying = ("id", "table", "tokens", "web_view", "server_url")
    assert len({json.dumps({k: a[k] for k in keys - set(varying)}) for a in answers}) == 1
    assert all(set(answer["tokens"]) == {"gm", "player", "observer"} for answer in answers)


def test_an_unknown_locale_is_refused_before_anything_is_made(capsys, tmp_path, environment):
    code, out, err = create(capsys, tmp_path / "t.db", "--locale", "xx")
    assert (code, out) == (1, "")
    assert err.startswith("rollbridge: error: invalid_request: --locale: 'xx' is not a known")
    code, out, err = run_serve(capsys, tmp_path / "s.db", "--locale", "xx")
    assert (code, out) == (1, "") and "--locale: 'xx'" in err
    assert list(tmp_path.iterdir()) == []  # no database, dice key or lock


def run_serve(capsys, db: Path, *extra: str) -> tuple[int, str, str]:
    code = main(["serve", "--db", str(db), "--port", "0", *extra])
    out, err = capsys.readouterr()
    return code, out, err


def test_serve_prints_its_start_up_lines_in_the_locale(tmp_path: Path):
    """A first start at every address: the demo table's lines, the serving line, the
    web view, the note on 0.0.0.0 and the last line, each in German; the id, URLs,
    role names and tokens as in English."""
    lines = printed_at_start(tmp_path, "--host", "0.0.0.0", "--locale", "de", last="  Webansicht")
    assert lines[0] == (
        "Ein Demo-Tisch wurde angelegt (nur einmal angezeigt; bewahren Sie die Tokens auf):\n"
    )
    assert lines[1].startswith("  Tisch    demo-sr2-")
    table = lines[1].split()[1]
    assert lines[2].startswith("  url      ws://0.0.0.0:")
    port = lines[2].split("ws://0.0.0.0:")[1].split("/")[0]
    web = f"http://0.0.0.0:{port}/tables/{table}"
    assert [line.split()[0] for line in lines[3:6]] == ["gm", "player", "observer"]
    assert lines[6] == f"Beitreten:  rollbridge connect ws://0.0.0.0:{port}/tables/{table}" \
        f" --token {lines[3].split()[1]}\n"  # fmt: skip
    assert lines[7] == (
        f"Oder öffnen Sie  {web}  und fügen Sie ein Token ein, oder teilen Sie {web}#token=TOKEN\n"
    )
    assert lines[8] == (
        f"rollbridge bedient 1 Tisch auf ws://0.0.0.0:{port}/ (DB {tmp_path / 'r.db'});"
        " Strg-C beendet\n"
    )
    assert lines[9] == f"  Webansicht  {web}  (Demo (sr2))\n"
    assert lines[10].startswith("  (0.0.0.0 steht für jede Adresse dieses Rechners")
    assert "--public-url URL" in lines[10]
    assert lines[11:] == ["rollbridge beendet\n"]


def test_serve_prints_in_the_environments_language(tmp_path: Path):
    env = {k: v for k, v in ENV.items() if k not in LOCALE_VARIABLES}
    first = printed_at_start(tmp_path, "--no-demo", last="rollbridge", env=env)
    assert first[0].startswith("rollbridge serving 0 tables on ws://127.0.0.1:")
    assert main(["table", "create", "--db", str(tmp_path / "r.db"), "--ruleset", "sr2",
                 "--name", "Pátek", "--json"]) == 0  # fmt: skip
    czech = {**env, "LANG": "cs_CZ.UTF-8"}
    lines = printed_at_start(tmp_path, last="  ", env=czech)  # the web view's, in any language
    assert lines[0].startswith("rollbridge obsluhuje 1 stůl na ws://127.0.0.1:")
    assert lines[0].endswith("; Ctrl-C ukončí\n")
    assert lines[1].startswith("  webové zobrazení  http://127.0.0.1:")
    assert lines[1].endswith("  (Pátek)\n")
    assert lines[2:] == ["rollbridge zastaven\n"]


#: The other `table` commands' lines, per locale: `table list` of no table, `table
#: tokens --new`'s head line, `table delete`'s line.
OTHER_LINES = {
    "en": ("no tables", "new player token for 'alice' (shown once):", "deleted table {t}"),
    "cs": ("žádné stoly", "nový token player pro 'alice' (zobrazí se jen jednou):",
           "stůl {t} smazán"),
    "de": ("keine Tische", "neues player-Token für 'alice' (nur einmal angezeigt):",
           "Tisch {t} gelöscht"),
    "ru": ("столов нет", "новый токен player для 'alice' (показывается один раз):",
           "стол {t} удалён"),
}  # fmt: skip


@pytest.mark.parametrize("locale", sorted(OTHER_LINES))
def test_the_other_table_commands_speak_the_environments_language(
    environment, tmp_path, capsys, locale
):
    """`table tokens --revoke` already said its line in the environment's language,
    while `--new`'s line beside it, `table list`'s "no tables" and `table delete`'s line
    stayed English: one command mixed two languages."""
    environment.setenv("LANGUAGE", locale)
    none, new, deleted = OTHER_LINES[locale]
    db = tmp_path / "t.db"
    code, out, _ = create(capsys, db, "--json")
    assert code == 0
    table = json.loads(out)["id"]
    assert main(["table", "tokens", table, "--db", str(db), "--new", "player",
                 "--name", "alice"]) == 0  # fmt: skip
    lines = capsys.readouterr().out.splitlines()
    assert lines[-2] == new and lines[-1].startswith("  rbt_"), lines
    assert main(["table", "delete", table, "--db", str(db)]) == 0
    assert capsys.readouterr().out == deleted.format(t=table) + "\n"
    assert main(["table", "list", "--db", str(db)]) == 0
    assert capsys.readouterr().out == none + "\n"


def test_a_terminal_that_lacks_the_locale_s_letters_still_gets_the_tokens(tmp_path: Path):
    """stdout in Latin-1 and ``--locale ru`` (or a Cyrillic table name): the letters it
    cannot write are escaped, the ids, tokens and URLs are as ever, exit 0. Before, a
    UnicodeEncodeError traceback — after the table was made, its tokens never shown."""
    import subprocess
    import sys

    env = {**ENV, "PYTHONIOENCODING": "latin-1"}
    done = subprocess.run(
        [sys.executable, "-m", "rollbridge", "table", "create", "--db", str(tmp_path / "t.db"),
         "--ruleset", "sr2", "--name", "Пятница", "--locale", "ru"],
        capture_output=True, env=env, timeout=60,
    )  # fmt: skip
    out, err = done.stdout.decode("latin-1"), done.stderr.decode("latin-1")
    assert (done.returncode, err) == (0, ""), err
    lines = out.splitlines()
    assert lines[0].startswith("\\u0441\\u0442\\u043e\\u043b ")  # стол, escaped
    assert [line.split()[0] for line in lines[2:5]] == ["gm", "player", "observer"]
    assert all(line.split()[1].startswith("rbt_") for line in lines[2:5])
