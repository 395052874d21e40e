"""A forward's graces begin anew when the table's owner is seen holding its lease
again (rollbridge.server.cluster, :data:`~rollbridge.server.cluster.GRACES`,
docs/redis.md "One owner per table"): a real redis-server paused (SIGSTOP) three
times within one forwarded change, the owner taking its lease back after each pause.

Left by the last closing note: the count of graces was per forward, never reset. A
forward that outlasted two pauses — its owner renewing after each, but not answering
it yet (here: the owner's answers never come, as when its commit waits in the paused
Redis) — took the table at the third from an owner that was alive and renewing. An
owner seen holding the lease after it was found free took it back by its renewal (a
dead one never does), so it is alive and the count begins anew.

The process under test is a :class:`ClusterServer` in the test's own process with a
real client over a real WebSocket; the owner is ``node-a``, whose lease the test
renews in Redis as its renewals do (``SET`` with the lease's expiry) and whose inbox
nobody reads.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from typing import Any

import pytest
import redis.asyncio as aioredis
from websockets.asyncio.client import connect

from rollbridge.host import PluginHost
from rollbridge.server.cluster import GRACES, ClusterServer
from rollbridge.stores.redis import RedisStore
from tests.server.conftest import TEST_LIMITS, Peer, make_host, seed_tables

#: The lease (ms): each pause outlasts it, and it outlasts by far what a loaded machine
#: delays node-a's renewals (every tenth of a lease here) and its answer to a grace
#: (2000 did not at a load average of 10-17 with two test workers: the grace ended
#: before node-a's renewal, and the table was taken, "taken after pause 2").
LEASE = 4000
#: Each pause of Redis: past the lease (it runs out in Redis's clock) and past a third
#: of a lease of the forward's own read (held: a failure), within the 5 s reply timeout.
PAUSE = LEASE / 1000 + 0.5


async def until(check: Any, what: str) -> None:
    """Wait for ``check()`` (a guard of 60 s against a hang, not a measure)."""
    async with asyncio.timeout(60):
        while not check():
            await asyncio.sleep(0.02)
    assert check(), what


@contextlib.asynccontextmanager
async def _forwarding(redis_factory, tally, arm=None):
    """A change of table ``tally`` forwarded to node-a, which renews its lease (every
    tenth of a lease while ``renewing`` is set) and never answers (``arm(server, its
    redis-server, renewing, renewal)`` called before the change is sent): yields (the
    server, its redis-server, node-a's client, the lease's key, ``renewing``, the lock a
    renewal holds, the peer that sent the change)."""
    server_redis = redis_factory()
    host: PluginHost = make_host(tally)
    store = RedisStore(server_redis.url, writer="node-b")
    tokens = seed_tables(store, host)
    owner = aioredis.Redis.from_url(server_redis.url)  # node-a's renewals
    key = f"{store.keys.prefix}{{tally}}:owner"
    renewing, renewal = asyncio.Event(), asyncio.Lock()

    async def renew() -> None:  # node-a: alive, renewing every tenth of a lease
        while True:
            await renewing.wait()
            async with renewal:
                if renewing.is_set():
                    await owner.set(key, "node-a", px=LEASE)
            await asyncio.sleep(LEASE / 10_000)

    await owner.set(key, "node-a", px=LEASE)
    renewing.set()
    renewer = asyncio.create_task(renew())
    server = ClusterServer(store, host, port=0, redis_url=server_redis.url,
                           limits=TEST_LIMITS, lease_ms=LEASE, forward_timeout=120)  # fmt: skip
    await server.start()
    assert server.keys.table("tally").owner == key
    peer = Peer(await connect(server.url))
    try:
        welcome = await peer.request({"type": "hello", "table": "tally",
                                      "token": tokens["tally"]["gm"]})  # fmt: skip
        assert welcome["type"] == "welcome", welcome
        if arm is not None:
            arm(server, server_redis, renewing, renewal)
        await peer.send({"type": "roll", "id": "held", "formula": "1d6"})  # forwarded to A
        await until(lambda: server._waiting, "the forward waits for node-a's answer")
        yield server, server_redis, owner, key, renewing, renewal, peer
        assert "tally" not in server.ownership.owned
        assert await owner.get(key) == b"node-a"
        assert "held" not in peer.replies  # still waiting for node-a's answer
    finally:
        renewer.cancel()
        await peer.close()
        await server.stop()
        await owner.aclose()
        store.close()


async def _paused(server_redis, renewing, renewal) -> None:
    """Redis stopped (SIGSTOP), no renewal of node-a's in flight or to come."""
    renewing.clear()
    async with renewal:
        server_redis.process.send_signal(signal.SIGSTOP)


