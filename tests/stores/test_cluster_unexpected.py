"""A bug in what follows a forward on a ``serve --redis`` process (a real
:class:`ClusterServer` on a real redis-server, a real client): the change is answered
``internal`` once, its traceback logged once, and the table goes on — before, the
exception ended the forward's task: the change was never answered and the table was
not settled."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from websockets.asyncio.client import connect

from rollbridge.offline import TableService
from rollbridge.server.cluster import ClusterServer
from rollbridge.server.cluster_table import ClusterTable
from tests.stores.test_cluster_broken_table import answer_to
from tests.stores.test_cluster_lease_memory import on_a_cluster_server


def test_a_bug_in_a_takeover_answers_the_change_internal_and_the_table_goes_on(
    redis_factory, monkeypatch, caplog
):
    raised: list[int] = []
    reload = ClusterTable._reload

    def failing(self: ClusterTable) -> Any:
        if not raised:
            raised.append(1)
            raise RuntimeError("injected")
        return reload(self)

    async def play(server: ClusterServer) -> None:
        service = TableService(server.store, server.host)
        _info, tokens = service.create_table("T", "bandits", table_id="t")
        monkeypatch.setattr(ClusterTable, "_reload", failing)
        async with connect(server.url) as ws:
            await ws.send(json.dumps({"type": "hello", "id": "h", "table": "t",
                                      "token": tokens["gm"]}))  # fmt: skip
            assert (await answer_to(ws, "h"))["type"] == "welcome"
            async with asyncio.timeout(20):
                # nobody runs the table: this process takes it over, and the reload raises
                await ws.send(json.dumps({"type": "roll", "id": "x", "formula": "1d6"}))
                failed = await answer_to(ws, "x")
                assert failed["type"] == "error" and failed["code"] == "internal"
                await ws.send(json.dumps({"type": "roll", "id": "y", "formula": "1d6"}))
                done = await answer_to(ws, "y")
        assert done["type"] == "result" and done["seq"] == 1
        table = server.tables.open["t"]
        assert isinstance(table, ClusterTable) and table.forwards_out == 0
        assert not table.broken and not table._held

    caplog.set_level(logging.INFO)
    on_a_cluster_server(redis_factory, play)
    assert raised == [1]
    errors = [r for r in caplog.records if r.levelno == logging.ERROR and r.exc_info]
    assert len(errors) == 1 and str(errors[0].exc_info[1]) == "injected"


def test_a_bug_after_the_owners_answer_answers_the_change_internal(
    redis_factory, monkeypatch, caplog
):
    """``node-b`` (played over Redis) runs the table and answers a change forwarded
    to it; handling that answer here raises: the change is answered ``internal``
    (before, the forward's task ended and the change was never answered), and the
    next change is forwarded and answered as usual."""
    from rollbridge.protocol.table import TableProtocol
    from tests.stores.test_cluster_broken_table import Stage

    raised: list[int] = []
    reply = TableProtocol._reply

    def failing(self: Any, asker: Any, message: Any, *args: Any) -> Any:
        if not raised and message.get("id") == "r1":
            raised.append(1)
            raise RuntimeError("injected")
        return reply(self, asker, message, *args)

    async def play(server: ClusterServer) -> None:
        stage = Stage(server)
        try:
            monkeypatch.setattr(ClusterTable, "_reply", failing)
            async with connect(server.url) as ws:
                await stage.redis.set(stage.owner, "node-b", px=60_000)
                await stage.hello(ws)
                async with asyncio.timeout(20):
                    await ws.send(json.dumps({"type": "roll", "id": "r1", "formula": "1d6"}))
                    await stage.run_on_b()
                    failed = await answer_to(ws, "r1")
                    assert failed["type"] == "error" and failed["code"] == "internal"
                    await ws.send(json.dumps({"type": "roll", "id": "r2", "formula": "1d6"}))
                    ran = await stage.run_on_b()
                    done = await answer_to(ws, "r2")
            assert done["type"] == "result" and done["seq"] == ran["seq"] == 2
            assert server.tables.open["t"].forwards_out == 0
        finally:
            stage.close()

    caplog.set_level(logging.INFO)
    on_a_cluster_server(redis_factory, play)
    assert raised == [1]
    errors = [r for r in caplog.records if r.levelno == logging.ERROR and r.exc_info]
    assert len(errors) == 1 and str(errors[0].exc_info[1]) == "injected"
