"""The statements a SQLite group commit runs (counted with ``set_trace_callback`` on
the writing connection): ``BEGIN IMMEDIATE``, ``PRAGMA data_version``, one ``INSERT``
of every log row and one of every reply row, ``COMMIT`` — whatever the group's size up
to 32 commits; past it one ``INSERT`` of each kind per 32 rows.

Each statement's step releases the GIL and takes it back, which the server's event
loop wants too. Before, the rows were split in powers of two: the ~13 commits of a
live server's group commit (docs/performance.md) took three statements of each kind
(8 + 4 + 1 rows). Every row is written all the same (the reads below).
"""

from __future__ import annotations

from collections import Counter

import pytest

from rollbridge.engine import ActorRecord, Commit, Event, TableInfo
from rollbridge.stores import sqlite as sqlite_module
from rollbridge.stores.sqlite import SQLiteStore

TABLES = ("t1", "t2", "t3")


def info(table_id: str, seq: int) -> TableInfo:
    return TableInfo(table_id, f"Table {table_id}", "tally", "1.2.0", {}, 1, seq)


def commit(table_id: str, seq: int) -> Commit:
    meta = {"encounter": None, "pending": {}, "undo": [seq], "redo": [], "dice": None}
    event = Event(table_id, 1, seq, "roll", data={"total": seq})
    actor = ActorRecord("a", "A", {"hp": seq}, {})
    return Commit([event], [actor], [], info(table_id, seq), meta,
                  {f"gm#{table_id}-{seq}": {"seq": seq}})  # fmt: skip


def group(count: int, start: int) -> list[tuple[str, Commit]]:
    """``count`` commits spread over the tables, each table's seqs going on from
    ``start`` (a commit a table a round)."""
    return [(TABLES[n % 3], commit(TABLES[n % 3], start + n // 3)) for n in range(count)]


@pytest.fixture
def store(tmp_path):
    made = SQLiteStore(tmp_path / "t.db")
    for table_id in TABLES:
        made.create_table(info(table_id, 0), [])
    yield made
    made.close()


def counted(store: SQLiteStore, items: list[tuple[str, Commit]]) -> Counter[str]:
    found: Counter[str] = Counter()
    conn = store._conn()
    conn.set_trace_callback(lambda sql: found.update([" ".join(sql.split()[:3])]))
    try:
        store.commit_many(items)
    finally:
        conn.set_trace_callback(None)
    return found


@pytest.mark.parametrize("size", [1, 2, 13, 31, 32])
def test_a_group_commit_is_five_statements(store, size):
    store.commit_many(group(3, 1))  # the tables' heads read: kept from now on
    found = counted(store, group(size, 2))
    assert found == {
        "BEGIN IMMEDIATE": 1,
        "PRAGMA data_version": 1,
        "INSERT INTO log": 1,
        "INSERT OR REPLACE": 1,
        "COMMIT": 1,
    }


def test_past_32_rows_one_insert_of_each_kind_per_32(store, monkeypatch):
    monkeypatch.setattr(sqlite_module, "SNAPSHOT_EVERY", 1000)  # no snapshot in the count
    store.commit_many(group(3, 1))
    found = counted(store, group(70, 2))  # 32 + 32 + 6 rows of each kind
    assert (found["INSERT INTO log"], found["INSERT OR REPLACE"]) == (3, 3)
    for table_id in TABLES:
        events = store.events_after(table_id, 0)
        assert [e.seq for e in events] == list(range(1, events[-1].seq + 1))
        assert [e.data["total"] for e in events] == [e.seq for e in events]
        assert all(store.reply(table_id, f"gm#{table_id}-{e.seq}") == {"seq": e.seq}
                   for e in events)  # fmt: skip
    assert sum(len(store.events_after(t, 0)) for t in TABLES) == 73
