"""A bug in one turn of a ``serve --redis`` process's background loops (a real
:class:`ClusterServer` on a real redis-server): the lease keeper and the poll log it
and go on — and the poll's bug at one table costs the other tables nothing. Before,
the exception ended the loop for good, for every table (only the stop said so): no
lease was renewed any more, or no stored seq polled, no broken table loaded again,
no parked reply given up, no idle table dropped."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from websockets.asyncio.client import connect

from rollbridge.offline import TableService
from rollbridge.server.cluster import ClusterServer
from tests.server.test_server_unexpected import injected
from tests.stores.test_cluster_broken_table import answer_to
from tests.stores.test_cluster_lease_memory import on_a_cluster_server


async def joined(server: ClusterServer, table_id: str) -> Any:
    """A GM's connection to ``table_id`` (made here), welcomed."""
    service = TableService(server.store, server.host)
    _info, tokens = service.create_table("T", "bandits", table_id=table_id)
    ws = await connect(server.url)
    await ws.send(json.dumps({"type": "hello", "id": "h", "table": table_id,
                              "token": tokens["gm"]}))  # fmt: skip
    assert (await answer_to(ws, "h"))["type"] == "welcome"
    return ws


async def until(check: Any, what: str) -> None:
    """Wait (bounded) until ``check()`` holds."""
    try:
        async with asyncio.timeout(15):
            while not check():
                await asyncio.sleep(0.01)
    except TimeoutError:
        raise AssertionError(f"never: {what}") from None


def test_a_bug_keeping_a_lease_does_not_end_the_lease_keeper(redis_factory, caplog):
    renewals: list[int] = []

    async def play(server: ClusterServer) -> None:
        ws = await joined(server, "t")
        try:
            await ws.send(json.dumps({"type": "roll", "id": "r1", "formula": "1d6"}))
            assert (await answer_to(ws, "r1"))["type"] == "result"  # the lease taken here
            renew = server._renew

            async def failing_once(*, keys: list[str], args: list[Any]) -> Any:
                renewals.append(1)
                if len(renewals) == 1:
                    raise RuntimeError("injected")
                return await renew(keys=keys, args=args)

            server._renew = failing_once  # type: ignore[method-assign]
            await until(lambda: len(renewals) >= 4, "the lease is renewed after the bug")
            assert server.ownership.owns("t")
        finally:
            await ws.close()

    caplog.set_level(logging.INFO)
    # leases of 3 s, renewed each second: the one failed renewal leaves 2 s, so a
    # busy machine's late turn cannot let the lease lapse (it did with 0.3 s leases)
    on_a_cluster_server(redis_factory, play, lease_ms=3000)
    assert len(injected(caplog)) == 1


def test_a_bug_in_the_polls_sweep_does_not_end_the_poll(redis_factory, monkeypatch, caplog):
    sweeps: list[int] = []

    async def play(server: ClusterServer) -> None:
        sweep = server.sweep

        def failing_once() -> int:
            sweeps.append(1)
            if len(sweeps) == 1:
                raise RuntimeError("injected")
            return sweep()

        monkeypatch.setattr(server, "sweep", failing_once)
        await until(lambda: len(sweeps) >= 3, "the poll runs on after the bug")

    caplog.set_level(logging.INFO)
    on_a_cluster_server(redis_factory, play, poll_interval=0.02)
    assert len(injected(caplog)) == 1


def test_a_bug_polling_one_table_costs_the_others_nothing(redis_factory, monkeypatch, caplog):
    """Tables ``a`` and ``b`` are held here, in that order; following ``a``'s stored
    seq raises once: ``b``'s is followed in the same round, and ``a``'s in the next."""
    noticed: list[tuple[str, bool]] = []

    async def play(server: ClusterServer) -> None:
        first, second = await joined(server, "a"), await joined(server, "b")
        try:
            assert list(server.tables.open) == ["a", "b"]
            notice = server._notice

            def failing_once(table_id: str, epoch: int, seq: int) -> None:
                fails = table_id == "a" and not noticed
                noticed.append((table_id, fails))
                if fails:
                    raise RuntimeError("injected")
                notice(table_id, epoch, seq)

            monkeypatch.setattr(server, "_notice", failing_once)
            await until(lambda: len(noticed) >= 4, "both tables are polled again")
        finally:
            await first.close()
            await second.close()

    caplog.set_level(logging.INFO)
    on_a_cluster_server(redis_factory, play, poll_interval=0.02)
    assert noticed[:4] == [("a", True), ("b", False), ("a", False), ("b", False)]
    assert len(injected(caplog)) == 1
