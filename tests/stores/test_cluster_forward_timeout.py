"""A forwarded change that gets no answer within ``forward_timeout`` (docs/redis.md,
"Forwarding"), on a real redis-server and an in-process ``serve --redis`` server
whose timeout is shortened (15 s by default): Redis silent (``reason``
``unreachable``), or the owner named by the lease gone (``no_owner``). The owner is
a process id in the lease that no process serves: one killed whose lease has not run
out yet."""

from __future__ import annotations

import asyncio
import json
import logging
import math
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import redis as redis_py
from websockets.asyncio.client import ClientConnection, connect

from rollbridge.exceptions import InvalidSettings
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.server.cluster import FORWARD_TIMEOUTS, ClusterServer
from rollbridge.stores.redis import RedisStore
from tests.stores.test_cluster_lease_memory import on_a_cluster_server

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

#: The shortened timeout of the process under test (seconds).
TIMEOUT = 0.5


def _host() -> PluginHost:
    return PluginHost({}, environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})


async def _answer(ws: ClientConnection, request_id: str) -> dict:
    """Roll as ``request_id``; the reply to it (events before it are skipped)."""
    await ws.send(json.dumps({"type": "roll", "id": request_id, "formula": "1d6"}))
    async with asyncio.timeout(30):
        while (message := json.loads(await ws.recv())).get("id") != request_id:
            pass
    return message


def _forwarding_to_a_gone_owner(
    redis_factory: Any, play: Callable[[ClusterServer, ClientConnection, Any], Awaitable[None]]
) -> None:
    """Table ``t`` leased to ``node-gone`` for a minute; ``play(server, ws, redis)``
    with a client of ``t`` joined on the server (the short timeout)."""
    started: list[Any] = []

    def factory(*extra: str) -> Any:
        started.append(redis_factory(*extra))
        return started[-1]

    async def joined(server: ClusterServer) -> None:
        assert server.redis is not None
        _info, tokens = TableService(server.store, _host()).create_table("T", "bandits",
                                                                          table_id="t")  # fmt: skip
        await server.redis.set(server.keys.table("t").owner, "node-gone", px=60_000)
        async with connect(server.url) as ws:
            await ws.send(json.dumps({"type": "hello", "id": "h", "table": "t",
                                      "token": tokens["gm"]}))  # fmt: skip
            assert json.loads(await ws.recv())["type"] == "welcome"
            await play(server, ws, started[0])

    on_a_cluster_server(factory, joined, lease_ms=60_000, forward_timeout=TIMEOUT)


def test_a_forward_redis_does_not_answer_is_refused_after_its_timeout(redis_factory, caplog):
    """Redis killed while a change waits to be forwarded: after ``forward_timeout``
    the client is told ``store_error`` (and may send it again), and the store fails
    as a commit's failure says it (``reason`` ``unreachable``, the gauge 1) — one
    ERROR for the outage and one WARNING from the forwards, however many are
    refused. Redis back, the same id is run once and the outage ends ("works
    again"). Before, the refusal was said at DEBUG only, and the gauge stayed 0."""
    caplog.set_level(logging.INFO)

    async def play(server: ClusterServer, ws: ClientConnection, redis: Any) -> None:
        redis.kill()
        for request_id in ("r1", "r2"):
            refused = await _answer(ws, request_id)
            assert refused["type"] == "error" and refused["code"] == "store_error", refused
        assert server.health.failing is not None
        # the outage is the first failure seen: the forward's (naming its table), or,
        # on a loaded machine, the process's own poll of Redis that came first (none)
        details = server.health.failing.details
        assert details.get("reason") == "unreachable", details
        assert details in ({"reason": "unreachable", "table": "t"}, {"reason": "unreachable"})
        redis.start()  # on its folder: the lease to the gone process is there
        admin = redis_py.Redis.from_url(redis.url)
        admin.delete(server.keys.table("t").owner)  # it runs out
        admin.close()
        again = await _answer(ws, "r1")
        assert again["type"] == "result" and again["seq"] == 1, again
        assert server.health.failing is None

    _forwarding_to_a_gone_owner(redis_factory, play)
    said = [r for r in caplog.records if r.name.startswith("rollbridge")]
    fails = [r for r in said if r.getMessage().startswith("the store fails")]
    assert len(fails) == 1 and fails[0].levelno == logging.ERROR, fails
    assert "does not answer" in fails[0].getMessage(), fails[0].getMessage()
    tries = [r for r in said if r.getMessage().startswith("forwarding to table t")]
    assert len(tries) == 1 and tries[0].levelno == logging.WARNING, tries
    assert sum(r.getMessage().startswith("the store works again") for r in said) == 1


def test_a_forward_to_an_owner_gone_is_refused_after_its_timeout(redis_factory, caplog):
    """The lease names a process that does not answer (killed; its lease not run out
    yet): after ``forward_timeout`` the client is told ``store_error``, and the log
    says which (``reason`` ``no_owner``, a WARNING per change): Redis works, the
    store is not failing."""
    caplog.set_level(logging.INFO)

    async def play(server: ClusterServer, ws: ClientConnection, _redis: Any) -> None:
        refused = await _answer(ws, "r1")
        assert refused["type"] == "error" and refused["code"] == "store_error", refused
        assert server.health.failing is None

    _forwarding_to_a_gone_owner(redis_factory, play)
    told = [r.getMessage() for r in caplog.records if r.name == "rollbridge.cluster"]
    gone = [m for m in told if "did not answer within" in m]
    assert len(gone) == 1 and f"within {TIMEOUT} s" in gone[0], told


@pytest.mark.parametrize("seconds", [0, -1, 0.09, 3600.5, math.nan, math.inf])
def test_a_forward_timeout_out_of_range_is_refused(redis_server, seconds):
    store = RedisStore(redis_server.url, writer="node-a")
    try:
        with pytest.raises(InvalidSettings) as refused:
            ClusterServer(store, _host(), port=0, redis_url=redis_server.url,
                          forward_timeout=seconds)  # fmt: skip
    finally:
        store.close()
    assert "forward_timeout" in str(refused.value) and refused.value.code == "invalid_settings"
    assert refused.value.details == {"field": "forward_timeout"}


def test_a_forward_timeout_at_its_bounds_is_taken(redis_server):
    store = RedisStore(redis_server.url, writer="node-a")
    try:
        for seconds in FORWARD_TIMEOUTS:
            server = ClusterServer(store, _host(), port=0, redis_url=redis_server.url,
                                   forward_timeout=seconds)  # fmt: skip
            assert server.forward_timeout == seconds
    finally:
        store.close()
