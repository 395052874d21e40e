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
