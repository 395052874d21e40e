"""A read longer than the collector's bound does not buy a server-wide stall (hostile29).

Reads of the log hold the garbage collector's passes off while they decode; reads
back to back for ``MAX_QUIET`` (30 s) had the manager step all the same, and one
``stats`` of a log of the largest events running past 30 s on a loaded machine met
a full pass over its millions of objects, still alive: 5–6.5 s of the interpreter's
lock, every table's clients waiting. Now, past the bound, the manager is
``overdue``: the server begins no new read a client asks (``rate_limited``,
``"scope": "server"``), the reads out end, and the manager steps only after them
— or, for reads it does not refuse, ``MAX_OVERDUE`` seconds later. A ``hello``
resuming elsewhere than the latest seq, which reads the log too, is refused alike
(review of hostile29).

Counted, not timed: the manager's full passes, on a seeded clock (no sleeping); the
server runs in this process with its collector managed, on a real SQLite file and
a real port."""

from __future__ import annotations

import gc
from typing import Any

from rollbridge.server.collector import CollectorManager
from rollbridge.server.limits import Limits
from tests.server.conftest import make_tables  # noqa: F401  (a fixture)


def test_one_read_past_the_bound_meets_no_full_pass_until_it_ends() -> None:
    now = [0.0]
    manager = CollectorManager(growth=0.0, max_quiet=30.0, clock=lambda: now[0])
    was = gc.isenabled()
    try:
        read = manager.quiet()
        read.__enter__()  # one stats, decoding a log of the largest events
        release = manager.hold()
        now[0] = 29.0
        assert not manager.overdue
        now[0] = 31.0
        assert manager.overdue
        manager.tick()
        assert manager.full_passes == 0  # before: a pass over the read's objects
        now[0] = 59.0
        manager.tick()
        assert manager.full_passes == 0
        read.__exit__(None, None, None)
        release()
        assert not manager.overdue
        manager.tick()  # the read over: the heap's growth (growth=0: always) seen
        assert manager.full_passes == 1
    finally:
        gc.unfreeze()
        if was:
            gc.enable()


def test_reads_the_server_cannot_refuse_wait_max_overdue_more_at_most() -> None:
    now = [0.0]
    manager = CollectorManager(max_age=5.0, max_quiet=30.0, max_overdue=30.0,
                               clock=lambda: now[0])  # fmt: skip
    was = gc.isenabled()
    try:
        read = manager.quiet()
        read.__enter__()
        now[0] = 59.0
        manager.tick()
        assert manager.full_passes == 0
        now[0] = 61.0
        manager.tick()
        assert manager.full_passes == 1
        # stepped: the read counts afresh, new reads are let in for max_quiet again
        assert not manager.overdue
        now[0] = 92.0
        assert manager.overdue
        read.__exit__(None, None, None)
    finally:
        gc.unfreeze()
        if was:
            gc.enable()


async def _three_rolls(make_tables: Any) -> tuple[Any, list[float], Any, dict[str, Any]]:  # noqa: F811
    """A server managing its collector on a seeded clock (``now``, from 1000 s), and
    a player of sr2 who rolled three times: the world, the clock, the player and its
    welcome."""
    world = await make_tables(manage_gc=True)
    now = [1000.0]
    world.server.collector._clock = lambda: now[0]
    player, welcome = await world.join("sr2", "player")
    for n in range(3):
        done = await player.request({"type": "roll", "id": f"r{n}", "formula": "2d6"})
        assert done["status"] == "done", done
    return world, now, player, welcome


async def test_an_overdue_collector_has_new_reads_refused_until_the_reads_out_end(
    make_tables: Any,  # noqa: F811
) -> None:
    world, now, player, _ = await _three_rolls(make_tables)
    manager = world.server.collector
    passes = manager.full_passes
    long_read = manager.quiet()
    long_read.__enter__()  # a read out for 31 s on another table's behalf
    try:
        now[0] += 31.0
        for asked in ({"type": "stats"}, {"type": "state", "at": 1}):
            refused = await player.request(asked)
            assert refused.get("code") == "rate_limited", refused
            assert refused["details"]["scope"] == "server", refused
            assert "without a pause" in refused["message"]
        rolled = await player.request({"type": "roll", "formula": "1d6"})
        assert rolled["status"] == "done", rolled  # a change reads no log
        manager.tick()
        assert manager.full_passes == passes
    finally:
        long_read.__exit__(None, None, None)
    answered = await player.request({"type": "stats"})
    assert answered["type"] == "result" and answered["stats"]["session"]["rolls"] == 4


