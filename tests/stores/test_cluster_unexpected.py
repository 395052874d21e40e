"""A bug in what follows a forward on a ``serve --redis`` process (a real
:class:`ClusterServer` on a real redis-server, a real client): the change is answered
``internal`` once, its traceback logged once, and the table goes on — before, the
exception ended the forward's task: the change was never answered and the table was
not settled."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Any

from websockets.asyncio.client import connect

from rollbridge.offline import TableService
from rollbridge.server.cluster import ClusterServer
from rollbridge.server.cluster_table import ClusterTable
from tests.stores.test_cluster_broken_table import answer_to
from tests.stores.test_cluster_lease_memory import on_a_cluster_server


async def taken_over(server: ClusterServer, inject: Callable[[], None]) -> tuple[dict, dict]:
    """A GM joins table ``t`` (made here), ``inject`` runs, and the GM sends change x,
    which nobody runs (this process takes the table over), then change y: the answers
    to x and y."""
    service = TableService(server.store, server.host)
    _info, tokens = service.create_table("T", "bandits", table_id="t")
    async with connect(server.url) as ws:
        await ws.send(json.dumps({"type": "hello", "id": "h", "table": "t",
                                  "token": tokens["gm"]}))  # fmt: skip
        assert (await answer_to(ws, "h"))["type"] == "welcome"
        inject()
        async with asyncio.timeout(20):
            await ws.send(json.dumps({"type": "roll", "id": "x", "formula": "1d6"}))
            failed = await answer_to(ws, "x")
            await ws.send(json.dumps({"type": "roll", "id": "y", "formula": "1d6"}))
            return failed, await answer_to(ws, "y")


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
        # nobody runs the table: this process takes it over, and the reload raises
        failed, done = await taken_over(server, lambda: monkeypatch.setattr(
            ClusterTable, "_reload", failing))  # fmt: skip
        assert failed["type"] == "error" and failed["code"] == "internal"
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


def test_a_bug_taking_in_a_reloaded_table_is_a_failed_reload_tried_again(
    redis_factory, monkeypatch, caplog
):
    """A takeover's reload reads the table, and taking it in raises (a bug, here in
    its reply keys): a failed reload — the change held for it answered, the table
    broken, and the next change loads it again and runs. Before, the exception came
    after the load had let go of its hold, and escaped the catch-up's: the table was
    held for good, marked reloading (so never loaded again), the change never
    answered."""
    from rollbridge.protocol import table as protocol_table
    from tests.server.test_server_unexpected import Once, injected

    async def play(server: ClusterServer) -> None:
        bugs: list[Once] = []
        failed, done = await taken_over(
            server, lambda: bugs.append(Once(monkeypatch, protocol_table, "KeySet"))
        )
        assert failed["type"] == "error" and failed["code"] == "store_error"
        assert done["type"] == "result" and done["seq"] == 1 and bugs[0].raised == 1
        table = server.tables.open["t"]
        assert isinstance(table, ClusterTable)
        assert not table.broken and not table.reloading and table._holding == 0

    caplog.set_level(logging.INFO)
    on_a_cluster_server(redis_factory, play)
    assert len(injected(caplog)) == 1


def test_a_bug_charging_a_forwarded_change_s_work_still_answers_it(
    redis_factory, monkeypatch, caplog
):
    """``node-b`` (played over Redis) runs a change forwarded to it and answers with
    the CPU time it took; charging that time here to the rate of the connection that
    sent it raises (a bug): logged once, and the change is answered all the same.
    Before, the exception ended the forward's task: the change was never answered."""
    from rollbridge.engine.model import Principal
    from rollbridge.plain import pack, unpack
    from rollbridge.protocol.limits import RateLimit
    from rollbridge.text import stored
    from tests.server.test_server_unexpected import Once, injected
    from tests.stores.test_cluster_broken_table import Stage

    bugs: list[Once] = []

    async def play(server: ClusterServer) -> None:
        stage = Stage(server)
        try:
            async with connect(server.url) as ws:
                await stage.redis.set(stage.owner, "node-b", px=60_000)
                await stage.hello(ws)
                async with asyncio.timeout(20):
                    await ws.send(json.dumps({"type": "roll", "id": "r1", "formula": "1d6"}))
                    popped = await stage.redis.blpop([stage.inbox_b], timeout=10)
                    assert popped is not None, "nothing forwarded to the owner"
                    body = unpack(popped[1])
                    fields = stage.node_b.handle("t", body["message"], Principal(*body["who"]))
                    bugs.append(Once(monkeypatch, RateLimit, "charge_work"))
                    result = {"type": "result", "id": "r1", **fields}
                    await stage.redis.rpush(server.replies, pack(
                        {"fid": body["fid"], "message": result, "work": 1.0}, stored))  # fmt: skip
                    done = await answer_to(ws, "r1")
            assert done["type"] == "result" and done["seq"] == fields["seq"]
            assert server.tables.open["t"].forwards_out == 0
        finally:
            stage.close()

    caplog.set_level(logging.INFO)
    on_a_cluster_server(redis_factory, play)
    assert bugs[0].raised == 1 and len(injected(caplog)) == 1
