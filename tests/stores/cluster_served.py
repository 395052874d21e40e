"""One :class:`ClusterServer` in the test's own process, on a real redis-server,
with the two seeded tables of tests/server/conftest.py and real WebSocket clients
joined to it (``serve --redis`` as the tests of one node see it)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager

from websockets.asyncio.client import connect

from rollbridge.host import PluginHost
from rollbridge.server.cluster import ClusterServer
from rollbridge.stores.redis import RedisStore
from tests.server.conftest import TEST_LIMITS, Peer, seed_tables


@asynccontextmanager
async def served_cluster(
    redis_url: str, host: PluginHost, joins: Iterable[tuple[str, str]]
) -> AsyncIterator[list[Peer]]:
    """A node (``node-a``) over the Redis at ``redis_url``, its tables seeded with
    ``host``'s rulesets: a client joined for each ``(table, role)`` of ``joins``, in
    order; the clients closed, the node stopped and its store closed after."""
    store = RedisStore(redis_url, writer="node-a")
    tokens = seed_tables(store, host)
    server = ClusterServer(store, host, port=0, redis_url=redis_url, limits=TEST_LIMITS)
    await server.start()
    peers: list[Peer] = []
    try:
        for table, role in joins:
            peers.append(Peer(await connect(server.url)))
            welcome = await peers[-1].request(
                {"type": "hello", "table": table, "token": tokens[table][role]}
            )
            assert welcome["type"] == "welcome", welcome
        yield peers
    finally:
        for peer in peers:
            await peer.close()
        await server.stop()
        store.close()
