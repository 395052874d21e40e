"""The shared wait of rollbridge.server.cluster_lease_wait on a real redis-server:
the forwards waiting on leases share one reader per process (an ``MGET`` of every
lease waited on), each still ends at its own end (the lease held again, its own time
up, or Redis failing), and a wait after a failed one reads again. (The served test:
tests/stores/test_cluster_lease_wait.py.)"""

from __future__ import annotations

import asyncio
import gc
import signal
import time
from typing import Any

import pytest
import redis
import redis.asyncio as aioredis

from rollbridge.server.cluster_lease_wait import BATCH, LeaseWaits


def _waiting(
    waits: LeaseWaits, count: int, table: str = "t", seconds: float = 30
) -> list[asyncio.Task[bytes | None]]:
    """``count`` forwards waiting on table ``table``'s lease (key ``owner:TABLE``)."""
    until = time.monotonic() + seconds
    return [asyncio.create_task(waits.held(table, f"owner:{table}", until)) for _ in range(count)]


def _on_redis(redis_factory: Any, play: Any, ended: Any = lambda: False) -> None:
    """Run ``play(server, client, waits)``: a redis-server of the test's own, an
    asyncio client of it (closed after) and the waits of one process reading it."""
    server = redis_factory()

    async def run() -> None:
        client = aioredis.Redis.from_url(server.url, socket_connect_timeout=1)
        try:
            await play(server, client, LeaseWaits(lambda keys: client.mget(keys), ended))
        finally:
            await client.aclose()

    asyncio.run(run())


async def _calls(client: aioredis.Redis, command: str = "mget") -> int:
    stats = await client.info("commandstats")
    return int(stats.get(f"cmdstat_{command}", {}).get("calls", 0))


def test_waiters_share_one_reader_and_each_ends_at_its_own_time(redis_factory: Any):
    async def play(server: Any, client: aioredis.Redis, waits: LeaseWaits) -> None:
        ended: list[str] = []

        async def wait(name: str, seconds: float) -> bytes | None:
            got = await waits.held("t", "owner:t", time.monotonic() + seconds)
            ended.append(name)
            return got

        await client.config_resetstat()
        tasks = [asyncio.create_task(wait(n, s)) for n, s in (("short", 0.3), ("long", 1.0))]
        tasks += [asyncio.create_task(wait(f"w{n}", 1.0)) for n in range(6)]
        await asyncio.sleep(0)
        assert waits.waiting("t") == 8
        assert await asyncio.gather(*tasks) == [None] * 8  # nobody took the lease
        assert ended[0] == "short"  # its own end, before the others'
        assert waits.waiting("t") == 0
        # one reader: a second's reads at 0.05 s (20), not 8 readers' (some 150)
        assert await _calls(client) <= 2 * 20 + 2 and await _calls(client, "get") == 0

    _on_redis(redis_factory, play)


def test_the_lease_held_again_ends_every_wait_with_its_holder(redis_factory: Any):
    async def play(server: Any, client: aioredis.Redis, waits: LeaseWaits) -> None:
        tasks = _waiting(waits, 4)
        await asyncio.sleep(0.2)
        await client.set("owner:t", "node-a")  # the owner's renewal took it again
        assert await asyncio.gather(*tasks) == [b"node-a"] * 4

    _on_redis(redis_factory, play)


def test_a_process_stopping_ends_the_wait(redis_factory: Any):
    stopping = [False]

    async def play(server: Any, client: aioredis.Redis, waits: LeaseWaits) -> None:
        (task,) = _waiting(waits, 1)
        await asyncio.sleep(0.2)
        stopping[0] = True
        assert await task is None

    _on_redis(redis_factory, play, lambda: stopping[0])


def test_redis_failing_is_told_to_every_waiter_and_the_next_wait_reads_again(
    redis_factory: Any,
):
    async def play(server: Any, client: aioredis.Redis, waits: LeaseWaits) -> None:
        tasks = _waiting(waits, 3) + _waiting(waits, 2, "u")
        await asyncio.sleep(0.2)
        server.kill()
        results = await asyncio.gather(*tasks, return_exceptions=True)
        assert all(isinstance(r, redis.ConnectionError | OSError) for r in results), results
        assert waits.waiting("t") == waits.waiting("u") == 0
        server.start()
        await client.set("owner:t", "node-a")
        assert await _waiting(waits, 1)[0] == b"node-a"  # a new reader

    _on_redis(redis_factory, play)


