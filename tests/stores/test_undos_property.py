"""``undos_after`` answers as the full read of the log did, on seeded random logs
(docs/protocol.md, ``state``'s ``undone``): every store (memory, SQLite, Redis) takes
random commits of rolls, undos and redos (players' texts naming ``undo`` and ``redo``
among them, GM-only ones too) and what else rewrites or reopens a log — a restart, the
retained log pruned (a small ``retain``), SQLite a restore of an older backup (its
seqs then reused in a new epoch), Redis a commit by a process of the version before
(which keeps no undos set), a fence (a new epoch), Redis restored from an older copy
of a table and fenced, a table deleted by a process of the version before (which
leaves the undos set) and moved in again with the same id; and, after each, the
undos and redos after every seq, and what ``undone_states`` says of every seq, are
those the read before (``ReadUndos`` of ``00a03c90^1``: every retained event after
the seq, decoded and sifted) found."""

from __future__ import annotations

import random
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from rollbridge.engine.history import UNDO_KINDS, undone_states
from rollbridge.engine.model import Commit, Event
from rollbridge.protocol.table import _RETAINED_TRIES
from rollbridge.stores.backup import backup
from rollbridge.stores.migrate import dump_table
from tests.stores import test_store_contract as contract
from tests.stores.redis_commit_before import commit_before
from tests.stores.test_store_contract import make_info, meta

#: The contract suite's fixture: each test on MemoryStore, SQLiteStore and RedisStore.
kit = contract.kit

#: Seeds of the random logs (each a few hundred commits).
SEEDS = range(4)

#: Players' texts that hold the words the Redis read sifts an event's bytes by.
NAMES = ("undo", "redo", "Undo", "¤undo", "undone", "a redo", "Grim")


def read_before(store: Any, table_id: str, latest: int, since: int) -> list[Event] | None:
    """``state``'s ``undone`` read before the stores kept the undos apart (``ReadUndos.run``
    of ``00a03c90^1``, verbatim): every retained event after the lowest seq asked,
    sifted."""
    retain = max(0, store.retain)
    for _ in range(_RETAINED_TRIES):
        start = max(0, latest - retain, since)
        events = store.events_after(table_id, start)
        if events is not None:
            return [e for e in events if e.kind in UNDO_KINDS]
        retain //= 2
    return None


def _head(store: Any, table_id: str = "t") -> tuple[int, int]:
    info = next(i for i in store.tables() if i.id == table_id)
    return info.epoch, info.seq


def random_commit(rng: random.Random, store: Any, table_id: str = "t") -> Commit:
    """A commit of one to three events continuing the log: rolls whose texts may name
    undo or redo, undos and redos of earlier seqs (of any epoch), some GM-only."""
    info = next(i for i in store.tables() if i.id == table_id)
    events = []
    for n in range(1, rng.choice((1, 1, 1, 2, 3)) + 1):
        seq = info.seq + n
        kind = rng.choice(("roll", "roll", "undo", "redo", "adjusted"))
        if kind in UNDO_KINDS:
            key = "undoes" if kind == "undo" else "redoes"
            data: dict[str, Any] = {key: rng.randint(1, seq - 1) if seq > 1 else 1}
        else:
            data = {"name": rng.choice(NAMES), "total": rng.randint(1, 12),
                    "note": rng.choice(NAMES) * rng.randint(0, 3)}  # fmt: skip
        events.append(Event(table_id, info.epoch, seq, kind, data=data, gm_only=rng.random() < 0.2,
                            request=rng.choice(NAMES) + str(seq)))  # fmt: skip
    info.seq += len(events)
    return Commit(events, [], [], info, meta())


def check(store: Any, table_id: str = "t") -> None:
    """The undos after each seq, and the states of every seq, as the read before."""
    _, latest = _head(store, table_id)
    retain = max(0, store.retain)
    for since in {0, *range(max(0, latest - retain - 2), latest + 2)}:
        now = store.undos_after(table_id, since)
        before = read_before(store, table_id, latest, since)
        assert before is not None
        assert [e.to_dict() for e in now] == [e.to_dict() for e in before], since
    asked = list(range(1, latest + 1))
    for gm in (True, False):
        now_states = undone_states(store.undos_after(table_id, 0), asked, gm=gm)
        before_states = undone_states(read_before(store, table_id, latest, 0), asked, gm=gm)
        assert now_states == before_states


