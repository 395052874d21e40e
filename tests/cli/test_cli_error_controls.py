"""A CLI error is one line on the terminal even when what it quotes holds control
characters: the operator's path, an argument argparse quotes back, or SQLite's words
about a damaged file (which quote the file's own bytes: a file handed to the operator
could carry terminal escapes). Found by tests/hostile/test_fuzz_sqlite.py with seed
60612: a flipped byte in a schema made ``unrecognized token: "\\x1c"``, a line break
to ``str.splitlines``."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

from rollbridge.stores.sqlite_faults import explain
from rollbridge.visible import CONTROLS
from tests.cli.test_serve_options import serve_printed


def run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rollbridge", *argv],
        capture_output=True, text=True, timeout=120,
        env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/nonexistent"},
    )  # fmt: skip


def one_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert not CONTROLS.search(lines[0]), err
    return lines[0]


def damaged(tmp_path, schema: str | bytes = "CREATE TABLE admin_tokens (\x1b[2J\x1c"):
    """A rollbridge file whose admin_tokens schema text is ``schema`` (by default one
    holding ESC and FS; bytes are written as they are, UTF-8 or not): SQLite refuses
    to read it and quotes the token."""
    path = tmp_path / "damaged.db"
    made = run("table", "create", "--db", str(path), "--ruleset", "sr2", "--name", "T")
    assert made.returncode == 0, made.stderr
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA writable_schema = ON")
    conn.execute(
        "UPDATE sqlite_master SET sql = CAST(? AS TEXT) WHERE name = 'admin_tokens'",
        (schema,),
    )
    conn.commit()
    conn.close()
    return path


def test_a_path_with_control_characters_is_said_escaped(tmp_path):
    path = tmp_path / "no\x1b[31mwhere\x1cx" / "db"
    result = run("table", "list", "--db", str(path))
    assert result.returncode == 1
    line = one_line(result.stderr)
    assert line.startswith("rollbridge: error: no_database: ")
    assert "no\\x1b[31mwhere\\x1cx" in line


def test_a_line_break_in_a_path_is_escaped_too(tmp_path):
    """The line breaks kept are the message's own (a Redis server's unsafe settings,
    one a line), not those of a path it names: a folder named with a line break made
    the error two lines, the second with no ``rollbridge: error:`` head."""
    folder = tmp_path / "no\nwhere\u2028x"
    for argv, code in (
        (("table", "list", "--db", str(folder / "db")), "no_database"),
        (("backup", "--db", str(folder / "db"), str(folder / "copy.db")), "no_database"),
    ):
        result = run(*argv)
        assert result.returncode == 1, result.stderr
        line = one_line(result.stderr)
        assert line.startswith(f"rollbridge: error: {code}: "), line
        assert "no\\nwhere\\u2028x" in line


def test_a_warning_naming_a_path_with_a_line_break_is_one_line(tmp_path):
    """The store's and the dice key's warnings are one line each: the dice key's
    names its file, whose folder's name may hold a line break."""
    folder = tmp_path / "w\nb"
    folder.mkdir()
    db = folder / "t.db"
    settings = '{"verifiable": true}'
    made = run("table", "create", "--db", str(db), "--ruleset", "sr2", "--name", "A",
               "--settings", settings)  # fmt: skip
    assert made.returncode == 0, made.stderr
    (folder / "t.db.dice-key").unlink()
    again = run("table", "create", "--db", str(db), "--ruleset", "sr2", "--name", "B")
    assert again.returncode == 0, again.stderr
    line = one_line(again.stderr)
    assert line.startswith("rollbridge: warning: ") and "w\\nb" in line, line
    assert "new dice key" in line


def test_an_argument_argparse_quotes_is_escaped():
    result = run("table", "list", "--sort", "a\x1bb\x1cc")
    assert result.returncode == 2
    line = one_line(result.stderr)
    assert "a\\x1bb\\x1cc" in line