@pytest.mark.parametrize("waiters", [1, 5])
def test_a_waiter_cancelled_leaves_the_others_waiting(redis_factory: Any, waiters: int):
    """A forward cancelled while it waits (its client left, a stop) takes its place
    away; the reader goes on for the others, and stops with the last."""

    async def play(server: Any, client: aioredis.Redis, waits: LeaseWaits) -> None:
        tasks = _waiting(waits, waiters + 1)
        await asyncio.sleep(0.1)
        tasks[0].cancel()
        await asyncio.sleep(0.1)
        assert waits.waiting("t") == waiters
        await client.set("owner:t", "node-a")
        assert await asyncio.gather(*tasks[1:]) == [b"node-a"] * waiters
        assert tasks[0].cancelled()

    _on_redis(redis_factory, play)


def _others() -> set[asyncio.Task[Any]]:
    """The tasks of the loop other than the one asking."""
    return asyncio.all_tasks() - {asyncio.current_task()}  # type: ignore[operator]


@pytest.mark.parametrize("leaving", ["timeout", "cancelled"])
def test_the_last_waiter_leaving_leaves_no_task_behind_even_with_redis_paused(
    redis_factory: Any, leaving: str
):
    """Redis hangs (SIGSTOP) while the reader's MGET waits on it: the last waiter
    leaving — at its own end, or cancelled (its client gone) — ends the reader
    too, its MGET with it: no task is left reading, none pending at the loop's end."""

    async def play(server: Any, client: aioredis.Redis, waits: LeaseWaits) -> None:
        tasks = [
            asyncio.create_task(waits.held("t", "owner:t", time.monotonic() + s))
            for s in (0.4, 0.6)
        ]
        await asyncio.sleep(0.1)
        server.process.send_signal(signal.SIGSTOP)  # the reader's next MGET hangs
        try:
            await asyncio.sleep(0.2)
            if leaving == "cancelled":
                for task in tasks:
                    task.cancel()
            results = await asyncio.gather(*tasks, return_exceptions=True)
            if leaving == "timeout":
                assert results == [None, None]
            else:
                assert all(isinstance(r, asyncio.CancelledError) for r in results)
            await asyncio.sleep(0)  # the reader's cancellation runs
            await asyncio.sleep(0)
            assert not _others(), _others()
            assert waits.waiting("t") == 0 and not waits._waits
        finally:
            server.process.send_signal(signal.SIGCONT)

    _on_redis(redis_factory, play)


def _swallowing(client: aioredis.Redis, fail: bool = False) -> Any:
    """A read of the lease that swallows a cancellation once, as redis-py's does on
    Python 3.11 when it comes as its ``asyncio.wait_for`` finishes (seen: 300 tables
    waited on at once left some 50 readers reading every 0.05 s for as long as the
    process ran, their waiters long gone); ``fail``: then Redis fails under it."""

    swallowed: list[bool] = []

    async def read(keys: Any) -> Any:
        try:
            await asyncio.sleep(0.3)  # (a read long under way: the cancel lands here)
        except asyncio.CancelledError:
            if swallowed:
                raise
            swallowed.append(True)
            if fail:
                raise redis.ConnectionError("Connection closed by server.") from None
        return await client.mget(keys)

    return read


def test_a_reader_whose_cancel_is_swallowed_stops_when_nobody_waits(redis_factory: Any):
    """The last waiter gone, its reader stops at its next turn even when the cancel
    sent to it was lost on the way: no task reading the lease for ever."""

    async def play(server: Any, client: aioredis.Redis, waits: LeaseWaits) -> None:
        waits.read = _swallowing(client)
        assert await waits.held("t", "owner:t", time.monotonic() + 0.2) is None
        await asyncio.sleep(0.3)
        await client.config_resetstat()
        await asyncio.sleep(0.7)  # a reader going on reads twice meanwhile
        assert not _others(), _others()
        assert await _calls(client) == 0

    _on_redis(redis_factory, play)


def test_a_reader_failing_after_its_waiters_left_is_no_unobserved_exception(
    redis_factory: Any,
):
    """Redis fails under a reader whose waiters all left (its cancel lost on the
    way): its error is observed — nobody is left to tell, and the forwards' own reads
    meet Redis failing — never asyncio's "Task exception was never retrieved"."""

    async def play(server: Any, client: aioredis.Redis, waits: LeaseWaits) -> None:
        told: list[dict[str, Any]] = []
        asyncio.get_running_loop().set_exception_handler(lambda _loop, ctx: told.append(ctx))
        waits.read = _swallowing(client, fail=True)
        assert await waits.held("t", "owner:t", time.monotonic() + 0.2) is None
        await asyncio.sleep(0.3)
        assert not _others(), _others()
        gc.collect()
        await asyncio.sleep(0)
        assert told == [], told

    _on_redis(redis_factory, play)


