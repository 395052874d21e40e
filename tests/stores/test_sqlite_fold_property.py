"""The fold of a SQLite table (``_fold``: its snapshot with the log rows after it —
the writer's snapshot every ``SNAPSHOT_EVERY`` events, and every ``load``) reads every
shape a log can hold as the fold before 5ae7efc8 did, and as a memory store reads the
same commits (docs/performance.md, "The writer's commit, 7 December (evening)").

Seeded Hypothesis logs over two tables, written through the public store API
(``commit_many``: groups of one to six commits, so a snapshot falls mid-group):
actors added, changed, removed and re-added with the same id, in the same commit too,
removals undone (an ``order`` putting an actor back where it stood), the undo and redo
stacks, an encounter over the actors, waiting requests, commits without events (a
setting changed: the writer's snapshot at once), a snapshot every 3 events, every 7,
and every 128 (the store's: each table's log then starts 5 events short of it). After
each group: ``load`` of the SQLite store (and of the file opened anew, at the end)
equals the memory store's, and ``_fold`` of the rows the file holds equals the fold
before (:func:`fold_before`, verbatim from ``5ae7efc8^``). Tables of older schema
versions: tests/stores/test_sqlite_changes_only.py and test_upgrade_migrate.py."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from rollbridge.engine.model import ActorRecord, Commit, Event, TableInfo
from rollbridge.plain import unpack
from rollbridge.stores import sqlite as sqlite_module
from rollbridge.stores.base import in_order
from rollbridge.stores.memory import MemoryStore
from rollbridge.stores.sqlite import _EMPTY, _INFO_COLUMNS, SQLiteStore, _fold, _info, _logged_info

TABLES = ("t1", "t2")
IDS = ("a0", "a1", "a2", "a3", "a4")


def fold_before(row, rows):
    """``_fold`` of ``5ae7efc8^``: a record made of every version met."""
    info = _info(row)
    actors = {
        data["id"]: ActorRecord.from_dict(data, fresh=True) for data in unpack(row[8] or _EMPTY)
    }
    meta = unpack(row[7])
    for last, info_blob, state_blob in rows:
        state = unpack(state_blob)
        for data in state["actors"]:
            actors[data["id"]] = ActorRecord.from_dict(data, fresh=True)
        for actor_id in state["removed"]:
            actors.pop(actor_id, None)
        if state.get("order") is not None:
            actors = in_order(actors, state["order"])
        if state.get("meta") is not None:
            meta = state["meta"]
        if "changed" in state:
            meta = {**meta, **state["changed"]}
        if info_blob:
            info = _logged_info(row[0], last, info_blob)
        else:
            info.seq = last
    return info, actors, meta


def stored_rows(path, table_id: str):
    """The table's snapshot row and the log rows after it, as the file holds them."""
    conn = sqlite3.connect(path)
    try:
        row = conn.execute(
            f"SELECT {_INFO_COLUMNS}, meta, state FROM tables WHERE id = ?", (table_id,)
        ).fetchone()
        rows = conn.execute(
            'SELECT last, info, state FROM log WHERE "table" = ? AND first > ? ORDER BY first',
            (table_id, row[6]),
        ).fetchall()
    finally:
        conn.close()
    return row, rows


# One commit: (events, changed actors, removed, put back, setting, undo/redo step,
# encounter, a waiting request). Each a choice the model below turns into a Commit.
commit_shapes = st.tuples(
    st.integers(0, 2),  # events (0: a commit without events: a setting changed)
    st.lists(st.tuples(st.sampled_from(IDS), st.integers(0, 9)), max_size=3),
    st.lists(st.sampled_from(IDS), max_size=2, unique=True),  # removed
    st.booleans(),  # an actor removed before put back where it stood (an ``order``)
    st.integers(0, 3),  # the table's name's number
    st.sampled_from(("none", "push", "undo", "redo")),
    st.sampled_from(("keep", "start", "next", "end")),
    st.booleans(),  # a request waits
)
groups = st.lists(
    st.lists(st.tuples(st.sampled_from(TABLES), commit_shapes), min_size=1, max_size=6),
    min_size=1,
    max_size=40,
)


