"""The commands that only read a database write nothing to it: ``table list``,
``table tokens`` (a list), ``table export``, ``table stats``, ``admin-token --list``
and ``backup``. Given a file of an older schema (the upgrade fixture of schema 5,
``598451c``) the table commands brought it up to date in place, and switched a file
in a rollback journal (a backup, a fixture) to WAL: a copy, a backup, or a file an
older rollbridge still serves was rewritten by a ``table list``. Now such a file is
read from a temporary copy (brought up to date there), and the file's bytes, and the
files beside it, are as they were. ``backup`` of an empty file reported "0 tables";
it is refused as the others refuse it (``no_database``), and leaves no copy."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from rollbridge.stores.sqlite import SCHEMA_VERSION, SQLiteStore
from tests.cli.test_upgrade_cli import _run
from tests.upgrade_files import old_file

#: The last version of schema 5 (every older fixture is older still).
OLD = "598451c"


def _state(folder: Path) -> dict[str, str]:
    """Every file of ``folder`` by name, as the SHA-256 of its bytes."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def _version(path: Path) -> int:
    with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True) as conn:
        return conn.execute("PRAGMA user_version").fetchone()[0]


def _reading_commands(table: str) -> list[tuple[str, ...]]:
    return [
        ("table", "list"),
        ("table", "list", "--json"),
        ("table", "tokens", table),
        ("table", "export", table, "--as", "gm", "--format", "jsonl"),
        ("table", "stats", table),
        ("admin-token", "--list"),
    ]


@pytest.fixture(autouse=True)
def english(monkeypatch):
    monkeypatch.setenv("LANGUAGE", "en")


@pytest.mark.parametrize("wal", [False, True], ids=["rollback-journal", "wal"])
def test_reading_an_older_schema_writes_nothing(tmp_path, wal):
    old = old_file(OLD, tmp_path / "db")
    if wal:  # as a stopped older server leaves it
        with sqlite3.connect(old.path) as conn:
            conn.execute("PRAGMA journal_mode=WAL")
        conn.close()
    table = next(iter(old.tables.values()))["table"]
    before = _state(old.path.parent)
    assert _version(old.path) < SCHEMA_VERSION
    for command in _reading_commands(table):
        status, out, err = _run(*command, "--db", str(old.path))
        assert status == 0 and err == "", (command, err)
        assert out, command
        assert _state(old.path.parent) == before, command  # nor a -wal or -shm left
    status, listed, _ = _run("table", "list", "--json", "--db", str(old.path))
    assert {t["id"] for t in json.loads(listed)} == {m["table"] for m in old.tables.values()}
    assert _version(old.path) < SCHEMA_VERSION


def test_reading_answers_as_the_file_brought_up_to_date_would(tmp_path):
    """The copy read is the file brought up to date: the same answers as reading the
    file after ``serve`` (a write command) upgraded it."""
    old = old_file(OLD, tmp_path / "db")
    table = next(iter(old.tables.values()))["table"]
    read = [_run(*c, "--db", str(old.path))[1] for c in _reading_commands(table)]
    SQLiteStore(old.path).close()  # what serving it does first
    assert _version(old.path) == SCHEMA_VERSION
    assert [_run(*c, "--db", str(old.path))[1] for c in _reading_commands(table)] == read


def test_reading_a_backup_leaves_it_as_it_was(tmp_path):
    """A backup (this schema, in a rollback journal, marked) read with ``table
    export`` was switched to WAL; now its bytes stay, and it is still a backup."""
    db, copy = tmp_path / "rollbridge.db", tmp_path / "backups" / "copy.db"
    copy.parent.mkdir()
    assert _run("table", "create", "--ruleset", "sr2", "--name", "Friday", "--db", str(db))[0] == 0
    assert _run("backup", "--db", str(db), str(copy))[0] == 0
    before = _state(copy.parent)
    status, listed, _ = _run("table", "list", "--json", "--db", str(copy))
    assert status == 0
    table = json.loads(listed)[0]["id"]
    for command in _reading_commands(table):
        status, _, err = _run(*command, "--db", str(copy))
        assert status == 0 and err == "", (command, err)
    assert _state(copy.parent) == before


def test_a_write_still_brings_an_older_file_up_to_date(tmp_path):
    """A command that writes (a new token) upgrades the file, as serving it does."""
    old = old_file(OLD, tmp_path / "db")
    table = next(iter(old.tables.values()))["table"]
    status, _, err = _run("table", "tokens", table, "--new", "observer", "--db", str(old.path))
    assert status == 0, err
    assert _version(old.path) == SCHEMA_VERSION


def test_reading_a_newer_schema_is_refused_and_writes_nothing(tmp_path):
    db = tmp_path / "db" / "rollbridge.db"
    db.parent.mkdir()
    SQLiteStore(db).close()
    with sqlite3.connect(db) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    before = _state(db.parent)
    status, out, err = _run("table", "list", "--db", str(db))
    assert (status, out) == (1, "")
    assert err == (
        f"rollbridge: error: store_error: {db} has schema version {SCHEMA_VERSION + 1},"
        f" newer than this rollbridge's {SCHEMA_VERSION}: upgrade rollbridge\n"
    )
    assert _state(db.parent) == before


@pytest.mark.parametrize("content", [b"", b"x" * 40, None], ids=["empty", "short", "no-schema"])
def test_backup_of_no_database_is_refused_and_leaves_no_copy(tmp_path, content):
    db, dest = tmp_path / "db" / "x.db", tmp_path / "copy.db"
    db.parent.mkdir()
    if content is None:  # a SQLite file that holds nothing (schema version 0)
        with sqlite3.connect(db) as conn:
            conn.execute("CREATE TABLE t (a)")
            conn.execute("DROP TABLE t")
        conn.close()
    else:
        db.write_bytes(content)
    before = _state(db.parent)
    status, out, err = _run("backup", "--db", str(db), str(dest))
    assert (status, out) == (1, "")
    assert err.startswith(f"rollbridge: error: no_database: no database in {db}: "), err
    assert err.count("\n") == 1
    assert not dest.exists() and list(tmp_path.iterdir()) == [db.parent]
    assert _state(db.parent) == before
    status, out, _ = _run("backup", "--db", str(db), str(dest), "--json")
    assert status == 1 and json.loads(out)["code"] == "no_database"


def test_backup_of_a_missing_file_says_no_database(tmp_path):
    """As the other reading commands say it (it was ``store_error``)."""
    db = tmp_path / "none.db"
    status, _, err = _run("backup", "--db", str(db), str(tmp_path / "copy.db"))
    assert status == 1
    assert err.startswith(f"rollbridge: error: no_database: no database file {db}: "), err
    assert list(tmp_path.iterdir()) == []
