"""An outage in which only reads failed ends once Redis answers again, on a process
nobody joins after it (a real :class:`ClusterServer` on a real redis-server, stopped
and started again on its folder; a real client).

Found moving a SQLite server to two ``serve --redis`` processes: Redis stopped, one
``hello`` refused ``store_error`` (its token could not be read), Redis started again —
and that process's ``rollbridge_store_failing`` stayed 1, with no "the store works
again", for as long as nobody joined it (a minute and more; for good on a process the
balancer sent nobody), while its ``/readyz`` answered 200. Only a read of a client
ended such an outage; the probe tried a write only while changes failed."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from websockets.asyncio.client import connect

from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.server.cluster import ClusterServer
from tests.stores.test_cluster_broken_table import answer_to
from tests.stores.test_cluster_lease_memory import on_a_cluster_server


def _failing(server: ClusterServer) -> str:
    """``rollbridge_store_failing``'s line of ``/metrics``."""
    text = server.metrics.render().decode()
    return next(x for x in text.splitlines() if x.startswith("rollbridge_store_failing "))


async def _hello(server: ClusterServer, token: str) -> dict:
    async with connect(server.url) as ws:
        await ws.send(json.dumps({"type": "hello", "id": "h", "table": "t", "token": token}))
        async with asyncio.timeout(20):
            return await answer_to(ws, "h")


def test_an_outage_of_reads_alone_ends_once_redis_answers_again(redis_factory, caplog):
    started: list[Any] = []

    def factory(*extra: str) -> Any:  # the redis-server, to stop and start it again
        started.append(redis_factory(*extra))
        return started[-1]

    async def play(server: ClusterServer) -> None:
        host = PluginHost({}, environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
        _info, tokens = TableService(server.store, host).create_table("T", "bandits",
                                                                      table_id="t")  # fmt: skip
        redis = started[0]
        redis.stop()
        refused = await _hello(server, tokens["gm"])
        assert refused["type"] == "error" and refused["code"] == "store_error", refused
        assert server.health.reads_failing and not server.health.changes_failing
        assert _failing(server) == "rollbridge_store_failing 1.0"
        redis.start()  # on its folder: the table is there
        async with asyncio.timeout(20):  # nobody joins: the probe's read ends it
            while server.health.failing is not None:
                await asyncio.sleep(0.05)
        assert _failing(server) == "rollbridge_store_failing 0.0"
        assert (await _hello(server, tokens["gm"]))["type"] == "welcome"

    caplog.set_level(logging.INFO)
    on_a_cluster_server(factory, play, probe_interval=0.1)
    said = [r.getMessage() for r in caplog.records if r.name == "rollbridge.writer"]
    assert sum("the store works again" in line for line in said) == 1, said
    assert not any(r.exc_info for r in caplog.records)
