"""``Table.follow``: a table applies stored events another table executed, and is
then the table a load builds; an event that does not continue it changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from rollbridge.engine.follow import Unfit, continues
from rollbridge.engine.table import UNDO_DEPTH, Table
from rollbridge.offline import TableService
from tests.conftest import GM
from tests.server.cluster_driver import assert_same


def loaded(service: TableService) -> Table:
    snapshot, history = service.store.load("t")
    return Table(snapshot, service.table("t").ruleset, history)


def catch_up(service: TableService, table: Table) -> None:
    """Apply what was stored after ``table``'s seq to it."""
    tail = service.store.follow_log("t", table.info.seq)
    assert continues(tail.events, epoch=tail.epoch, after=table.info.seq, latest=tail.seq)
    table.follow(tail.events, kept_from=tail.kept_from)


def adjust(n: int, actor: str = "guard", delta: int = 1) -> dict[str, Any]:
    return {"type": "adjust", "id": f"a{n}", "actor": actor, "track": "damage", "delta": delta}


def test_the_undo_stack_keeps_its_depth_as_the_owner_s_does(seated):
    """Past ``UNDO_DEPTH`` undoable events the owner's undo stack drops its oldest
    entries, commit by commit; a follower applying them in batches (undos among them)
    drops the same ones."""
    follower = loaded(seated)
    for n in range(UNDO_DEPTH + 30):
        seated.handle("t", adjust(n, delta=1 if n % 2 else -1), GM)
        if n % 9 == 8:
            seated.handle("t", {"type": "undo", "id": f"u{n}"}, GM)
        if n % 9 == 4:
            seated.handle("t", {"type": "undo", "id": f"v{n}"}, GM)
            seated.handle("t", {"type": "redo", "id": f"r{n}"}, GM)
        if n % 5 == 0:
            catch_up(seated, follower)
            assert_same(follower, loaded(seated))
    catch_up(seated, follower)
    assert len(follower.undo_stack) == UNDO_DEPTH
    assert_same(follower, loaded(seated))


def state(table: Table) -> tuple[Any, ...]:
    """A copy of everything a table holds."""
    actors = [r.to_dict() for r in table.actors.values()]
    return table.info.to_dict(), actors, table.meta(), table.recent_history()


def test_an_event_that_does_not_continue_the_table_changes_nothing(seated):
    follower = loaded(seated)
    seated.handle("t", adjust(0), GM)
    catch_up(seated, follower)
    seated.handle("t", {"type": "undo", "id": "u0"}, GM)  # the adjustment
    seated.handle("t", {"type": "undo", "id": "u1"}, GM)  # the guard's creation
    events = seated.store.events_after("t", follower.info.seq)
    stack = follower.undo_stack
    follower.undo_stack = [*stack[:-2], stack[-1]]  # as if it had missed the creation
    before = state(follower)
    with pytest.raises(Unfit):  # the second event without the first
        follower.follow(events[1:], kept_from=0)
    with pytest.raises(Unfit):  # the second undo finds another entry on top
        follower.follow(events, kept_from=0)
    other = events[0].__class__.from_dict({**events[0].to_dict(), "kind": "later.kind"})
    with pytest.raises(Unfit):  # a kind it does not know
        follower.follow([other, events[1]], kept_from=0)
    assert state(follower) == before  # nothing applied, not even the first undo
    follower.undo_stack = stack
    follower.follow(events, kept_from=0)
    assert_same(follower, loaded(seated))
