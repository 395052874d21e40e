"""How often ``/readyz`` opens a new connection to Redis, counted, not timed
(rollbridge.server.ready_probe): a real redis-server counts the connections it
received (``INFO stats``), a real server in the test's process answers ``/readyz``
over HTTP, and the probe's clock is the test's (it moves only when told), so each
count is exact on any machine, however loaded.

* A success stands for :data:`FRESH_FOR` seconds: forty polls, one connection.
* A refusal stands as long: a password refused was asked anew at every request —
  under a balancer's polls (or an attacker's, ``/readyz`` needing no token)
  a connection a request, each refused and left in ``TIME_WAIT`` (some 160 a
  second from eight pollers: docs/operations.md's ``/readyz`` row).
* A success found before an outage began does not end it: a client's read refused
  on a new connection (the password rotated) began one, and the next ``/readyz``
  ended it with the pool's ping and the new connection's success of a moment before
  — the flip the new connection's try was made to stop.
"""

from __future__ import annotations

import asyncio
import contextlib
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis

from rollbridge.exceptions import StoreUnavailable
from rollbridge.host import PluginHost
from rollbridge.server.app import Server
from rollbridge.server.ready_probe import FRESH_FOR, PING_FRESH_FOR, ReadyProbe
from rollbridge.stores.redis import RedisStore
from tests.stores.test_redis_password_rotated import with_password

OLD, NEW = "reuseOld-1", "reuseNew-2"
READY = (200, "ready\n")
REFUSED = (
    503,
    "not ready: the store failed: store_error (refused_password); the server's log says more\n",
)


class Clock:
    """Monotonic seconds that move only when the test moves them."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _get(port: int) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read().decode()


async def ready(server: Server) -> tuple[int, str]:
    """``GET /readyz`` of ``server`` (from a thread): its status and body."""
    return await asyncio.to_thread(_get, server.port)


def received(admin: redis.Redis) -> int:
    """The connections Redis has received since it started."""
    return int(admin.info("stats")["total_connections_received"])


@contextlib.asynccontextmanager
async def serving(url: str) -> AsyncIterator[tuple[Server, Clock]]:
    """A server on the Redis at ``url`` (no table, no background try of the store
    while the test runs), its ``/readyz`` on the test's clock; stopped after."""
    store = RedisStore(url)
    host = PluginHost({}, environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
    server = Server(store, host, port=0, token_check_interval=None, sweep_interval=None,
                    probe_interval=3600)  # fmt: skip
    clock = Clock()
    server.http.ready = ReadyProbe(server, clock=clock)
    await server.start()
    try:
        yield server, clock
    finally:
        await server.stop()
        store.close()


async def test_polled_often_a_success_opens_one_connection_a_second(redis_factory: Any):
    server = redis_factory()
    admin = redis.Redis(port=server.port)
    async with serving(server.url) as (served, clock):
        assert await ready(served) == READY  # the pool's connection made, and one new
        before = received(admin)
        for _ in range(40):
            assert await ready(served) == READY
        assert received(admin) == before  # the new connection's success reused
        clock.now += FRESH_FOR
        assert await ready(served) == READY
        assert received(admin) == before + 1  # a second later: one more
    admin.close()


async def test_polled_often_a_refusal_opens_one_connection_a_second(redis_factory: Any):
    admin, url = with_password(redis_factory(), OLD)
    async with serving(url) as (served, clock):
        assert await ready(served) == READY
        admin.config_set("requirepass", NEW)
        clock.now += FRESH_FOR  # the success before it stood for a second
        before = received(admin)
        for _ in range(20):
            assert await ready(served) == REFUSED
        assert received(admin) == before + 1  # one refused, reused: not one each
        assert served.health.failing is not None
        admin.config_set("requirepass", OLD)
        assert await ready(served) == REFUSED  # the refusal stands for its second
        clock.now += FRESH_FOR
        assert await ready(served) == READY  # within a second of the password back
        assert served.health.failing is None
        assert received(admin) == before + 2
    admin.close()


async def test_a_success_found_before_an_outage_began_does_not_end_it(redis_factory: Any):
    admin, url = with_password(redis_factory(), OLD)
    async with serving(url) as (served, _clock):
        assert await ready(served) == READY  # a new connection's success, for a second
        admin.config_set("requirepass", NEW)
        # a client's read on a new connection is refused, and tells the store's health
        # so (Server._read): the outage begins, within the second of that success
        with pytest.raises(StoreUnavailable) as refused:
            await asyncio.to_thread(served.store.probe_read)
        served.health.failed(refused.value, 1, commit=False)
        assert served.health.reads_failing
        # the pool's connection still answers; the success of before speaks not for now
        assert await ready(served) == REFUSED
        assert served.health.failing is not None  # the outage goes on: no flip
    admin.close()


def pings(admin: redis.Redis) -> int:
    """The PINGs Redis has answered since it started (INFO commandstats)."""
    return int(admin.info("commandstats").get("cmdstat_ping", {}).get("calls", 0))


async def test_a_poller_without_a_pause_costs_a_ping_a_tenth_of_a_second(redis_factory: Any):
    """A poller with no pause between its requests kept a reader thread pinging:
    each ``/readyz`` asked the pool's ping anew once the last had answered, a PING
    a request. Two hundred polls on the test's clock, which stands still, are one
    pool's PING (and the new connection's one), then one more a tenth of a second on."""
    server = redis_factory()
    admin = redis.Redis(port=server.port)
    async with serving(server.url) as (served, clock):
        assert await ready(served) == READY
        before = pings(admin)
        polls = [ready(served) for _ in range(200)]
        for answer in await asyncio.gather(*polls[:100]):  # many at once
            assert answer == READY
        for poll in polls[100:]:  # one after another, none between
            assert await poll == READY
        assert pings(admin) == before  # the pool's answer of a moment ago reused
        clock.now += PING_FRESH_FOR
        assert await ready(served) == READY
        assert pings(admin) == before + 1  # a tenth of a second on: one more
        server.stop()  # a Redis gone is said at the next ping, a tenth on
        clock.now += PING_FRESH_FOR
        status, _ = await ready(served)
        assert status == 503
    admin.close()
