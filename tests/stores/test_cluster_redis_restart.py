"""A restart of Redis leaves each table with its live owner (rollbridge.server.cluster,
``RENEW``): two real ``serve --redis`` processes, each owning two tables, a real
redis-server (AOF on its folder) stopped for longer than a lease and started again,
then a change of each table sent from the process that does not own it.

Found in the operator's walk: 2–20 of 30 tables counted ``taken_over`` after a Redis
restart. The leases ran out in Redis while it was down (their expiry is a time: the
AOF brings them back expired), each owner gave its tables up once its renewals had
failed for a lease, and the first forward after Redis came back took the table —
from a process that ran and held it in memory, every later client of it forwarded.
Now an owner keeps its tables while Redis fails, and its first renewal Redis answers
takes a lease that ran out again if the table is stored as it knows it (nobody
wrote it meanwhile, so it is no second writer); a forward that finds the lease free
just after Redis failed leaves it a renewal's time to do so.
"""

from __future__ import annotations

import asyncio
import re
import time
import urllib.request
from typing import Any

import pytest

from tests.stores.cluster_harness import (
    LEASE_MS,
    Player,
    Process,
    make_table,
    run_by_a_seen_from_b,
)


def _taken_over(port: int) -> float:
    """``rollbridge_forwarded_total{outcome="taken_over"}`` of the process at ``port``."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
        text = answer.read().decode()
    found = re.search(r'^rollbridge_forwarded_total\{outcome="taken_over"\} (\S+)$', text, re.M)
    return float(found[1]) if found else 0.0


def kept_by_a(a: Process, b: Process, made: dict, reply: dict) -> None:
    """B's change (``reply``) was answered, and table ``made`` is still A's: B took
    nothing over."""
    assert reply["type"] == "result", reply
    assert a.owns(made["table"])
    assert _taken_over(b.port) == 0


def test_a_redis_restart_leaves_the_tables_with_their_live_owners(redis_factory: Any):
    redis = redis_factory()
    tables = [make_table(redis.url) for _ in range(4)]
    a, b = Process(redis.url), Process(redis.url)
    owners = [a, a, b, b]
    others = [b, b, a, a]

    async def play() -> None:
        runs = [
            Player(p.port, t["table"], t["tokens"]["gm"])
            for p, t in zip(owners, tables, strict=True)
        ]
        asks = [
            Player(p.port, t["table"], t["tokens"]["gm"])
            for p, t in zip(others, tables, strict=True)
        ]
        for player in runs + asks:
            await player.join()
        for i, player in enumerate(runs):  # each owner takes its table
            await player.ask_until_done({"type": "roll", "id": f"own{i}", "formula": "1d6"})
        for i, player in enumerate(asks):  # and the other process sees it run there
            await player.ask_until_done({"type": "roll", "id": f"ask{i}", "formula": "1d6"})
        assert [o.owns(t["table"]) for o, t in zip(owners, tables, strict=True)] == [True] * 4
        redis.stop()
        time.sleep(2 * LEASE_MS / 1000)  # down for longer than a lease: they run out
        redis.start()  # on its folder: the tables are there, their leases expired
        for i, player in enumerate(asks):  # a change from the process that does not own it
            reply = await player.ask_until_done(
                {"type": "roll", "id": f"after{i}", "formula": "1d6"}, timeout=60
            )
            assert reply["type"] == "result", reply
        assert [o.owns(t["table"]) for o, t in zip(owners, tables, strict=True)] == [True] * 4
        assert _taken_over(a.port) == _taken_over(b.port) == 0
        for player in runs + asks:
            await player.close()

    try:
        asyncio.run(play())
    finally:
        logs = [a.stop(), b.stop()]
    assert "Traceback" not in "".join(logs), logs
    said = "".join(logs)
    assert said.count("its lease ran out while Redis failed; taken again") == 4, said
    assert "no longer runs table" not in said, said


@pytest.mark.parametrize("paused", [2.0, 7.0], ids=["within the reply timeout", "past it"])
def test_a_redis_paused_past_a_lease_leaves_the_table_with_its_live_owner(
    redis_factory: Any, paused: float
):
    """redis-server paused (SIGSTOP: a stalled host, a VM migrated) for longer than a
    lease, then resumed. Past the client's reply timeout (5 s) the owner's renewal
    fails and is tried again with the table's epoch and seq, as after a restart. Within
    it, the renewal waits in Redis's socket and is run when Redis wakes, after the
    lease ran out in Redis's clock: it answered 0, and the owner gave its table up
    ("no longer runs table") although nobody else had taken or written it — the next
    forward took it over. A renewal answered only after a lease is now one Redis did
    not answer in time: tried again at once with the epoch and seq."""
    import signal

    redis = redis_factory()

    async def play(a: Process, b: Process, on_a: Player, on_b: Player, made: dict) -> None:
        assert redis.process is not None
        redis.process.send_signal(signal.SIGSTOP)
        try:
            time.sleep(paused)  # longer than a lease (1.5 s): it runs out in Redis
        finally:
            redis.process.send_signal(signal.SIGCONT)
        deadline = time.monotonic() + 30
        while not a.owns(made["table"]):  # taken again by its renewal, no forward needed
            assert time.monotonic() < deadline, "the owner did not take its lease again"
            await asyncio.sleep(0.1)
        reply = await on_b.ask_until_done({"type": "roll", "id": "after", "formula": "1d6"})
        kept_by_a(a, b, made, reply)

    said = run_by_a_seen_from_b(redis.url, play)
    assert "no longer runs table" not in said, said
    assert said.count("taken again") == 1, said