class Model:
    """A table as the commits leave it: what the next commit starts from."""

    def __init__(self, table_id: str) -> None:
        self.info = TableInfo(table_id, "Table 0", "tally", "1.2.0", {"n": 0}, 1, 0)
        self.actors: dict[str, ActorRecord] = {}
        self.removed: dict[str, tuple[int, ActorRecord]] = {}  # where it stood
        self.meta: dict[str, Any] = {
            "encounter": None, "pending": {}, "undo": [], "redo": [], "dice": None,
        }  # fmt: skip

    def commit(self, shape) -> Commit:
        events, changed, removed, put_back, name, step, encounter, waits = shape
        table_id = self.info.id
        seq = self.info.seq
        made = [Event(table_id, 1, seq + n, "roll", data={"total": seq + n})
                for n in range(1, events + 1)]  # fmt: skip
        if not events:  # a setting changed
            self.info.settings = {"n": self.info.settings["n"] + 1}
        self.info.name = f"Table {name}"
        self.info.seq = seq + events
        records = []
        for actor_id, hp in changed:
            record = ActorRecord(actor_id, actor_id.upper(), {"hp": hp, "seq": seq},
                                 {"damage": hp % 3}, ["p1"] if hp % 2 else [])  # fmt: skip
            records.append(record)
            self.actors[actor_id] = record
            self.removed.pop(actor_id, None)
        gone = [a for a in removed if a in self.actors or a in {r.id for r in records}]
        for actor_id in gone:
            self.removed[actor_id] = (list(self.actors).index(actor_id), self.actors[actor_id])
            del self.actors[actor_id]
        order = None
        if put_back and self.removed and not gone:  # a removal undone
            actor_id = sorted(self.removed)[0]
            place, record = self.removed.pop(actor_id)
            ids = list(self.actors)
            ids.insert(min(place, len(ids)), actor_id)
            self.actors[actor_id] = record
            self.actors = {a: self.actors[a] for a in ids}
            records.append(record)
            order = ids
        meta = dict(self.meta)
        if step == "push" and made:
            meta["undo"] = [*meta["undo"], made[-1].seq][-5:]
            meta["redo"] = []
        elif step == "undo" and meta["undo"]:
            meta["redo"] = [*meta["redo"], meta["undo"][-1]]
            meta["undo"] = meta["undo"][:-1]
        elif step == "redo" and meta["redo"]:
            meta["undo"] = [*meta["undo"], meta["redo"][-1]]
            meta["redo"] = meta["redo"][:-1]
        if encounter == "start" and self.actors:
            meta["encounter"] = {"order": list(self.actors), "round": 1, "turn": 0}
        elif encounter == "next" and meta["encounter"]:
            now = meta["encounter"]
            turn = (now["turn"] + 1) % len(now["order"])
            meta["encounter"] = {**now, "turn": turn, "round": now["round"] + (turn == 0)}
        elif encounter == "end":
            meta["encounter"] = None
        meta["pending"] = {f"r{seq}": {"kind": "roll", "from": "p1"}} if waits else {}
        self.meta = meta
        replies = {f"k{table_id}-{seq}-{events}": {"seq": self.info.seq}}
        info = TableInfo(table_id, self.info.name, "tally", "1.2.0", dict(self.info.settings),
                         1, self.info.seq)  # fmt: skip
        return Commit(made, records, gone, info, {**meta}, replies, order=order)


def read(store, table_id: str):
    snapshot, _ = store.load(table_id)
    return list(snapshot.actors), snapshot.actors, snapshot.info, snapshot.meta()


@pytest.mark.parametrize("every", [3, 7, 128])
@seed(20261207)
@settings(
    max_examples=40,
    phases=(Phase.explicit, Phase.generate),  # a failing log is shown as found: shrinking
    suppress_health_check=[HealthCheck.function_scoped_fixture],  # one takes minutes
)
@given(log=groups)
def test_the_fold_reads_every_log_as_before(tmp_path_factory, monkeypatch, every, log):
    monkeypatch.setattr(sqlite_module, "SNAPSHOT_EVERY", every)
    path = tmp_path_factory.mktemp("fold") / "t.db"
    sqlite_store, memory_store = SQLiteStore(path), MemoryStore()
    models = {t: Model(t) for t in TABLES}
    try:
        for table_id in TABLES:
            for store in (sqlite_store, memory_store):
                store.create_table(models[table_id].info, [])
            for _ in range(every - 5 if every > 100 else 0):  # near the store's snapshot
                warm = models[table_id].commit((1, [("a0", 1)], [], False, 0, "push", "keep", 0))
                for store in (sqlite_store, memory_store):
                    store.commit(table_id, warm)
        for group in log:
            items = [(t, models[t].commit(shape)) for t, shape in group]
            sqlite_store.commit_many(items)
            for item in items:
                memory_store.commit(*item)
            for table_id in dict.fromkeys(t for t, _ in group):
                assert read(sqlite_store, table_id) == read(memory_store, table_id)
                row, rows = stored_rows(path, table_id)
                new, old = _fold(row, rows), fold_before(row, rows)
                assert (new, list(new[1])) == (old, list(old[1]))
    finally:
        sqlite_store.close()
    with SQLiteStore(path) as reopened:
        for table_id in TABLES:
            assert read(reopened, table_id) == read(memory_store, table_id)