async def test_an_overdue_collector_has_resumes_that_read_refused_too(
    make_tables: Any,  # noqa: F811
) -> None:
    """A ``hello`` resuming anywhere but the table's latest seq reads the log too, on
    a reader thread, holding the collector off (its missed events): let in while the
    manager was overdue, such resumes from a few tables, one after another within
    each table's rate, kept the reads out going and so had every other table's
    ``state`` and ``stats`` refused for ``MAX_OVERDUE`` (30 s) of every minute
    (review of hostile29). They are refused as a ``state`` at a seq is (``scope``
    ``server``, closed 1013 to reconnect later), nothing read; once the reads out
    end, the resume is let in."""
    world, now, _, welcome = await _three_rolls(make_tables)
    manager = world.server.collector
    epoch = welcome["epoch"]
    long_read = manager.quiet()
    long_read.__enter__()  # reads out back to back for 31 s
    try:
        now[0] += 31.0
        again, refused = await world.join("sr2", "observer", resume={"epoch": epoch, "seq": 0})
        # before: welcomed, its read of the log begun while every stats was refused
        assert refused.get("code") == "rate_limited", refused
        assert refused["details"]["scope"] == "server", refused
        assert "without a pause" in refused["message"], refused
        await again.wait_for(lambda peer: peer.close_code is not None)
        assert again.close_code == 1013
        # a hello at the table's latest seq reads nothing: let in
        latest = {"epoch": epoch, "seq": welcome["seq"] + 3}
        _, plain = await world.join("sr2", "observer", resume=latest)
        assert plain["type"] == "welcome", plain
    finally:
        long_read.__exit__(None, None, None)
    _, resumed = await world.join("sr2", "observer", resume={"epoch": epoch, "seq": 0})
    assert resumed["type"] == "welcome" and resumed["resume"]["recovered"], resumed


async def test_an_overdue_collector_has_a_repeat_that_reads_the_log_refused_too(
    make_tables: Any,  # noqa: F811
) -> None:
    """A repeated request whose event left the table before its redaction last moved
    (here: the table loaded again, a restart) is answered from a read of the log
    from that event on, on a reader thread holding the collector off — a read a
    client begins, as ``state`` at a seq is, but the driver let it in whatever the
    table owed and while the manager was overdue: one player repeating an old
    request kept such reads going (review of hostile29). It is refused as ``state``
    at a seq is (``rate_limited``, ``scope`` ``server``), nothing read, and answered
    once the reads out end."""
    world, _, player, _ = await _three_rolls(make_tables)
    await player.close()
    await make_tables.restart(world)  # loaded again: every earlier event walks back
    manager = world.server.collector
    now = [1000.0]
    manager._clock = lambda: now[0]
    player, _ = await world.join("sr2", "player")
    again = {"type": "roll", "id": "r0", "formula": "2d6", "repeat": True}
    long_read = manager.quiet()
    long_read.__enter__()  # reads out back to back for 31 s
    try:
        now[0] += 31.0
        refused = await player.request(again)
        # before: answered, the log read from r0's event on while stats were refused
        assert refused.get("code") == "rate_limited", refused
        assert refused["details"]["scope"] == "server", refused
    finally:
        long_read.__exit__(None, None, None)
    answered = await player.request(again)
    assert answered["type"] == "result" and answered["status"] == "done", answered
    assert answered["event"]["kind"] == "roll", answered


async def test_a_repeat_that_reads_the_log_waits_for_the_table_s_read_debt(
    make_tables: Any,  # noqa: F811
) -> None:
    """The same repeat while its table owes an earlier read's time (a ``stats`` of
    seconds, charged at the table's rate): refused ``rate_limited``, ``scope``
    ``table``, as ``state`` at a seq is — before, let in whatever the table owed."""
    world, _, player, _ = await _three_rolls(make_tables)
    await player.close()
    world.options["limits"] = Limits(  # type: ignore[attr-defined]
        rate_per_connection=None, rate_per_table=1, per_token=None, per_address=None
    )
    await make_tables.restart(world)  # loaded again: every earlier event walks back
    player, _ = await world.join("sr2", "player")
    rolled = await player.request({"type": "roll", "formula": "1d6"})  # the table's rate
    assert rolled["status"] == "done", rolled
    world.server.tables.charge_read("sr2", 5.0)  # a read of 5 s of CPU just ended
    # the table's bucket refilled as seconds later (it owes one burst at most): the
    # read's debt, 1,000 requests at 1 a second, alone remains
    world.server.tables.buckets["sr2"].give_back(4.0)
    refused = await player.request({"type": "roll", "id": "r0", "formula": "2d6"})
    assert refused.get("code") == "rate_limited", refused
    assert refused["details"]["scope"] == "table", refused
