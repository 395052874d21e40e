"""``rollbridge admin-token`` (issue 16, item 5): a token shown once and stored
hashed; listed without secrets; revoked by id."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime

from rollbridge.cli import main
from rollbridge.stores.sqlite import SQLiteStore
from rollbridge.tokens import hash_token


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_make_list_and_revoke(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("LANGUAGE", "en")
    db = str(tmp_path / "rollbridge.db")
    code, out, _ = run(capsys, "admin-token", "--db", db, "--name", "web front")
    assert code == 0
    head, token = out.splitlines()
    token = token.strip()
    assert token.startswith("rba_") and len(token) > 40
    assert "(web front), shown once" in head and "Authorization: Bearer" in head
    with SQLiteStore(db) as store:
        (record,) = store.list_admin_tokens()
        assert store.find_admin_token(hash_token(token)) == record
    assert record.id in head and record.name == "web front"
    assert token.encode() not in (tmp_path / "rollbridge.db").read_bytes()

    code, out, _ = run(capsys, "admin-token", "--db", db, "--list")
    made = datetime.fromtimestamp(record.created, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    assert (code, out) == (0, f"{record.id}  {made}  web front\n")
    code, out, _ = run(capsys, "admin-token", "--db", db, "--list", "--json")
    listed = json.loads(out)["admin_tokens"]
    assert [(t["id"], t["name"]) for t in listed] == [(record.id, "web front")]
    assert token not in out

    code, out, _ = run(capsys, "admin-token", "--db", db, "--revoke", record.id)
    assert (code, out) == (0, f"revoked admin token {record.id}\n")
    code, out, _ = run(capsys, "admin-token", "--db", db, "--list")
    assert out == "no admin tokens\n"
    code, _, err = run(capsys, "admin-token", "--db", db, "--revoke", record.id)
    assert code == 1 and err.startswith("rollbridge: error: not_found: ") and err.count("\n") == 1


def test_json_shows_the_new_token_once(tmp_path, capsys):
    db = str(tmp_path / "rollbridge.db")
    code, out, _ = run(capsys, "admin-token", "--db", db, "--json")
    made = json.loads(out)
    assert code == 0 and made["token"].startswith("rba_") and made["name"] == "admin"
    assert set(made) == {"token", "id", "name", "created"}


def test_texts_in_the_environments_language(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("LANGUAGE", "de")
    SQLiteStore(tmp_path / "r.db").close()
    code, out, _ = run(capsys, "admin-token", "--db", str(tmp_path / "r.db"), "--list")
    assert code == 0 and out != "no admin tokens\n" and out.strip()


def test_a_replaced_admin_token_is_told_apart_by_when_it_was_made(tmp_path, capsys, monkeypatch):
    """Replacing an admin token (a new one of the same name, then the old revoked):
    ``--list`` said ``ID  web-front`` for both, and nothing told which was the old one.
    It now says when each was made, the oldest first."""
    monkeypatch.setenv("LANGUAGE", "en")
    db = str(tmp_path / "rollbridge.db")
    for _ in range(2):
        assert run(capsys, "admin-token", "--db", db, "--name", "web-front")[0] == 0
    with SQLiteStore(db) as store:
        old, new = store.list_admin_tokens()
        store.revoke_admin_token(old.id)  # only to make it older: added again below
        store.add_admin_token(replace(old, created=old.created - 86_400))
    code, out, _ = run(capsys, "admin-token", "--db", db, "--list")
    assert code == 0
    first, second = out.splitlines()
    assert first.startswith(f"{old.id}  ") and second.startswith(f"{new.id}  ")
    assert first.split("  ")[1] < second.split("  ")[1]  # the day before, as written
    # to the second: a token replaced within a minute is told apart too (rev7c)
    assert len(second.split("  ")[1]) == len("2026-12-05 10:31:07 UTC"), second
    assert all(line.endswith("UTC  web-front") for line in (first, second))


def test_a_time_no_date_shows_is_listed_as_its_number(tmp_path, capsys, monkeypatch):
    """A token's time that no date shows (a damaged file's: 1e300 seconds, before
    1970) ended ``admin-token --list`` and ``table tokens`` with a traceback
    (``OverflowError``; the SQLite fuzzer, seed 404, 5 December). Now it is shown as
    the number it is, in the time's column."""
    import sqlite3

    monkeypatch.setenv("LANGUAGE", "en")
    db = str(tmp_path / "rollbridge.db")
    assert run(capsys, "admin-token", "--db", db, "--name", "web")[0] == 0
    assert run(capsys, "table", "create", "--ruleset", "sr2", "--name", "t", "--db", db)[0] == 0
    table = json.loads(run(capsys, "table", "list", "--db", db, "--json")[1])[0]["id"]
    for seconds in (1e300, -5.0):
        with sqlite3.connect(db) as conn:
            conn.execute("UPDATE admin_tokens SET created = ?", (seconds,))
            conn.execute("UPDATE tokens SET created = ?", (seconds,))
        for command in (["admin-token", "--list"], ["table", "tokens", table]):
            code, out, err = run(capsys, *command, "--db", db)
            assert (code, err) == (0, ""), err
            assert f"  {seconds!r}" in out, out


