"""A Redis failing within every lease no longer keeps a dead owner's table from
being taken (rollbridge.server.cluster, :data:`~rollbridge.server.cluster.GRACES`,
docs/redis.md "One owner per table"): two real ``serve --redis`` processes, the
table's owner killed (SIGKILL), and a real redis-server paused (SIGSTOP) again and
again while a change of the table is sent from the other process.

Left by the last session: a forward that found a lease free after a Redis failure
left it to its last owner for a lease (its grace), and every later failure of the
process started that grace again, bounded only by the forward's 15 s timeout. Redis
paused once a lease — each pause holding the forward's read of the lease at its
grace's end — kept the dead owner's table untaken: the change was refused
``no_owner`` at its timeout, and the next one waited again. The grace now restarts
once at most: the table is taken after the second.
"""

from __future__ import annotations

import asyncio
import signal
import threading
import time
from typing import Any

from tests.stores.cluster_harness import LEASE_MS, Player, Process, run_by_a_seen_from_b

#: Redis runs this long after each pause: less than a lease, so that the forward's
#: read of the lease at its grace's end (a lease after Redis woke) meets the next pause.
RUNS = LEASE_MS / 1000 - 0.5
#: Each pause: longer than a third of a lease past the read that meets it (a read
#: Redis held that long counts as a failure), within the client's 5 s reply timeout.
PAUSE = 1.2


def paused_again_and_again(redis: Any, until: threading.Event) -> None:
    """Redis runs :data:`RUNS` seconds, then is paused :data:`PAUSE` seconds, over and
    over until ``until`` is set (or for 25 s: past the forward's 15 s timeout)."""
    ends = time.monotonic() + 25
    while not until.wait(RUNS) and time.monotonic() < ends:
        redis.process.send_signal(signal.SIGSTOP)
        try:
            time.sleep(PAUSE)
        finally:
            redis.process.send_signal(signal.SIGCONT)


def test_a_redis_failing_within_every_lease_lets_a_dead_owners_table_be_taken(
    redis_factory: Any,
):
    redis = redis_factory()

    async def play(a: Process, b: Process, on_a: Player, on_b: Player, made: dict) -> None:
        assert redis.process is not None and on_b.ws is not None
        a.kill()  # dead: its lease runs out and is never renewed
        await asyncio.sleep(LEASE_MS / 1000 + 0.2)
        done = threading.Event()
        redis.process.send_signal(signal.SIGSTOP)
        try:
            # B's forward reads the lease: the read waits in the paused Redis (a
            # failure), and finds it free: a grace begins when Redis wakes
            await on_b.ws.send('{"type": "roll", "id": "taken", "formula": "1d6"}')
            await asyncio.sleep(PAUSE)
        finally:
            redis.process.send_signal(signal.SIGCONT)
        pauses = threading.Thread(target=paused_again_and_again, args=(redis, done))
        pauses.start()
        try:
            await on_b.until(lambda: "taken" in on_b.replies, 40, "the forwarded change's reply")
        finally:
            done.set()
            await asyncio.to_thread(pauses.join)
        reply = on_b.replies["taken"]
        # before: refused no_owner at the forward's 15 s timeout (store_error)
        assert reply["type"] == "result", reply
        assert b.owns(made["table"])

    run_by_a_seen_from_b(redis.url, play)
