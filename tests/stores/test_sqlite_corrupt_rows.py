"""A log row or a snapshot that cannot be read is a StoreError naming the table (and
the row's seqs), from every read of the SQLite store and from the CLI commands that
read the log (``table export``, ``table stats``): one error line, no traceback."""

from __future__ import annotations

import json
import sqlite3

import pytest

from rollbridge.cli import main
from rollbridge.exceptions import StoreError
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore
from tests.dice.test_verifiable_dice import GM, HOST


@pytest.fixture
def damaged(tmp_path):
    """A table ``t`` of five rolls whose log row of seq 5 is garbage."""
    db = tmp_path / "x.db"
    with SQLiteStore(db) as store:
        service = TableService(store, HOST)
        service.create_table("t", "bandits", table_id="t")
        for n in range(5):
            service.handle("t", {"type": "roll", "id": f"r{n}", "formula": "1d6"}, GM)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE log SET events = X'c1c1' WHERE \"table\" = 't' AND last = 5")
    return db


def test_every_read_of_a_corrupt_row_names_the_table_and_seqs(damaged):
    with SQLiteStore(damaged) as store:
        for read in (lambda: store.events_after("t", 2), lambda: store.event("t", 5)):
            with pytest.raises(StoreError) as caught:
                read()
            assert caught.value.code == "store_error"
            assert caught.value.details == {"table": "t", "first": 5, "last": 5}
            assert "table t" in str(caught.value) and "5 to 5" in str(caught.value)
        assert store.event("t", 4) is not None  # the other rows read as before


def test_a_ranged_read_reads_only_the_rows_of_its_range(damaged):
    """``events_after`` with ``until`` selects the log rows of its range by the
    ``("table", first)`` index: the garbage row past it is never read."""
    with SQLiteStore(damaged) as store:
        assert [e.seq for e in store.events_after("t", 1, 4)] == [2, 3, 4]
        assert [e.seq for e in store.events_after("t", 3, 4)] == [4]
        with pytest.raises(StoreError):
            store.events_after("t", 1)  # the whole rest: the garbage row too


def test_a_corrupt_snapshot_names_the_table(damaged):
    with sqlite3.connect(damaged) as conn:
        conn.execute("UPDATE tables SET meta = X'c1' WHERE id = 't'")
    with SQLiteStore(damaged) as store, pytest.raises(StoreError) as caught:
        store.load("t")
    assert caught.value.details == {"table": "t"} and "table t" in str(caught.value)


@pytest.mark.parametrize(
    "command", [["export", "--as", "gm", "--format", "jsonl"], ["stats", "--json"]]
)
def test_the_cli_says_one_line(damaged, capsys, monkeypatch, command):
    monkeypatch.setenv("LANGUAGE", "en")
    status = main(["table", command[0], "t", "--db", str(damaged), *command[1:]])
    out, err = capsys.readouterr()
    if "--json" in command:  # the error as JSON, in place of the answer (docs/operations.md)
        error = json.loads(out)
        assert status == 1 and err == "" and error["code"] == "store_error"
        err = f"rollbridge: error: store_error: {error['message']}\n"
    assert status == 1 and err.count("\n") == 1, err
    assert err.startswith("rollbridge: error: store_error: table t: ") and "5 to 5" in err


def _one_line(argv: list[str], capsys) -> tuple[int, str]:
    """``rollbridge ARGV``'s status and its one error line (no traceback: an
    exception out of :func:`main` fails the test)."""
    status = main(argv)
    out, err = capsys.readouterr()
    if "--json" in argv and status == 1:
        error = json.loads(out)
        err = f"rollbridge: error: {error['code']}: {error['message']}\n"
    assert err.count("\n") == 1, err
    return status, err


