"""The collector manager: frozen objects skip automatic passes, cycles among
them are collected by the full pass that growth triggers, and stopping hands
everything back (the collector's state is global: each test restores it)."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator

import pytest

from rollbridge.server.collector import CollectorManager


class Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the collector can free it


@pytest.fixture(autouse=True)
def thawed() -> Iterator[None]:
    yield
    gc.unfreeze()


def cycle() -> weakref.ref:
    return weakref.ref(Node())


def test_a_frozen_cycle_waits_for_the_full_pass_growth_triggers() -> None:
    manager = CollectorManager(growth=1e9)  # the heap never grows enough
    gone = cycle()
    manager.tick()  # freezes: the cycle is in the permanent generation now
    assert gc.get_freeze_count() > 0
    gc.collect()
    assert gone() is not None  # an ordinary pass does not look at frozen objects
    manager.growth = 0  # now any frozen heap counts as grown
    manager.tick()
    assert gone() is None and manager.full_passes == 1
    assert manager.baseline > 0 and gc.get_freeze_count() > 0


def test_unfrozen_cycles_are_collected_as_usual() -> None:
    manager = CollectorManager(growth=1e9)
    manager.tick()
    gone = cycle()  # made after the freeze
    gc.collect()
    assert gone() is None


def test_stop_hands_every_object_back() -> None:
    async def run() -> CollectorManager:
        manager = CollectorManager(interval=0.01, growth=1e9)
        manager.start()  # a full pass, then a freeze every 10 ms
        assert manager.full_passes == 1
        await asyncio.sleep(0.05)
        assert gc.get_freeze_count() > 0
        gone = cycle()
        await asyncio.sleep(0.05)
        manager.stop()
        assert gc.get_freeze_count() == 0
        gc.collect()
        assert gone() is None
        return manager

    asyncio.run(run())


async def test_the_server_manages_the_collector_only_when_asked(make_tables) -> None:
    plain = await make_tables()
    assert plain.server.collector is None
    managed = await make_tables(manage_gc=True)
    assert managed.server.collector is not None and gc.get_freeze_count() > 0
    await managed.join("sr2", "gm")
    await managed.server.stop()
    assert gc.get_freeze_count() == 0


def test_a_full_pass_comes_when_the_last_one_is_old_whatever_the_heap(monkeypatch) -> None:
    manager = CollectorManager(growth=1e9, max_age=600)
    manager.tick()
    gone = cycle()
    manager.tick()  # frozen now
    assert gone() is not None and manager.full_passes == 0
    # as with PYTHONMALLOC=malloc, where the growth measure always reads 0
    monkeypatch.setattr("rollbridge.server.collector.sys.getallocatedblocks", lambda: 0)
    manager._last_full -= 601
    manager.tick()
    assert gone() is None and manager.full_passes == 1


def test_a_read_s_hold_waits_the_ticks_until_released_and_for_a_bounded_time() -> None:
    """A read's hold (:meth:`CollectorManager.hold`, from its start until its events
    are let go) keeps a grown heap's full pass off; released (twice: once counts),
    the next tick runs it; holds back to back wait ``max_quiet`` and ``max_overdue``
    seconds at most (a seeded clock, no sleeping)."""
    now = [0.0]
    manager = CollectorManager(growth=0.0, max_quiet=30.0, clock=lambda: now[0])
    release = manager.hold()
    manager.tick()
    assert manager.full_passes == 0 and manager.holding
    other = manager.hold()
    release()
    release()  # a second call takes nothing more off: the other hold still counts
    now[0] = 29.0
    manager.tick()
    assert manager.full_passes == 0 and manager.holding
    now[0] = 31.0  # 31 s of holds back to back: overdue, new reads refused (hostile29)
    manager.tick()
    assert manager.full_passes == 0 and manager.overdue
    now[0] = 61.0  # and 30 s more: the manager steps all the same
    manager.tick()
    assert manager.full_passes == 1
    other()
    assert not manager.holding
    manager.tick()
    assert manager.full_passes == 2
