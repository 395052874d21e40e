"""The forwards waiting for a table's owner after a Redis failure share one wait
(rollbridge.server.cluster_lease_wait, docs/redis.md "One owner per table"): two real
``serve --redis`` processes, a real redis-server stopped for longer than a lease and
started again while the owner hangs (SIGSTOP), then several changes of the table
sent at once from the other process. Each waits up to a lease for the owner to take
its lease again; before, each read the lease every 0.05 s on its own (8 waiting: 263
GETs in 1.76 s), now one reader per process reads it for all of them (an ``MGET`` of
every lease waited on) — counted by Redis itself (``INFO commandstats``, GETs and
MGETs) — and each change still gets its answer."""

from __future__ import annotations

import asyncio
import signal
import time
from typing import Any

import redis as redis_py

from tests.stores.cluster_harness import LEASE_MS, Player, Process, run_by_a_seen_from_b

#: Changes sent at once from the process that does not own the table.
WAITERS = 8
#: How often the one reader reads the lease (s), as rollbridge.server.cluster_lease_wait.
EVERY = 0.05


def _gets(url: str) -> int:
    """The reads of a lease Redis ran since its statistics were last reset: the
    forwards' own GETs and the reader's MGETs."""
    client = redis_py.Redis.from_url(url)
    try:
        stats = client.info("commandstats")
        return sum(int(stats.get(f"cmdstat_{c}", {}).get("calls", 0)) for c in ("get", "mget"))
    finally:
        client.close()


def test_forwards_waiting_on_one_table_share_one_reader_of_its_lease(redis_factory: Any):
    redis = redis_factory()

    async def play(a: Process, b: Process, on_a: Player, on_b: Player, made: dict) -> None:
        # on_b has seen the table run by A (its forward answered there)
        asks = [on_b] + [
            Player(b.port, made["table"], made["tokens"]["gm"]) for _ in range(WAITERS - 1)
        ]
        for player in asks[1:]:
            await player.join()
        a.signal(signal.SIGSTOP)  # the owner hangs: it cannot take its lease back
        redis.stop()
        time.sleep(2 * LEASE_MS / 1000)  # down longer than a lease: it runs out
        redis.start()
        client = redis_py.Redis.from_url(redis.url)
        client.config_resetstat()
        client.close()
        replies = await asyncio.gather(
            *(
                player.ask({"type": "roll", "id": f"wait{i}", "formula": "1d6"}, timeout=60)
                for i, player in enumerate(asks)
            )
        )
        gets = _gets(redis.url)
        # each waiter still gets its answer: B takes the table over after the wait (a
        # commit on a connection Redis's restart broke may answer store_error, "try
        # again", as before the shared wait: sent again, it is done)
        assert all(r["type"] == "result" or r["code"] == "store_error" for r in replies), replies
        for i, (player, reply) in enumerate(zip(asks, replies, strict=True)):
            if reply["type"] != "result":
                again = {"type": "roll", "id": f"wait{i}", "formula": "1d6"}
                assert (await player.ask_until_done(again))["type"] == "result"
        # one reader for the wait (a lease's worth of reads, twice over for a loaded
        # machine) and a few reads of each forward's own around it; before, the wait
        # itself cost WAITERS readers' worth (each its own lease's worth)
        one_wait = LEASE_MS / 1000 / EVERY
        assert gets <= 2 * one_wait + 4 * WAITERS, gets
        for player in asks[1:]:
            await player.close()

    run_by_a_seen_from_b(redis.url, play)
