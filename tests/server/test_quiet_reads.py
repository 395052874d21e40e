"""A read of a log full of large events does not make the garbage collector stop
the whole server (hostile27): decoding it makes millions of objects on a reader
thread, and each automatic full pass the collector ran meanwhile walked all of them
holding the interpreter's lock, so every table's clients waited — a player at the
other table measured 1.5 s round trips and a sixth of its rolls while one player
asked ``state`` at an early seq of a table of 870 rolls of ~128 KiB.

Counted, not timed: the collector's full (generation 2) passes while the request is
out. The server runs in this process with its collector managed, as ``rollbridge
serve`` runs it, on a real SQLite file and a real port."""

from __future__ import annotations

import asyncio
import gc
import sys
from collections.abc import Iterator
from itertools import pairwise
from typing import Any

import pytest

from rollbridge.protocol.effects import Compute
from rollbridge.server import app as app_module
from rollbridge.server import let_go as let_go_module
from rollbridge.server.collector import CollectorManager
from rollbridge.server.limits import Limits

#: A roll whose event is about 128 KiB (the largest ``--max-event-size`` lets in):
#: 2,997 dice, each with a result of up to seven digits.
BIG = "999d1000000+999d1000000+999d1000000"
ROLLS = 60


@pytest.fixture
def full_passes() -> Iterator[list[int]]:
    """The generation of each collection begun while the list is being filled
    (the test clears it before the request it counts)."""
    seen: list[int] = []

    def note(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            seen.append(info["generation"])

    gc.callbacks.append(note)
    yield seen
    gc.callbacks.remove(note)
    gc.unfreeze()


async def _filled(make_tables: Any) -> tuple[Any, Any]:
    world = await make_tables(manage_gc=True)
    player, _ = await world.join("sr2", "player")
    for n in range(ROLLS):
        done = await player.request({"type": "roll", "id": f"b{n}", "formula": BIG}, timeout=60)
        assert done["status"] == "done", done
    return world, player


@pytest.mark.parametrize(
    "request_",
    [{"type": "state", "at": 2}, {"type": "stats"}],
    ids=["state-at", "stats"],
)
async def test_reading_a_log_of_large_events_runs_no_full_collection(
    make_tables: Any, full_passes: list[int], request_: dict[str, Any]
) -> None:
    world, player = await _filled(make_tables)
    observer, _ = await world.join("sr2", "observer")
    full_passes.clear()
    answer = await observer.request({**request_, "id": "read"}, timeout=120)
    # answered: the table, or statistics too large for a reply (each roll's own
    # total of thousands of dice), which are counted all the same
    assert answer["type"] == "result" or answer["code"] == "limit_exceeded", answer
    # the manager's own full pass may come once, on the loop, after the read (the
    # heap grew); before, the automatic ones came one after another during it
    assert full_passes.count(2) <= 1, full_passes.count(2)
    # and the table still answers: the read left the server as it was
    assert (await player.request({"type": "roll", "id": "after", "formula": "1d6"}))["seq"]


async def test_a_read_s_events_are_freed_a_few_at_a_time_after_its_reply(
    make_tables: Any, full_passes: list[int]
) -> None:
    """Freed at once when the reply was made, the 60 events' objects held the event
    loop for as long as that took; now a few go each turn of it (``stats`` lets its
    events go so too once its counting came back, but the views it counted are
    freed at once on the reader thread: rollbridge.stats, not changed here).
    Counted, not timed: the interpreter's allocated blocks at each turn of the loop,
    from the request to a few hundred turns after its answer — the most one turn
    freed is a small part of what the read's end freed in all."""
    world, player = await _filled(make_tables)
    epoch = (await player.request({"type": "state"}))["table"]["epoch"]
    blocks: list[int] = []
    answered = asyncio.Event()

    async def sample() -> None:
        after = 0
        while after < 500:
            blocks.append(sys.getallocatedblocks())
            after += answered.is_set()
            await asyncio.sleep(0)

    sampling = asyncio.create_task(sample())
    # a resume's missed events, read whole (``state`` at a seq reads their changes
    # alone since hostile28: a few blocks each)
    _, answer = await world.join("sr2", "observer", resume={"epoch": epoch, "seq": 2})
    answered.set()
    await sampling
    # read whole, then too far behind to be sent: a snapshot (the reads are the same)
    assert answer["type"] == "welcome" and "resume" in answer, answer
    peak = blocks.index(max(blocks))
    later = blocks[peak:]
    freed = later[0] - min(later)
    most = max(before - after for before, after in pairwise(later))
    # a roll of 2,997 dice is tens of thousands of blocks: the 60 were freed, and
    # never more than a small part of them in one turn (before: all in one)
    assert freed > 500_000, freed
    assert most < freed / 4, (most, freed)


async def test_a_read_s_time_on_the_reader_thread_is_charged_to_the_rates(
    make_tables: Any,
) -> None:
    """Only the event loop's CPU time was charged: a ``state`` at an early seq of a
    log of large events took the reader thread's for its decoding (every table's
    clients sharing the interpreter with it) and cost one request, so a player could
    ask for one after another for as long as it liked. Now the read's time is
    charged to the asker's connection and to the table, as the loop's is: the next
    request of that connection, and another client's at the table, wait."""
    world, _ = await _filled(make_tables)
    world.options["limits"] = Limits(  # type: ignore[attr-defined]
        rate_per_connection=3, rate_per_table=3, per_token=None, per_address=None
    )  # a burst of 6: a stats (5) is let through
    await make_tables.restart(world)
    observer, _ = await world.join("sr2", "observer")
    player, _ = await world.join("sr2", "player")
    # stats: the log read whole and counted (``state`` at a seq reads the events'
    # changes alone since hostile28: too little to be over the rate)
    answer = await observer.request({"type": "stats", "id": "read"}, timeout=120)
    assert answer["type"] == "result" or answer["code"] == "limit_exceeded", answer
    again = await observer.request({"type": "state", "id": "again"})
    assert again.get("code") == "rate_limited", again
    assert again["details"]["scope"] == "connection"
    other = await player.request({"type": "roll", "id": "other", "formula": "1d6"})
    assert other.get("code") == "rate_limited", other
    assert other["details"]["scope"] == "table"


def test_reads_overlapping_without_end_hold_the_collector_off_for_a_bounded_time() -> None:
    """Two reader threads whose reads overlap keep :meth:`quiet` entered without a
    gap: the manager's steps (its full passes, what checks the heap's growth) then
    waited for good, and automatic collection stayed off, the heap growing
    unchecked for as long as the reads went on. Now they wait ``max_quiet`` and
    ``max_overdue`` seconds of such reads at most (a seeded clock, no sleeping)."""
    now = [0.0]
    manager = CollectorManager(max_age=5.0, max_quiet=30.0, clock=lambda: now[0])
    was = gc.isenabled()
    try:
        first = manager.quiet()
        first.__enter__()  # one reader thread's read
        now[0] = 10.0
        manager.tick()
        assert manager.full_passes == 0  # held off: a read is running
        second = manager.quiet()
        second.__enter__()  # the other thread's, before the first ends
        first.__exit__(None, None, None)
        now[0] = 29.0
        manager.tick()
        assert manager.full_passes == 0
        assert not gc.isenabled()
        now[0] = 31.0  # 31 s of reads back to back: overdue, new reads refused
        manager.tick()
        assert manager.full_passes == 0 and manager.overdue
        now[0] = 61.0  # and 30 s more (hostile29): the pass the max_age asks runs
        manager.tick()
        assert manager.full_passes == 1
        second.__exit__(None, None, None)
        assert gc.isenabled() == was
    finally:
        gc.unfreeze()
        if was:
            gc.enable()


async def test_a_count_that_could_not_begin_holds_no_read_s_events(
    make_tables: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``stats`` reads the log, then counts it in a :class:`Compute` on a reader
    thread; its events were kept for that count to let go when it came back. A count
    that never began (refused at once: the server stopping, its reader threads shut
    down, or — as here — a bug in starting it) never came back, and the server held
    the read's events (~110 MB on a log of the largest) for as long as it lived."""
    world = await make_tables()
    player, _ = await world.join("sr2", "player")
    for n in range(3):
        done = await player.request({"type": "roll", "id": f"r{n}", "formula": "2d6"})
        assert done["status"] == "done", done
    loop = asyncio.get_running_loop()
    started = loop.run_in_executor

    def broken(executor: Any, func: Any, *args: Any) -> Any:
        if isinstance(args[0], Compute):
            raise RuntimeError("a bug in starting the count")
        return started(executor, func, *args)

    monkeypatch.setattr(loop, "run_in_executor", broken)
    answer = await player.request({"type": "stats", "id": "count"})
    assert answer.get("code") == "internal", answer  # answered, no traceback
    assert world.server._held == {}
    assert world.server._running == set()


async def test_resuming_again_and_again_on_new_connections_is_held_to_the_table_s_rate(
    make_tables: Any,
) -> None:
    """A ``hello`` is held to no request rate, and each connection has its own: a
    player who reconnected and resumed at seq 0 again and again made the server
    decode the whole log each time, its reader thread's time charged only to
    connections it closed at once — nothing ever refused it. Now a ``hello`` resuming
    anywhere but the latest seq is a request at the table's rate, which its read is
    charged to: the next such ``hello`` is refused (``rate_limited``, scope
    ``table``, closed 1013 to reconnect later) while the table is over it."""
    world = await make_tables()
    player, welcome = await world.join("sr2", "player")
    for n in range(10):
        done = await player.request({"type": "roll", "id": f"b{n}", "formula": BIG}, timeout=60)
        assert done["status"] == "done", done
    epoch = welcome["epoch"]
    world.options["limits"] = Limits(  # type: ignore[attr-defined]
        rate_per_connection=None, rate_per_table=1, per_token=None, per_address=None
    )
    await make_tables.restart(world)
    first, welcome = await world.join("sr2", "observer", resume={"epoch": epoch, "seq": 0})
    assert welcome["type"] == "welcome" and welcome["resume"]["recovered"], welcome
    await first.close()
    again, refused = await world.join("sr2", "observer", resume={"epoch": epoch, "seq": 0})
    assert refused.get("code") == "rate_limited", refused
    assert refused["details"]["scope"] == "table"
    assert refused["details"]["retry_after"] > 0
    await again.wait_for(lambda peer: peer.close_code is not None)
    assert again.close_code == 1013
    # a hello at the table's latest seq reads nothing, and is not held to it
    latest = welcome["seq"]
    _, plain = await world.join("sr2", "observer", resume={"epoch": epoch, "seq": latest})
    assert plain["type"] == "welcome", plain


@pytest.mark.parametrize(
    "request_",
    [{"type": "stats"}, {"type": "state", "at": 2}],
    ids=["stats", "state-at"],
)
async def test_no_full_pass_walks_a_read_s_events_while_they_are_let_go(
    make_tables: Any, monkeypatch: pytest.MonkeyPatch, request_: dict[str, Any]
) -> None:
    """A read's ``quiet`` ended on the reader thread, and its events were then freed
    a few a turn on the loop: the manager's first tick meanwhile saw a heap grown by
    all of them and ran its full pass over them — 3 to 11 s of the interpreter's lock
    during ``stats`` reads of a log of the largest events (2,972 ms over 18 M blocks
    in one DEBUG run; hostile28, found not fixed). Now a read holds the ticks off
    from its start until its last event is dropped.

    Counted, not timed: the manager ticks at every turn that drops some of a read's
    events (and at the first, right after the reply), with a heap that always counts
    as grown — no full pass; the tick after the last is dropped runs one."""
    world = await make_tables(manage_gc=True)
    player, _ = await world.join("sr2", "player")
    for n in range(40):  # ten turns of the loop to let them go (four a turn)
        done = await player.request({"type": "roll", "id": f"r{n}", "formula": "2d6"})
        assert done["status"] == "done", done
    manager = world.server.collector
    manager.growth = 0.0  # any heap counts as grown: each tick that steps is a full pass
    dropping = let_go_module.let_go
    steps: list[int] = []  # each tick's full passes, at a turn that dropped events

    gone = asyncio.Event()  # the last of the read's events dropped

    def ticking(loop: Any, items: list[Any], *args: Any, **kwargs: Any) -> None:
        before = manager.full_passes
        manager.tick()
        steps.append(manager.full_passes - before)
        dropping(loop, items, *args, **kwargs)
        if not items:
            gone.set()

    monkeypatch.setattr(let_go_module, "let_go", ticking)  # the turns after the first
    monkeypatch.setattr(app_module, "let_go", ticking)  # the first
    answer = await player.request({**request_, "id": "read"}, timeout=60)
    assert answer["type"] == "result", answer
    await asyncio.wait_for(gone.wait(), 60)  # a hang guard: ten turns of the loop
    assert len(steps) >= 10, steps  # the read's 40 events went over ten turns at least
    assert sum(steps) == 0, steps
    assert not manager.holding
    before = manager.full_passes
    manager.tick()  # and once they are gone the manager steps again
    assert manager.full_passes == before + 1
