"""The statements a SQLite group commit runs (counted with ``set_trace_callback`` on
the writing connection): ``BEGIN IMMEDIATE``, ``PRAGMA data_version``, one ``INSERT``
of every log row and one of every reply row, ``COMMIT`` — whatever the group's size up
to 32 commits of one reply each; past it one ``INSERT`` of each kind per 32 rows. And
what a multi-row ``INSERT`` must keep: under SQLite's oldest limit of parameters, a
key answered twice in a group, a row refused in the middle of one.

Each statement's step releases the GIL and takes it back, which the server's event
loop wants too. Before, the rows were split in powers of two: the ~13 commits of a
live server's group commit (docs/performance.md) took three statements of each kind
(8 + 4 + 1 rows). Every row is written all the same (the reads below).
"""

from __future__ import annotations

import sqlite3
from collections import Counter

import pytest

from rollbridge.engine import ActorRecord, Commit, Event, TableInfo
from rollbridge.exceptions import StoreError
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


def approved(table_id: str, seq: int, epoch: int = 1) -> Commit:
    """A commit answering two requests (an approval: the GM's and the player's own),
    so a group of n commits writes n log rows and 2n reply rows."""
    made = commit(table_id, seq)
    made.replies = {f"gm#{table_id}-{seq}": {"seq": seq}, f"p#{table_id}-{seq}": {"seq": seq}}
    made.info.epoch = made.events[0].epoch = epoch
    return made


@pytest.mark.parametrize("size", [32, 33, 64, 65, 130])
def test_no_statement_passes_the_parameters_of_sqlite_before_3_32(store, size):
    """SQLite before 3.32 binds at most 999 parameters a statement (the project runs on
    whatever SQLite its Python has): a log row has 8, so 32 rows are 256. A connection
    held to 999 writes every group whole (the statements of up to 128 log rows took
    1,024: ``too many SQL variables``, below b46172dd)."""
    limit = store._conn().setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, 999)
    try:
        store.commit_many([("t1", approved("t1", seq)) for seq in range(1, size + 1)])
    finally:
        store._conn().setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, limit)
    assert [e.seq for e in store.events_after("t1", 0)] == list(range(1, size + 1))
    assert all(store.reply("t1", f"{who}#t1-{seq}") == {"seq": seq}
               for seq in range(1, size + 1) for who in ("gm", "p"))  # fmt: skip


def test_a_reply_key_written_twice_in_a_group_keeps_the_later_reply(store):
    """Two commits of one group answering the same key — in one ``INSERT`` (rows 1
    and 2) and in two (rows 3 and 40): the later reply stands, as a memory store keeps
    it (and as the rows written one by one did)."""
    items = [("t1", commit("t1", seq)) for seq in range(1, 41)]
    for seq, key in ((1, "same"), (2, "same"), (3, "apart"), (40, "apart")):
        items[seq - 1][1].replies = {key: {"seq": seq}}
    store.commit_many(items)
    assert (store.reply("t1", "same"), store.reply("t1", "apart")) == ({"seq": 2}, {"seq": 40})


def test_a_row_refused_within_an_insert_writes_nothing_of_the_group(store):
    """A log row SQLite refuses (a commit of a new epoch whose seqs a row of the table
    holds: ``UNIQUE ("table", first)``) in the middle of a group's one ``INSERT``: the
    group fails as a whole, no row of the commits before or after it is written, and
    each good commit is written after when tried alone (the writer's retry, commit by
    commit)."""
    store.commit_many(group(6, 1))  # each table at seq 2
    good = [("t1", commit("t1", 3)), ("t3", commit("t3", 3))]
    items = [good[0], ("t2", approved("t2", 1, epoch=2)), good[1]]
    with pytest.raises(StoreError) as caught:
        store.commit_many(items)
    assert "UNIQUE" in str(caught.value)
    for table_id in TABLES:
        assert [e.seq for e in store.events_after(table_id, 0)] == [1, 2]
        assert store.reply(table_id, f"gm#{table_id}-3") is None
    assert store.reply("t2", "p#t2-1") is None
    for item in good:
        store.commit_many([item])
    assert [e.seq for e in store.events_after("t3", 0)] == [1, 2, 3]
    assert store.reply("t1", "gm#t1-3") == {"seq": 3}


def test_a_group_commit_binds_no_value_the_sqlite3_module_adapts_but_null(store, monkeypatch):
    """The ``sqlite3`` module binds an ``int``, ``float``, ``str`` or ``bytearray``
    as it is and asks every other value for an adapter first (a lookup failing
    through a formatted ``AttributeError``): a group commit's rows bind their bytes
    as ``bytearray`` — only a log row's missing undos (NULL) is left to it. Before,
    four values a commit (its info, events and state, its reply) were bytes. The
    rows read back are the same bytes (the reads of the tests above)."""
    bound: Counter[str] = Counter()
    insert = sqlite_module._insert

    class Recording:
        def __init__(self, conn: sqlite3.Connection) -> None:
            self.conn = conn

        def execute(self, sql: str, values: list) -> sqlite3.Cursor:
            bound.update(type(v).__name__ for v in values)
            return self.conn.execute(sql, values)

    monkeypatch.setattr(sqlite_module, "_insert",
                        lambda conn, *rest: insert(Recording(conn), *rest))  # fmt: skip
    store.commit_many(group(6, 1))
    assert set(bound) <= {"int", "float", "str", "bytearray", "NoneType"}, bound
    assert bound["bytearray"] == 6 * 4
    events = store.events_after("t1", 0)
    assert [e.data for e in events] == [{"total": 1}, {"total": 2}]
