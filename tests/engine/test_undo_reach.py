"""Undo reaches as far back as the store's retained log, running or loaded again
(docs/engine.md, "Undo and redo"): a table must not offer an undo its reload
cannot, nor the other way round."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from rollbridge.dice.sources import SeededDice
from rollbridge.engine.table import Table
from rollbridge.exceptions import NothingToRedo, NothingToUndo
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stores.memory import MemoryStore
from rollbridge.stores.sqlite import SQLiteStore
from rollbridge.testing import GM

HOST = PluginHost()
RETAIN = 3


def _service(path: Path, retain: int = RETAIN) -> TableService:
    return TableService(
        SQLiteStore(path, retain=retain), HOST, dice=lambda: SeededDice("reach"), clock=None
    )


def _undo_offered(service: TableService) -> tuple[bool, bool]:
    view = service.table("t").view(gm=True)
    return view["can_undo"], view["can_redo"]


@pytest.mark.parametrize("rolls", [RETAIN - 1, RETAIN])
def test_undo_offered_running_is_undo_offered_loaded_again(tmp_path: Path, rolls: int) -> None:
    path = tmp_path / "t.db"
    running = _service(path)
    running.create_table("t", "sr2", table_id="t")
    sheet = next(iter(HOST.rulesets["sr2"].example_sheets.values()))
    running.handle(
        "t", {"type": "actor.create", "id": "c", "actor": {"name": "A", "sheet": sheet}}, GM
    )
    for n in range(rolls):  # not undoable: they push the creation back in the log
        running.handle("t", {"type": "roll", "id": f"r{n}", "formula": "1d6"}, GM)
    loaded = _service(path)
    # the creation is within the last RETAIN seqs after RETAIN - 1 rolls, not after RETAIN
    assert _undo_offered(running) == _undo_offered(loaded) == (rolls < RETAIN, False)
    for service in (running, loaded):
        if rolls < RETAIN:
            reply = service.handle("t", {"type": "undo", "id": f"u{id(service)}"}, GM)
            assert reply["event"]["data"]["undoes"] == 1
            assert service.table("t").actors == {}
            break  # the other shares the file: it has been undone there
        with pytest.raises(NothingToUndo):
            service.handle("t", {"type": "undo", "id": "u"}, GM)


def _undone_twice(service: TableService) -> None:
    """Actors a (seq 1) and b (seq 2) created, both undone (3, 4): the redo stack is
    [2, 1], its top 1 (the latest undone)."""
    sheet = next(iter(HOST.rulesets["sr2"].example_sheets.values()))
    service.create_table("t", "sr2", table_id="t")
    for actor_id in ("a", "b"):
        actor = {"id": actor_id, "name": actor_id.upper(), "sheet": sheet}
        service.handle("t", {"type": "actor.create", "id": actor_id, "actor": actor}, GM)
    for n in range(2):
        service.handle("t", {"type": "undo", "id": f"u{n}"}, GM)


def _rolled_twice(service: TableService) -> None:
    """Seqs 5 and 6: with a retained log of 5 events, seq 1 (not 2) is out of reach."""
    for n in range(2):
        service.handle("t", {"type": "roll", "id": f"r{n}", "formula": "1d6"}, GM)


@pytest.mark.parametrize("loaded", [False, True])
def test_a_redo_never_reapplies_another_change_than_the_latest_undone(
    tmp_path: Path, loaded: bool
) -> None:
    """Review of baf80d6: redo is sequential (its stack's top is the latest undone,
    the lowest seq), so dropping that top when it leaves the log made the next redo
    re-apply the change undone before it instead (b's creation, not a's) — not the
    one a client offers Redo on (docs/foundry.md: "a press never undoes another
    change"). Either the latest undone is redone, or nothing is. (``loaded``: the
    same after a restart; that variant fails on the code before baf80d6 too.)"""
    path = tmp_path / "t.db"
    service = _service(path, retain=5)
    _undone_twice(service)
    _rolled_twice(service)
    if loaded:
        service = _service(path, retain=5)
    try:
        reply = service.handle("t", {"type": "redo", "id": "redo"}, GM)
    except NothingToRedo:
        return
    assert reply["event"]["data"]["redoes"] == 1, "redid b's creation, undone before a's"


def test_a_follower_applies_a_redo_its_owner_made_after_dropping_old_entries() -> None:
    """Review of baf80d6: the owner drops the redo stack's top (seq 1) once it is out
    of the retained log's reach, then redoes; a follower that held the stacks from
    before (a cluster's other process) applies the log in one go and must fit it
    (``Table.follow``), as a load finds the table — not refuse it (``Unfit``: the
    cluster then reads the whole table)."""
    store = MemoryStore(retain=5)
    service = TableService(store, HOST, dice=lambda: SeededDice("reach"), clock=None)
    _undone_twice(service)
    snapshot, history = store.load("t")
    follower = Table(snapshot, HOST.rulesets["sr2"], history)
    assert follower.redo_stack == [2, 1]
    _rolled_twice(service)
    with contextlib.suppress(NothingToRedo):  # (or nothing left to redo)
        service.handle("t", {"type": "redo", "id": "redo"}, GM)
    tail = store.follow_log("t", follower.info.seq)
    follower.follow(tail.events, kept_from=tail.kept_from)  # Unfit: a redo of 2 on top 1
    snapshot, history = store.load("t")
    loaded = Table(snapshot, HOST.rulesets["sr2"], history)  # what a load finds
    assert (follower.undo_stack, follower.redo_stack) == (loaded.undo_stack, loaded.redo_stack)
