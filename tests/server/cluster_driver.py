"""Carrying out a :class:`~rollbridge.server.cluster_table.ClusterTable`'s effects
synchronously on a store, as the cluster driver would: what the cluster's sans-I/O
tests (``tests/server/test_cluster_table.py``, ``tests/stores/test_redis_apply.py``)
drive a table with, what its members were sent, and whether a followed table is the
one a load builds."""

from __future__ import annotations

import json
from typing import Any

from rollbridge.engine.table import Table
from rollbridge.protocol.effects import Deliver, Effect, Persist, Read, Reply
from rollbridge.protocol.members import Member
from rollbridge.stores.base import Store

__all__ = ["Driver", "assert_same", "sent"]


class Driver:
    """Carries out a table's effects at once on the store; keeps what went out."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.out: list[Effect] = []

    def carry(self, effects: list[Effect]) -> list[Effect]:
        pending, done = list(effects), []
        while pending:
            effect = pending.pop(0)
            follow: list[Effect] = []
            if isinstance(effect, Read):
                follow = effect.resume(effect.run(self.store))
            elif isinstance(effect, Persist):
                self.store.commit(effect.table_id, effect.commit)
                follow = effect.resume(None)
            else:
                done.append(effect)
            pending[:0] = follow
        self.out += done
        return done


def sent(effects: list[Effect], member: Member) -> list[tuple[str, Any]]:
    """What ``member`` was sent, in order: ("event", seq) and ("result", id)."""
    out = []
    for effect in effects:
        frames = effect.frames if isinstance(effect, Deliver) else []
        if isinstance(effect, Reply) and effect.frame is not None:
            frames = [(None, effect.frame)]
        for to, frame in frames:
            if to is member or to is None:
                message = json.loads(frame)
                out.append(("event", message["seq"]) if message["type"] == "event"
                           else (message["type"], message.get("id")))  # fmt: skip
    return out


def assert_same(followed: Table, fresh: Table) -> None:
    """Two tables hold the same state: info, actors in order, encounter, pending,
    verifiable dice, undo and redo stacks; of the events in memory, the followed
    table holds some of the fresh one's (the others are read when an undo needs them)."""
    assert followed.info.to_dict() == fresh.info.to_dict()
    assert [r.to_dict() for r in followed.actors.values()] == [
        r.to_dict() for r in fresh.actors.values()
    ]
    assert followed.meta() == fresh.meta()
    assert followed.snapshot().meta() == fresh.snapshot().meta()
    assert followed.undo_stack == fresh.undo_stack
    assert followed.redo_stack == fresh.redo_stack
    held, expected = followed.recent_history(), fresh.recent_history()
    assert {s: b for s, b in expected.items() if s in held} == held
