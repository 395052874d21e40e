"""The inbox reader of a ``serve --redis`` process (``ClusterServer._read_inbox``),
on a real redis-server: the answers its own forwards wait for are handed over before
a backlog of other processes' requests is run, and a burst is read in one blocking pop
and one drain, not a round trip per message; a forward sent again is counted once
against its table's rate."""

from __future__ import annotations

import asyncio
from typing import Any

import redis.asyncio as aioredis

from rollbridge.host import PluginHost
from rollbridge.plain import pack
from rollbridge.protocol.limits import Rates
from rollbridge.server.cluster import ClusterServer
from rollbridge.stores.redis import RedisStore
from rollbridge.text import stored


def test_replies_come_before_a_backlog_and_a_burst_is_one_pop(redis_factory):
    redis = redis_factory()
    store = RedisStore(redis.url, writer="node-a")
    host = PluginHost({}, environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
    server = ClusterServer(store, host, redis_url=redis.url)
    order: list[tuple[str, bool]] = []  # each request run, and whether the reply was in

    async def play() -> None:
        client = aioredis.Redis.from_url(redis.url)
        server.redis = aioredis.Redis.from_url(redis.url)
        waiter = asyncio.get_running_loop().create_future()
        server._waiting["mine"] = waiter
        server._run_forwarded = lambda body: order.append((body["fid"], waiter.done()))
        for n in range(40):  # other processes' requests, queued before the answer came
            await client.rpush(server.inbox, pack({"fid": f"r{n}"}, stored))
        await client.rpush(server.replies, pack({"fid": "mine", "message": {"ok": 1}}, stored))
        before = (await client.info("commandstats")).get("cmdstat_blpop", {}).get("calls", 0)
        reader = asyncio.get_running_loop().create_task(server._read_inbox())
        try:
            async with asyncio.timeout(20):
                while len(order) < 40:
                    await asyncio.sleep(0.01)
        finally:
            reader.cancel()
        after = (await client.info("commandstats"))["cmdstat_blpop"]["calls"]
        assert waiter.result().message == {"ok": 1}
        assert order == [(f"r{n}", True) for n in range(40)]  # in order, after the reply
        assert after - before <= 2  # one pop for the burst (and the next, blocking)
        assert await client.llen(server.inbox) == 0
        await client.aclose()
        await server.redis.aclose()

    try:
        asyncio.run(play())
    finally:
        store.close()


def test_a_forward_sent_again_is_counted_once_against_the_table_s_rate(redis_factory):
    """The owner counts each forwarded change against its table's rate once: the same
    forward sent again (its answer was late) is run again — the table answers it from
    the request id — but not counted again, so it is never refused as over the rate
    while its first copy goes through. A new forward over the rate is refused."""
    redis = redis_factory()
    store = RedisStore(redis.url, writer="node-a")
    host = PluginHost({}, environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
    server = ClusterServer(store, host, redis_url=redis.url)
    server.tables.rates = Rates(per_table=0.05)  # a burst of one, the next in 20 s
    ran: list[str] = []
    sent: list[Any] = []
    server.tables.get = lambda table_id, then: ran.append(table_id) or []  # type: ignore[method-assign]
    server.carry = lambda effects, *rest: sent.extend(effects)  # type: ignore[method-assign]
    roll = {"type": "roll", "id": "r1", "formula": "1d6"}
    body = {"fid": "f1", "from": "node-b", "table": "t", "message": roll,
            "who": ["gm", "gm", "k"], "locale": "en"}  # fmt: skip
    try:
        server._run_forwarded(body)
        server._run_forwarded(dict(body))  # sent again: the same fid
        assert ran == ["t", "t"] and sent == []
        server._run_forwarded({**body, "fid": "f2", "message": {**roll, "id": "r2"}})
        assert ran == ["t", "t"]
        (refused,) = sent
        assert refused.message["code"] == "rate_limited"
        assert refused.message["details"]["scope"] == "table"
    finally:
        store.close()
