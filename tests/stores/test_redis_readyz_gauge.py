"""``/readyz`` and ``rollbridge_store_failing`` agree on a ``serve --redis`` process
no client uses (a real :class:`ClusterServer` on a real redis-server, stopped and
started again on its folder).

Found walking three processes behind nginx (examples/cluster_walk.py) with Redis
stopped: every ``/readyz`` answered 503 (``store_error (unreachable)``), while the
``/metrics`` of the two processes that had no change to send said
``rollbridge_store_failing 0`` — the gauge operations.md says to alert on, silent
on those processes for the whole outage."""

from __future__ import annotations

import asyncio
import re
import urllib.error
import urllib.request
from typing import Any

from rollbridge.server.cluster import ClusterServer
from tests.stores.test_cluster_lease_memory import on_a_cluster_server


def _get(server: ClusterServer, path: str) -> tuple[int, str]:
    url = server.url.replace("ws://", "http://").rstrip("/") + path
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read().decode()


async def _state(server: ClusterServer) -> tuple[int, str]:
    """``/readyz``'s status and ``rollbridge_store_failing``'s value."""
    status, _ = await asyncio.to_thread(_get, server, "/readyz")
    _, text = await asyncio.to_thread(_get, server, "/metrics")
    failing = re.search(r"^rollbridge_store_failing (\S+)$", text, re.M)
    assert failing is not None
    return status, failing[1]


async def _until_state(server: ClusterServer, status: int) -> tuple[int, str]:
    """:func:`_state` until ``/readyz`` answers ``status`` (a bound, not an assertion):
    the pool's answer of a moment ago stands a tenth of a second (``PING_FRESH_FOR``)."""
    for _ in range(100):
        state = await _state(server)
        if state[0] == status:
            return state
        await asyncio.sleep(0.1)
    return state


def test_a_process_nobody_uses_says_the_store_fails_where_readyz_does(redis_factory):
    servers: list[Any] = []

    async def play(server: ClusterServer) -> None:
        assert await _state(server) == (200, "0.0")
        servers[0].stop()
        assert await _until_state(server, 503) == (503, "1.0")
        assert server.health.reads_failing  # a read ends it, not a change nobody sends
        servers[0].start()  # on its folder
        # /readyz's read that works ends it (the refusal of before stands a tenth)
        assert await _until_state(server, 200) == (200, "0.0")

    on_a_cluster_server(lambda *extra: servers.append(redis_factory(*extra)) or servers[-1],
                        play, probe_interval=None)  # fmt: skip