async def _after_the_pause(server, server_redis) -> None:
    """Redis woken after :data:`PAUSE`; the forward found the lease free and waits (its
    grace) — asserted not taken."""
    try:
        await asyncio.sleep(PAUSE)  # the forward's read waits in Redis: a failure
    finally:
        server_redis.process.send_signal(signal.SIGCONT)
    await until(
        lambda: server._lease_waits.waiting("tally") or "tally" in server.ownership.owned,
        "the forward's grace, or its take-over",
    )


async def test_an_owner_seen_holding_its_lease_again_is_left_its_table(redis_factory, tally):
    async with _forwarding(redis_factory, tally) as (server, redis, _o, _k, renewing, renewal, _p):
        for pause in range(GRACES + 1):
            await _paused(redis, renewing, renewal)
            await _after_the_pause(server, redis)
            # the lease ran out in the pause: the forward finds it free, and leaves it
            # to node-a for a lease (its grace) — before, at the third it took it
            assert "tally" not in server.ownership.owned, f"taken after pause {pause + 1}"
            renewing.set()  # node-a's next renewal takes its lease back
            await until(lambda: not server._lease_waits.waiting("tally"), "node-a seen holding")


async def test_an_owner_seen_holding_by_the_lease_wait_is_counted_so(
    redis_factory, tally, monkeypatch
):
    """The grace's wait (the reader of the leases, cluster_lease_wait) ends because
    node-a holds its lease again, and Redis is paused before the forward reads the
    lease itself: it was seen held all the same. Before (rev27o), only the forward's
    own read began the count anew, so this race — met under load, the test above
    failing "taken after pause 3" — took the table from node-a at the third pause."""
    async with _forwarding(redis_factory, tally) as (server, redis, _o, _k, renewing, renewal, _p):
        waits = server._lease_waits
        real, pausing = waits.held, asyncio.Event()

        async def held_then_paused(table_id: str, key: str, until_: float) -> bytes | None:
            holder = await real(table_id, key, until_)
            if holder is not None and pausing.is_set():  # before the forward looks again
                pausing.clear()
                await _paused(redis, renewing, renewal)
            return holder

        monkeypatch.setattr(waits, "held", held_then_paused)
        await _paused(redis, renewing, renewal)  # the first pause, as above
        for pause in range(GRACES + 1):
            await _after_the_pause(server, redis)
            assert "tally" not in server.ownership.owned, f"taken after pause {pause + 1}"
            if pause == GRACES:
                break
            pausing.set()
            renewing.set()  # node-a takes its lease back; the wait, seeing it, pauses Redis
            await until(lambda: not pausing.is_set(), "node-a seen holding, Redis paused")
        renewing.set()
        await until(lambda: not server._lease_waits.waiting("tally"), "node-a seen holding")


def _pausing_first(server: ClusterServer, name: str, redis: Any, renewing, renewal) -> Any:
    """Replace the server's call ``name`` by one that pauses Redis (as :func:`_paused`)
    the first time, then sends the call into the paused Redis."""
    real = getattr(server, name) if name == "_push" else server.redis.get
    paused = asyncio.Event()

    async def first_paused(*args: Any) -> Any:
        if not paused.is_set():
            paused.set()
            await _paused(redis, renewing, renewal)
        return await real(*args)

    return first_paused


@pytest.mark.parametrize("call", ["get", "_push"])
async def test_a_pause_during_the_forwards_first_read_or_send_leaves_the_owner_its_table(
    redis_factory, tally, call
):
    """Redis paused past the lease while the forward's first read of the lease
    (``get``: it never saw whose it was) or its send to node-a (``_push``) waits in
    it — as under load, when the test above pauses Redis before its forward has
    read and sent (CI: "taken after pause 1"). Before, only a later read held past a
    third of a lease counted as a failure, and a read never answered before held no
    owner to leave the lease to: the forward found the lease free and took the table
    from node-a, alive and renewing once Redis woke."""

    def arm(server: ClusterServer, redis: Any, renewing, renewal) -> None:
        pausing = _pausing_first(server, call, redis, renewing, renewal)
        if call == "_push":
            server._push = pausing  # type: ignore[method-assign]
        else:
            server.redis.get = pausing  # type: ignore[union-attr, method-assign]

    async with _forwarding(redis_factory, tally, arm) as forwarding:
        server, redis, _o, _k, renewing, _l, _p = forwarding
        await _after_the_pause(server, redis)
        assert "tally" not in server.ownership.owned, "taken after the pause"
        renewing.set()  # node-a's next renewal takes its lease back
        await until(lambda: not server._lease_waits.waiting("tally"), "node-a seen holding")