#: A name that clears the screen, retitles the window and starts a log line of its own.
HOSTILE = "evil\x1b]0;T\x07\n2026-12-05 INFO rollbridge.admin: all is well"


def test_an_admin_token_name_with_a_control_character_is_refused(tmp_path, capsys):
    """Names of tables and tokens are one line without controls (name_control), but an
    admin token's was taken as given: its line break and ESC went into the server's
    log with each admin API request it made, and ``--list`` printed them raw. Now it
    is refused as a token's name is, before any database file is made."""
    db = tmp_path / "rollbridge.db"
    code, out, err = run(capsys, "admin-token", "--db", str(db), "--name", HOSTILE)
    assert (code, out) == (1, "") and not db.exists()
    assert err.startswith("rollbridge: error: name_control: ") and err.count("\n") == 1, err
    code, out, err = run(capsys, "admin-token", "--db", str(db), "--name", "   ", "--json")
    assert code == 1 and json.loads(out)["code"] == "invalid_request" and not db.exists()
    code, out, _ = run(capsys, "admin-token", "--db", str(db), "--name", "", "--json")
    assert code == 0 and json.loads(out)["name"] == "admin"  # an empty one: as before


def test_an_older_admin_token_name_is_listed_without_its_controls(tmp_path, capsys):
    from rollbridge.tokens import new_admin_token

    db = tmp_path / "rollbridge.db"
    _secret, record = new_admin_token()
    with SQLiteStore(db) as store:  # as made before names were checked
        store.add_admin_token(replace(record, name=HOSTILE))
    code, out, _ = run(capsys, "admin-token", "--db", str(db), "--list")
    assert code == 0 and out.count("\n") == 1 and "\x1b" not in out and "\x07" not in out
    assert "evil\\x1b]0;T\\x07\\n2026" in out, out


def test_older_table_and_token_names_are_printed_without_their_controls(tmp_path, capsys):
    """A table or token named before names were checked (2026-12-03) keeps its name
    in the database; ``table list``, ``table tokens`` and ``serve``'s web view lines
    printed it raw (and ``table list`` counted its ESC as a column's width)."""
    import sqlite3

    from rollbridge.cli.startup import web_lines

    db = tmp_path / "t.db"
    code, out, _ = run(capsys, "table", "create", "--db", str(db), "--ruleset", "sr2",
                       "--name", "Friday", "--json")  # fmt: skip
    table = json.loads(out)["id"]
    with sqlite3.connect(db) as connection:  # as an older rollbridge took them
        connection.execute("UPDATE tables SET name = ?", (HOSTILE,))
        connection.execute("UPDATE tokens SET name = ?", (HOSTILE,))
    shown = "evil\\x1b]0;T\\x07\\n2026"
    for argv in (["table", "list"], ["table", "tokens", table]):
        code, out, _ = run(capsys, *argv, "--db", str(db), "--locale", "en")
        assert code == 0 and "\x1b" not in out and "\x07" not in out, (argv, out)
        assert shown in out and all(line.count(shown) == 1 for line in out.splitlines()), out
    line = web_lines([("http://x/tables/t", HOSTILE)], 0, "en")
    assert line.count("\n") == 1 and "\x1b" not in line and shown in line, line
