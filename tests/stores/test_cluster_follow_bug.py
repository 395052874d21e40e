"""A bug while a ``serve --redis`` follower applies the events another process
committed (:meth:`Table.follow <rollbridge.engine.table.Table.follow>`), on a real
redis-server with a real :class:`ClusterServer`; the owner (``node-b``) is played
over Redis and really commits. Installing the followed state raises partway
(injected): the table in memory may be changed in part, so it is loaded again from
the store, and its members are sent the events they missed, once each, in order.
Before, the exception was only logged by the driver: the table's seq had moved on
in memory, so every later notice looked old, and its members never got another
event."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest

from rollbridge.engine import follow
from rollbridge.engine.table import ApplyFailed
from rollbridge.server.cluster import ClusterServer
from rollbridge.server.cluster_table import ClusterTable
from rollbridge.tokens import hash_token
from tests.server.test_server_unexpected import Once
from tests.stores.test_cluster_broken_table import Stage
from tests.stores.test_cluster_lease_memory import on_a_cluster_server


async def next_event(ws: Any) -> dict:
    """The next event the client is sent (bounded wait)."""
    async with asyncio.timeout(15):
        while (message := json.loads(await ws.recv())).get("type") != "event":
            pass
    return message


@pytest.mark.parametrize("where", ["installing", "working out"])
def test_a_bug_following_the_owners_events_reloads_and_the_members_get_them(
    redis_factory, monkeypatch, caplog, where
):
    """``installing``: the state the followed events leave raises partway
    (:class:`ApplyFailed`): the table is loaded again. ``working out``: computing that
    state raises, nothing changed: the table is read whole. Either way the members get
    each event at once, not at some later notice (the poll is off here: before, a
    bug working it out left the members without the event until the next commit)."""

    async def play(server: ClusterServer) -> None:
        stage = Stage(server)
        try:
            gm = server.store.find_token("t", hash_token(stage.token)).principal()
            async with server.redis.pipeline() as pipe:  # type: ignore[union-attr]
                pipe.set(stage.owner, "node-b", px=60_000)
                await pipe.execute()
            from websockets.asyncio.client import connect

            async with connect(server.url) as ws:
                welcome = await stage.hello(ws)
                start = welcome["seq"]
                table = server.tables.open["t"]
                assert isinstance(table, ClusterTable) and not server.ownership.owns("t")
                # the bug, once, here (node-b, played in this process, executes on
                # tables of its own: never through these)
                if where == "installing":
                    bug = Once(monkeypatch, table.table, "_keep_recent_history")
                else:
                    bug = Once(monkeypatch, follow, "replay")
                stage.node_b.handle("t", {"type": "roll", "id": "r1", "formula": "1d6"}, gm)
                first = await next_event(ws)
                assert first["seq"] == start + 1 and bug.raised == 1
                stage.node_b.handle("t", {"type": "roll", "id": "r2", "formula": "1d6"}, gm)
                second = await next_event(ws)
                assert second["seq"] == start + 2
            assert not table.broken and not table.reloading and table._holding == 0
            assert table.durable_seq == table.table.info.seq == start + 2
        finally:
            stage.close()

    caplog.set_level(logging.INFO)
    on_a_cluster_server(redis_factory, play, poll_interval=3600)
    errors = [r for r in caplog.records if r.levelno == logging.ERROR and r.exc_info]
    assert len(errors) == 1
    if where == "installing":
        assert isinstance(errors[0].exc_info[1], ApplyFailed)
        assert str(errors[0].exc_info[1].__cause__) == "injected"
    else:
        assert str(errors[0].exc_info[1]) == "injected"