class _SQLiteRestores:
    """A SQLite file's backups, and the restore of an older one (served: moved to a
    new epoch, its seqs used again)."""

    def __init__(self, kit: Any, folder: Path) -> None:
        self.kit, self.folder, self.taken = kit, folder, []

    def take(self) -> None:
        dest = self.folder / f"b{len(self.taken)}.db"
        backup(self.kit.path, dest)
        self.taken.append(dest)

    def restore(self, rng: random.Random) -> Any:
        if not self.taken:
            return None
        self.kit.current.close()
        for end in ("", "-wal", "-shm"):
            Path(f"{self.kit.path}{end}").unlink(missing_ok=True)
        shutil.copyfile(rng.choice(self.taken), self.kit.path)
        store = self.kit.open(retain=self.kit.retain)
        assert store.finish_restore() is not None
        return store


class _RedisPast:
    """A table's keys as Redis held them once (``DUMP``), and Redis brought back to
    them (a restore of an older copy, a failover to a replica that lagged), then
    fenced to a new epoch as the next read that knows the later point does; or the
    table as ``migrate`` reads it, moved in again after a process of the version before
    deleted it (its delete knew no undos set)."""

    def __init__(self, store: Any) -> None:
        self.store, self.dumps = store, []

    def take(self) -> None:
        keys = self.store.keys.table("t").all()
        dumped = {k: self.store.client.dump(k) for k in keys}
        self.dumps.append((dump_table(self.store, "t"), dumped))

    def moved_in_again(self, rng: random.Random) -> bool:
        if not self.dumps:
            return False
        table, _ = rng.choice(self.dumps)
        kept = self.store.keys.table("t").undos  # the version before's delete: all but it
        for key in self.store.keys.table("t").all():
            if key != kept:
                self.store.client.delete(key)
        self.store.client.zrem(self.store.keys.glob("tables"), "t")
        self.store.import_table(table.snapshot, table.events, [], table.tokens)
        self.store.load("t")
        return True

    def restore(self, rng: random.Random) -> bool:
        if not self.dumps:
            return False
        known = _head(self.store)
        _, dumped = rng.choice(self.dumps)
        for key, blob in dumped.items():
            self.store.client.delete(key)
            if blob is not None:
                self.store.client.restore(key, 0, blob)
        self.store.load("t")  # read again: the next commit sends everything
        self.store.fence("t", *known)
        return True


#: What may happen to a log besides a commit, by store, with its odds at each step.
EVENTS = {
    "memory": {"restart": 0.03},
    "sqlite": {"restart": 0.03, "backup": 0.04, "restore": 0.02},
    "redis": {"restart": 0.03, "before": 0.06, "copy": 0.03, "restore": 0.02, "fence": 0.02,
              "moved_in": 0.015},
}  # fmt: skip


@pytest.mark.parametrize("seed", SEEDS)
def test_undos_after_answers_as_the_full_read_did_on_random_logs(kit, seed, tmp_path):
    rng = random.Random(seed)
    store = kit.open(retain=rng.choice((4, 9, 30)))
    store.create_table(make_info(), [])
    sqlite = _SQLiteRestores(kit, tmp_path) if kit.kind == "sqlite" else None
    redis = _RedisPast(store) if kit.kind == "redis" else None
    odds = EVENTS[kit.kind]
    happened: Counter[str] = Counter()
    for _step in range(260):
        roll, what = rng.random(), "commit"
        for name, chance in odds.items():
            if roll < chance:
                what = name
                break
            roll -= chance
        done = True
        if what == "restart":
            store = kit.reopen()
            if redis is not None:
                redis.store = store
        elif what == "backup":
            sqlite.take()
        elif what == "restore" and sqlite is not None:
            restored = sqlite.restore(rng)
            done = restored is not None
            store = restored or store
        elif what == "before":  # a process of the version before writes
            assert commit_before(store, "t", random_commit(rng, store))[0] == 1
        elif what == "copy":
            redis.take()
        elif what == "restore":
            done = redis.restore(rng)
        elif what == "fence":  # a failover: the seq committed next was lost
            epoch, seq = _head(store)
            assert store.fence("t", epoch, seq + 1).moved
        elif what == "moved_in":
            done = redis.moved_in_again(rng)
        else:
            store.commit("t", random_commit(rng, store))
        happened[what] += done
        check(store)
    assert all(happened[what] for what in ("commit", *odds)), happened  # each seed, every one
