"""The ERROR line of the check for revoked tokens when Redis does not answer says
what failed: a read of the tokens (a real :class:`ClusterServer` on a real
redis-server, stopped under a connected client).

It said the store's words for a change (``checking for revoked tokens: … does not
answer: nothing is acknowledged (a change it got before it stopped answering shows
once the table is read again); start it, …``): an operator read of changes lost or
held where only a read had failed."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging

import redis
from websockets.asyncio.client import connect

from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.server.cluster import ClusterServer
from tests.stores.test_cluster_broken_table import answer_to
from tests.stores.test_cluster_lease_memory import on_a_cluster_server


def test_the_token_checks_error_line_says_a_read_of_the_tokens_failed(redis_factory, caplog):
    async def play(server: ClusterServer) -> None:
        host = PluginHost({}, environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
        gm = TableService(server.store, host).create_table("T", "bandits", table_id="t")[1]["gm"]
        async with connect(server.url) as ws:
            await ws.send(json.dumps({"type": "hello", "id": "h", "table": "t", "token": gm}))
            async with asyncio.timeout(20):
                assert (await answer_to(ws, "h"))["type"] == "welcome"
            with contextlib.suppress(redis.exceptions.ConnectionError):  # it hangs up
                server.store.client.shutdown(nosave=True)  # Redis gone under the client
            caplog.clear()
            with caplog.at_level(logging.ERROR, logger="rollbridge.server"):
                await server.recheck_tokens()
        (line,) = [r.getMessage() for r in caplog.records if "revoked tokens" in r.getMessage()]
        assert line.startswith(
            f"checking for revoked tokens, reading every table's tokens: {server.store.where} "
            "does not answer: nothing could be read; check that it runs ("
        ), line
        assert "acknowledged" not in line and "a change" not in line

    on_a_cluster_server(redis_factory, play)
