"""A SQLite table's snapshot with the log rows after it, folded (``_fold``: the
writer's snapshot every ``SNAPSHOT_EVERY`` events, and every ``load``): each actor's
record is made once, from its last version, and the table read is the same as a
memory store's of the same commits.

Before, the fold made a record of every version of every actor it met — the
snapshot's and each row's — and a snapshot folds up to 128 rows, nearly all of them
changing the same actor or two: ~100 records made and dropped on the writer thread
per snapshot (docs/performance.md, "The writer's commit, 7 December (evening)").
"""

from __future__ import annotations

import sqlite3

import pytest

from rollbridge.engine import ActorRecord, Commit, Event, TableInfo
from rollbridge.exceptions import StoreError
from rollbridge.plain import pack, unpack
from rollbridge.stores import sqlite as sqlite_module
from rollbridge.stores.memory import MemoryStore
from rollbridge.stores.sqlite import SQLiteStore


def table_info(seq: int = 0) -> TableInfo:
    return TableInfo("t", "Table t", "tally", "1.2.0", {"approval": False}, 1, seq)


def meta(undo: list[int]) -> dict:
    return {"encounter": None, "pending": {}, "undo": undo, "redo": [], "dice": None}


def commits(count: int) -> list[Commit]:
    """``count`` commits of one event each: the first adds actors a0..a2, each later
    one changes a0 (every other one a1 too); the 10th removes a2 and the 20th puts
    a2 back in front (an ``order``)."""
    made = []
    for seq in range(1, count + 1):
        if seq == 1:
            actors = [ActorRecord(f"a{n}", f"A{n}", {"hp": 10}, {}) for n in range(3)]
        else:
            actors = [ActorRecord("a0", "A0", {"hp": 10 - seq % 7}, {"n": seq})]
            if seq % 2:
                actors.append(ActorRecord("a1", "A1", {"hp": seq}, {}, ["p1"]))
        removed, order = [], None
        if seq == 10:
            removed = ["a2"]
        if seq == 20:
            actors.append(ActorRecord("a2", "A2", {"hp": 3}, {}))
            order = ["a2", "a0", "a1"]
        event = Event("t", 1, seq, "roll", data={"total": seq})
        made.append(Commit([event], actors, removed, table_info(seq), meta([seq]),
                           {f"gm#{seq}": {"seq": seq}}, order=order))  # fmt: skip
    return made


def written(store, count: int):
    store.create_table(table_info(), [])
    for commit in commits(count):
        store.commit("t", commit)
    return store


def test_a_fold_makes_each_actor_once(tmp_path, monkeypatch):
    """40 rows after the table's snapshot, changing a0 in each and a1 in every other:
    three records made (a0, a1, a2), where the fold made 62 before."""
    store = written(SQLiteStore(tmp_path / "t.db"), 40)
    made: list[str] = []
    from_dict = ActorRecord.from_dict.__func__

    def counting(cls, data, **kwargs):
        made.append(data["id"])
        return from_dict(cls, data, **kwargs)

    monkeypatch.setattr(ActorRecord, "from_dict", classmethod(counting))
    snapshot, _ = store.load("t")
    store.close()
    assert sorted(made) == ["a0", "a1", "a2"]
    assert list(snapshot.actors) == ["a2", "a0", "a1"]


def test_the_fold_reads_as_a_memory_store_does(tmp_path, monkeypatch):
    """Each actor's last version, in the table's order (a2 removed, then put back in
    front), the meta and info of the last row — through a snapshot (every 16 events
    here) and the rows after it, at every length."""
    monkeypatch.setattr(sqlite_module, "SNAPSHOT_EVERY", 16)
    for count in (1, 9, 10, 19, 20, 33, 40):
        sqlite_store = written(SQLiteStore(tmp_path / f"t{count}.db"), count)
        memory_store = written(MemoryStore(), count)
        got, want = sqlite_store.load("t")[0], memory_store.load("t")[0]
        sqlite_store.close()
        assert list(got.actors) == list(want.actors), count
        assert got.actors == want.actors, count
        assert (got.info, got.meta()) == (want.info, want.meta()), count


def damage(path, last: int, version: dict) -> None:
    """The log row of ``last``: its state's record of ``version``'s actor replaced by
    ``version`` (whole msgpack, a record no reader could make: another program's or a
    broken disk's)."""
    with sqlite3.connect(path) as conn:
        state = unpack(conn.execute("SELECT state FROM log WHERE last = ?", (last,)).fetchone()[0])
        state["actors"] = [version if a["id"] == version["id"] else a for a in state["actors"]]
        conn.execute("UPDATE log SET state = ? WHERE last = ?", (pack(state), last))
    conn.close()


def test_a_damaged_version_a_later_row_replaced_is_not_read(tmp_path, monkeypatch):
    """The fold makes a record of an actor's last version only: a version a later row
    replaced is not read, so one that is damaged (no name) leaves the table readable,
    as it reads with the row whole, and the writer's next snapshot holds the actor's
    last version — nothing of the damaged one (before 5ae7efc8 the table could not be
    loaded, and every commit to it failed at its snapshot). A damaged last version is
    still ``store_error`` naming the table."""
    monkeypatch.setattr(sqlite_module, "SNAPSHOT_EVERY", 1000)  # every row folded
    path = tmp_path / "t.db"
    written(SQLiteStore(path), 8).close()
    damage(path, 7, {"id": "a0", "sheet": 7})  # a0 again at 8
    with SQLiteStore(path) as store:
        got = store.load("t")[0]
        want = written(MemoryStore(), 8).load("t")[0]
        assert (list(got.actors), got.actors) == (list(want.actors), want.actors)
        monkeypatch.setattr(sqlite_module, "SNAPSHOT_EVERY", 4)
        store.commit("t", commits(9)[-1])  # the writer's snapshot of all nine
    with sqlite3.connect(path) as conn:
        snapshot = unpack(conn.execute("SELECT state FROM tables").fetchone()[0])
    conn.close()
    records = written(MemoryStore(), 9).load("t")[0].actors.values()
    assert snapshot == [r.as_data() for r in records]
    with SQLiteStore(path) as store:
        store.commit("t", commits(10)[-1])  # a0 again at 10, after the snapshot
    damage(path, 10, {"id": "a0", "sheet": 7})
    with SQLiteStore(path) as store, pytest.raises(StoreError) as caught:
        store.load("t")
    assert caught.value.details == {"table": "t"} and "table t" in str(caught.value)