def test_sqlite_words_about_a_damaged_schema_are_escaped(tmp_path):
    path = damaged(tmp_path)
    before = path.read_bytes()
    result = run("table", "list", "--db", str(path))
    assert result.returncode == 1
    line = one_line(result.stderr)
    assert line.startswith("rollbridge: error: store_error: ")
    assert "SQLITE_CORRUPT" in line and "\\x1b" in line
    as_json = run("table", "list", "--db", str(path), "--json")
    error = json.loads(as_json.stdout)
    assert error["code"] == "store_error"
    assert not CONTROLS.search(error["message"]) and "\\x1b" in error["message"]
    assert path.read_bytes() == before


def test_explain_escapes_the_words_of_sqlite_and_of_python():
    said = explain(sqlite3.DatabaseError('unrecognized token: "\x1b[2J\u2028"'))
    text = said.render("en")
    assert not CONTROLS.search(text)
    assert "\\x1b[2J\\u2028" in text
    other = explain(TypeError("bad \x07 value")).render("en")
    assert not CONTROLS.search(other) and "\\x07" in other


def test_a_schema_whose_words_are_not_utf8_is_said_damaged_by_every_command(tmp_path):
    """SQLite quotes the bad token, Python's sqlite3 cannot decode it and raises
    UnicodeDecodeError, not sqlite3.Error: ``migrate`` let it out as a traceback
    (tests/hostile/test_fuzz_sqlite.py, seed 60612)."""
    path = damaged(tmp_path, b"CREATE TABLE admin_tokens (x '\xbe")
    before = path.read_bytes()
    for argv in (
        ("migrate", "--from", str(path), "--to", "redis://127.0.0.1:9/0"),
        ("table", "list", "--db", str(path)),
        ("backup", "--db", str(path), str(tmp_path / "copy.db")),
    ):
        result = run(*argv)
        assert result.returncode == 1, (argv, result.stderr)
        line = one_line(result.stderr)
        assert line.startswith("rollbridge: error: store_error: "), argv
        assert "the database is damaged" in line, argv
    assert path.read_bytes() == before
    assert not (tmp_path / "copy.db").exists()


def test_serve_names_a_database_with_control_characters_escaped(tmp_path):
    """``serve``'s start-up line names its database: the path's ESC went to the
    terminal as it was (turning the rest red) and a line break split the line."""
    folder = tmp_path / "e\x1b[31mx\ny"
    folder.mkdir()
    lines = serve_printed(["--db", str(folder / "s.db"), "--no-demo"], last="rollbridge serving")
    serving = next(line for line in lines if line.startswith("rollbridge serving"))
    assert "(db " + str(tmp_path / "e\\x1b[31mx\\ny" / "s.db") + ")" in serving, serving
    assert not CONTROLS.search(serving.rstrip("\n")), serving


def test_error_words_escape_every_argument_and_keep_the_messages_own_lines():
    """A path given as a ``Path`` or an ``OSError`` (text only once rendered), in a
    nested message or a list, is escaped as a string is; the line breaks of the
    message's template (a Redis server's unsafe settings, one a line) stay."""
    from pathlib import Path

    from rollbridge.cli.render import error_words
    from rollbridge.cli.stores import UNSAFE
    from rollbridge.exceptions import StoreError
    from rollbridge.stores.base import WITH_DETAIL

    nested = WITH_DETAIL(advice=Path("a\nb"), detail=OSError(2, "x\x1by"))
    assert error_words(StoreError(nested)) == "a\\nb ([Errno 2] x\\x1by)"
    unsafe = UNSAFE(where="redis \x1b", problems=["one\n", WITH_DETAIL(advice="two", detail="3")])
    said = error_words(StoreError(unsafe))
    head = "redis \\x1b would lose acknowledged changes:\n  - one\\n\n  - two (3)\n"
    assert said.startswith(head), said
    assert not CONTROLS.search(said.replace("\n", ""))
