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

from tests.stores.cluster_harness import LEASE_MS, Player, Process, make_table


def _taken_over(port: int) -> float:
    """``rollbridge_forwarded_total{outcome="taken_over"}`` of the process at ``port``."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
        text = answer.read().decode()
    found = re.search(r'^rollbridge_forwarded_total\{outcome="taken_over"\} (\S+)$', text, re.M)
    return float(found[1]) if found else 0.0


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
