"""A ``/readyz`` still waiting for a Redis that does not answer when the server
stops is answered ``503`` "the server is stopping" (rollbridge.server.http). The
stop cancels the store's tries it waited for (rollbridge.server.ready_probe), and
the request got no answer at all: its connection stayed open, unanswered, until the
caller gave up (a balancer's health check, ten seconds here) — before the tries, it
was answered 503 within 2 s. A real redis-server stopped with SIGSTOP, a real
server in the test's process; no fakes."""

from __future__ import annotations

import asyncio
import os
import signal
from typing import Any

from rollbridge.host import PluginHost
from rollbridge.server.app import Server
from rollbridge.server.ready_probe import FRESH_FOR, ReadyProbe
from rollbridge.stores.redis import RedisStore
from tests.stores.test_redis_readyz_reuse import READY, Clock, ready


async def test_a_readyz_waiting_as_the_server_stops_is_answered_stopping(redis_factory: Any):
    redis = redis_factory()
    assert redis.process is not None
    pid = redis.process.pid
    store = RedisStore(redis.url)
    host = PluginHost({}, environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
    server = Server(store, host, port=0, token_check_interval=None, sweep_interval=None,
                    probe_interval=3600)  # fmt: skip
    clock = Clock()
    probe = server.http.ready = ReadyProbe(server, clock=clock)
    await server.start()
    try:
        assert await ready(server) == READY
        clock.now += FRESH_FOR  # the next request asks a new connection (and the pool) anew
        os.kill(pid, signal.SIGSTOP)  # accepts, never answers
        waiting = asyncio.create_task(ready(server))
        async with asyncio.timeout(30):  # a bound: the request reaches the store's tries
            while probe._ping is None or probe._ping.task.done():
                await asyncio.sleep(0.01)
        await server.stop()
        assert await waiting == (503, "not ready: the server is stopping\n")
    finally:
        os.kill(pid, signal.SIGCONT)
        if server.writer is not None:
            await server.stop()
        store.close()
