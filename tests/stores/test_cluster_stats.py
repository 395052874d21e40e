"""``stats`` over ``serve --redis`` is counted off the event loop as on a single
process (tests/stats/test_stats_off_loop.py): a :class:`ClusterServer` on a real
redis-server, its clients over real WebSockets — another table's ``ping`` is
answered while one table's log is counted, and the read and its count are one
read of that table's log."""

from __future__ import annotations

from websockets.asyncio.client import connect

from rollbridge.server.cluster import ClusterServer
from rollbridge.stores.redis import RedisStore
from tests.server.conftest import TEST_LIMITS, Peer, make_host, seed_tables
from tests.stats.counting import SlowTally, answered_while_counting


async def test_another_table_is_answered_while_one_table_s_stats_are_counted(redis_factory):
    redis = redis_factory()
    ruleset = SlowTally()
    host = make_host(ruleset)
    store = RedisStore(redis.url, writer="node-a")
    tokens = seed_tables(store, host)
    server = ClusterServer(store, host, port=0, redis_url=redis.url, limits=TEST_LIMITS)
    await server.start()
    peers: list[Peer] = []
    try:
        for table, role in (("tally", "gm"), ("sr2", "player")):
            peers.append(Peer(await connect(server.url)))
            welcome = await peers[-1].request(
                {"type": "hello", "table": table, "token": tokens[table][role]}
            )
            assert welcome["type"] == "welcome", welcome
        counter, other = peers
        rolled = await counter.request({"type": "roll", "id": "r", "formula": "3d6"})
        assert rolled["type"] == "result", rolled
        await answered_while_counting(counter, other, ruleset)
    finally:
        ruleset.gate.set()
        for peer in peers:
            await peer.close()
        await server.stop()
        store.close()