#: Tables waited on at once in the count below (the last note's 300).
TABLES = 300


def test_many_tables_waited_on_are_read_by_one_batched_reader(redis_factory: Any):
    """300 tables waited on at once (two forwards each): one reader for the process,
    an MGET of at most BATCH keys every 0.05 s — counted by Redis itself (``INFO
    commandstats``) — and each waiter told its own table's holder once it is held
    again, or None at its own end. Before, each table had its own reader: 300 GETs
    every 0.05 s, sharing the pool with the leases' renewals."""

    async def play(server: Any, client: aioredis.Redis, waits: LeaseWaits) -> None:
        await client.config_resetstat()
        tasks = {n: _waiting(waits, 2, f"t{n}", seconds=1.0) for n in range(TABLES)}
        await asyncio.sleep(0.3)
        assert waits.reading
        # (each table its own reader, before: the client's pool ran out of
        # connections, MaxConnectionsError told to the waiters)
        ended = [t.exception() for waiting in tasks.values() for t in waiting if t.done()]
        assert sum(waits.waiting(f"t{n}") for n in range(TABLES)) == 600, ended[:3]
        held = range(0, TABLES, 3)  # a third taken again by their owners
        await client.mset({f"owner:t{n}": f"node-{n}" for n in held})
        results = {n: await asyncio.gather(*tasks[n]) for n in range(TABLES)}
        for n in range(TABLES):
            assert results[n] == ([f"node-{n}".encode()] * 2 if n in held else [None] * 2)
        mgets, gets = await _calls(client), await _calls(client, "get")
        # a second of turns at 0.05 s (20), each of ceil(300 / BATCH) MGETs, twice
        # over for a loaded machine; before: some 300 * 20 GETs
        turns = 2 * 20 * -(-TABLES // BATCH)
        assert gets == 0 and 0 < mgets <= turns, (mgets, gets)
        await asyncio.sleep(0.1)
        assert not waits.reading and not waits._waits and not _others()

    _on_redis(redis_factory, play)


def test_a_wait_begun_as_the_last_one_cancels_the_reader_gets_a_reader(redis_factory: Any):
    """The last waiter leaves (told its holder) and cancels the reader, which sleeps
    until its next turn; a forward that begins to wait in that same turn (the same
    task waiting on its next table) found the reader still running and started
    none — the reader then ended at its cancel without telling it, and it waited
    unread until its own end, blind to its lease held again. A reader whose cancel
    is asked counts as none now: the wait gets a reader of its own."""

    async def play(server: Any, client: aioredis.Redis, waits: LeaseWaits) -> None:
        await client.set("owner:t", "node-a")  # the first read tells the first wait

        async def one_then_another() -> tuple[bytes | None, bytes | None]:
            first = await waits.held("t", "owner:t", time.monotonic() + 30)
            # (no await between: the reader's cancel, asked as the first wait left,
            # has not run yet)
            return first, await waits.held("u", "owner:u", time.monotonic() + 3)

        task = asyncio.create_task(one_then_another())
        while waits.waiting("u") == 0:
            await asyncio.sleep(0.01)
        await client.set("owner:u", "node-b")  # its owner's renewal took it again
        assert await task == (b"node-a", b"node-b")  # (before: None, after 3 s)
        await asyncio.sleep(0.1)
        assert not waits.reading and not _others()

    _on_redis(redis_factory, play)


def test_a_superseded_readers_failure_is_not_told_to_the_new_readers_waits(
    redis_factory: Any,
):
    """The reader cancelled as the last wait left swallows the cancel in its read
    (as redis-py's did) and then fails; a new reader already reads for the wait that
    began meanwhile: that wait is told its own lease's holder, not the old reader's
    error."""

    async def play(server: Any, client: aioredis.Redis, waits: LeaseWaits) -> None:
        waits.read = _swallowing(client, fail=True)

        async def one_then_another() -> tuple[bytes | None, bytes | None]:
            # the first wait ends (0.1 s) while the reader's read is out (0.3 s)
            first = await waits.held("t", "owner:t", time.monotonic() + 0.1)
            return first, await waits.held("u", "owner:u", time.monotonic() + 3)

        await client.set("owner:u", "node-b")
        task = asyncio.create_task(one_then_another())
        assert await task == (None, b"node-b")  # (before: the old reader's error)

    _on_redis(redis_factory, play)