@pytest.mark.parametrize(
    ("cell", "value", "commands"),
    [
        ("tables.seq", "abc", [["table", "export", "t", "--as", "gm", "--format", "jsonl"],
                               ["table", "stats", "t", "--json"], ["table", "list"]]),
        ("tables.id", None, [["table", "list"], ["table", "list", "--json"]]),
        ("tables.epoch", 2.5, [["table", "list"], ["table", "stats", "t"]]),
        ("tables.name", b"\xff", [["table", "list", "--json"]]),
        ("tokens.role", b"gm", [["table", "tokens", "t", "--json"]]),
        ("admin_tokens.name", b"\xd9Y", [["admin-token", "--list", "--json"],
                                        ["admin-token", "--list"]]),
    ],
)  # fmt: skip
def test_a_cell_of_another_kind_is_one_line_naming_it(damaged, capsys, cell, value, commands):
    """A cell another program or a broken disk left of another kind than its column
    holds was read as it was: a seq of text ended ``table export`` and ``table
    stats`` with a traceback (``'>' not supported``), a table without an id ended
    ``table list`` with one, an admin token's name of bytes ended ``admin-token
    --list --json`` with one (the SQLite fuzzer, 5 December). Now each read refuses it,
    ``store_error``, naming the column, and writes nothing."""
    main(["admin-token", "--db", str(damaged), "--name", "ops"])
    capsys.readouterr()
    table, column = cell.split(".")
    with sqlite3.connect(damaged) as conn:
        conn.execute(f'UPDATE "{table}" SET "{column}" = ?', (value,))
    before = damaged.read_bytes()
    for argv in commands:
        status, err = _one_line([*argv, "--db", str(damaged)], capsys)
        assert status == 1 and err.startswith("rollbridge: error: store_error: "), err
        assert cell in err, err
    assert damaged.read_bytes() == before


def test_a_schema_whose_words_are_not_utf8_cannot_be_opened(tmp_path, capsys):
    """SQLite's error about a damaged schema quotes its bytes, and Python's sqlite3
    raises UnicodeDecodeError for words that are not UTF-8, not sqlite3.Error:
    opening the file let it out, a traceback (the SQLite fuzzer, 5 December, bytes
    flipped in the schema). Now it is "cannot open FILE", as for any damaged schema."""
    db = tmp_path / "x.db"
    with SQLiteStore(db):
        pass
    with sqlite3.connect(db) as conn:  # an unterminated quote: SQLite's error quotes it
        conn.execute("PRAGMA writable_schema = ON")
        conn.execute("UPDATE sqlite_master SET sql = CAST(? AS TEXT) WHERE name = 'log'",
                     (b"CREATE TABLE log('\xfc\xfd)",))  # fmt: skip
    with pytest.raises(StoreError) as caught, SQLiteStore(db) as store:
        store.tables()
    assert f"cannot open {db}" in str(caught.value)
    status, err = _one_line(["table", "list", "--db", str(db)], capsys)
    assert status == 1 and err.startswith(f"rollbridge: error: store_error: cannot open {db}")


@pytest.mark.parametrize(("version", "code"), [(99, "store_error"), (4, "store_error")])
def test_a_file_refused_for_its_schema_is_left_as_it_was(tmp_path, capsys, version, code):
    """A file the sqlite3 shell made (its rollback journal) of a newer schema, or of
    an older one without the tables to migrate: the store switched it to WAL, writing
    its header, before it read the version and refused (the SQLite fuzzer, 5 December:
    "the refused command wrote the file"). Now the version is read and the file
    migrated or refused first: a refused file's bytes are as they were."""
    db = tmp_path / "x.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE other (a)")
        conn.execute(f"PRAGMA user_version = {version}")
    before = db.read_bytes()
    with pytest.raises(StoreError):
        SQLiteStore(db)
    status, err = _one_line(["table", "list", "--db", str(db)], capsys)
    assert status == 1 and err.startswith(f"rollbridge: error: {code}: "), err
    assert db.read_bytes() == before


@pytest.mark.parametrize(
    ("locale", "words"),
    [("cs", "celé číslo"), ("de", "ganze Zahl"), ("ru", "целое число")],
)
def test_a_cell_of_another_kind_is_said_in_the_operators_language(
    damaged, capsys, monkeypatch, locale, words
):
    """The refusal of a wrong-kind cell (the fuzz10 merge) was Python's words in every
    language: ``store_error: x.db: ValueError: tables.seq is 'abc', not a whole
    number``. It is rollbridge's own message, translated, naming the cell; a table's
    load names the table around it."""
    with sqlite3.connect(damaged) as conn:
        conn.execute("UPDATE tables SET seq = 'abc'")
    monkeypatch.setenv("LANGUAGE", locale)
    status, err = _one_line(["table", "list", "--db", str(damaged)], capsys)
    assert status == 1 and err.startswith("rollbridge: error: store_error: "), err
    assert "tables.seq" in err and words in err and "ValueError" not in err, err
    assert f"store_error: {damaged}: tables.seq" in err, err  # the file, as before
    with SQLiteStore(damaged) as store, pytest.raises(StoreError) as caught:
        store.load("t")
    assert caught.value.details == {"table": "t"}
    assert "ValueError" not in str(caught.value) and "tables.seq" in str(caught.value)
    assert words in caught.value.render(locale)
