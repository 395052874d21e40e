"""``rollbridge admin-token`` where ``--db`` names no database (a typo, or no ``--db``
beside a server started with one): it made a new file and printed a token without a
word, and the running server refused that token (401) with nothing to say why. Now
it warns on stderr, naming the file it made and how to reach the server's; on a
database that is there it says nothing more than before."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from rollbridge.stores.sqlite import SQLiteStore
from tests.cli.test_cli_admin import run


def test_a_token_made_in_a_new_database_says_so(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("LANGUAGE", "en")
    typo = tmp_path / "rollbridge.bd"
    code, out, err = run(capsys, "admin-token", "--db", str(typo), "--name", "web")
    assert code == 0 and out.splitlines()[1].strip().startswith("rba_")
    assert err == (
        f"rollbridge: warning: there was no database {typo}: a new one was made for this "
        f"token, and only a server serving that file (rollbridge serve --db {typo}) takes "
        "it; if you meant a running server's database, give its --db (or $ROLLBRIDGE_DB) "
        "and make the token again\n"
    )
    with SQLiteStore(typo) as store:
        assert [r.name for r in store.list_admin_tokens()] == ["web"]
    code, out, err = run(capsys, "admin-token", "--db", str(typo), "--name", "web2")
    assert code == 0 and err == ""  # it is there now


def test_json_keeps_its_answer_and_warns_on_stderr_in_the_locale(tmp_path, capsys):
    typo = tmp_path / "new.db"
    code, out, err = run(capsys, "admin-token", "--db", str(typo), "--json", "--locale", "de")
    assert code == 0 and json.loads(out)["token"].startswith("rba_")
    assert err.startswith(f"rollbridge: warning: es gab keine Datenbank {typo}:"), err
    assert err.count("\n") == 1


def test_a_database_that_is_there_gets_no_warning(tmp_path, capsys):
    db = tmp_path / "rollbridge.db"
    SQLiteStore(db).close()
    code, _out, err = run(capsys, "admin-token", "--db", str(db))
    assert code == 0 and err == ""
    code, _out, err = run(capsys, "admin-token", "--db", str(db), "--list")
    assert code == 0 and err == ""


def test_the_serve_command_it_names_can_be_typed_as_it_is(tmp_path, capsys, monkeypatch):
    """A path with a space (or a shell's special character) in the warning's ``serve``
    command was written as it is: typed so, the shell cut it in two, and ``serve``
    refused the second part. It is one word of the command now, quoted; the sentence
    before names the file as it is."""
    monkeypatch.setenv("LANGUAGE", "en")
    folder = tmp_path / "game nights"
    folder.mkdir()
    db = folder / "Tom's r.db"
    code, _out, err = run(capsys, "admin-token", "--db", str(db), "--name", "web")
    assert code == 0
    assert err.startswith(f"rollbridge: warning: there was no database {db}: a new one"), err
    command = err.split("(rollbridge ", 1)[1].split(") takes it", 1)[0]
    assert command == f"serve --db {shlex.quote(str(db))}"
    assert shlex.split(command) == ["serve", "--db", str(db)]


def test_a_db_through_a_symlink_to_no_file_yet_says_so(tmp_path, capsys, monkeypatch):
    """``--db current.db``, a symbolic link to this year's file that is not made yet:
    the link was there, so nothing was said, and a new database was made where it
    leads. It is said as for any new file, the link named as it was given."""
    monkeypatch.setenv("LANGUAGE", "en")
    (tmp_path / "games").mkdir()
    link = tmp_path / "current.db"
    link.symlink_to(Path("games") / "2026.db")
    code, _out, err = run(capsys, "admin-token", "--db", str(link), "--name", "web")
    assert code == 0
    assert err.startswith(f"rollbridge: warning: there was no database {link}: a new one"), err
    assert (tmp_path / "games" / "2026.db").is_file() and link.is_symlink()
