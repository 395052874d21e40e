"""A ``serve --redis`` process always stops (SIGTERM, SIGINT), on a real
redis-server: its background loops (inbox, subscription, poll, leases) are cancelled
and awaited within a bound, even when one swallows its cancellation — as redis-py
can while it opens a connection, which once left a process that had just started
listening unable to stop."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import subprocess
import sys
import threading
import time
from typing import Any

import pytest
import redis
from websockets.asyncio.client import connect

from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.server import cluster
from rollbridge.server.cluster import ClusterServer
from rollbridge.stores.redis import RedisStore
from rollbridge.tokens import hash_token
from tests.stores.cluster_harness import wait_listening
from tests.stores.test_redis_serve import ENV, free_port


def _server(redis) -> tuple[ClusterServer, RedisStore]:
    store = RedisStore(redis.url, writer="node-a")
    host = PluginHost({}, environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
    return ClusterServer(store, host, port=0, redis_url=redis.url), store


def _refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
    except OSError:
        return True
    return False


def test_a_loop_that_swallows_its_cancellation_does_not_hold_the_stop(redis_factory, caplog):
    """One loop swallows two cancellations (then ends, as a loop that sees
    ``stopping`` does): the stop cancels again until it ends, and completes — the
    loop ended by the stop's cancellations, not left behind at the bound (which
    says so). Counted and seen, not timed: a wall-clock bound under STOP_TIMEOUT
    stood here."""
    server, store = _server(redis_factory())
    swallowed: list[int] = []

    async def stubborn() -> None:
        while len(swallowed) < 2:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                swallowed.append(1)  # swallowed, as a library's connect may do

    async def play() -> None:
        await server.start()
        port = server.port
        task = asyncio.get_running_loop().create_task(stubborn())
        server._loops.append(task)
        await asyncio.sleep(0.05)
        async with asyncio.timeout(60):  # a guard against a hang, nothing timed
            await server.stop()
        assert _refused(port)  # it stopped listening
        assert task.done()  # ended by the cancellations, not left behind

    caplog.set_level(logging.WARNING, logger="rollbridge.cluster")
    try:
        asyncio.run(play())
    finally:
        store.close()
    assert len(swallowed) == 2
    assert "did not stop within" not in caplog.text  # not given up at the bound
    assert server.redis is None and server._loops == []


def test_a_loop_that_never_ends_is_left_behind_after_the_bound(redis_factory, monkeypatch, caplog):
    """A loop that ignores every cancellation delays the stop by STOP_TIMEOUT, then
    the stop goes on without it (the port closed, Redis let go) and says so."""
    monkeypatch.setattr(cluster, "STOP_TIMEOUT", 0.5)
    server, store = _server(redis_factory())

    released: list[bool] = []

    async def deaf() -> None:
        # only the test lets it go, at the end: a stop that waited for it would hang
        # until the guard below (a guard, nothing timed: that the stop ended with the
        # loop still running is what shows it was left behind)
        while not released:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                continue

    async def play() -> None:
        await server.start()
        port = server.port
        task = asyncio.get_running_loop().create_task(deaf())
        server._loops.append(task)
        await asyncio.sleep(0.05)
        try:
            async with asyncio.timeout(60):  # a guard against a hang
                await server.stop()
            assert _refused(port)
            assert not task.done()  # left behind
        finally:
            released.append(True)
            task.cancel()
            await task

    caplog.set_level(logging.WARNING, logger="rollbridge.cluster")
    try:
        asyncio.run(play())
    finally:
        store.close()
    assert "did not stop within 0.5 s" in caplog.text
    assert server.redis is None


def test_serve_stopped_right_after_it_listens_exits_every_time(redis_factory):
    """The failure as it was found: SIGTERM as soon as ``serve --redis`` listens
    (its loops still opening their Redis connections) left, about one time in ten,
    a process that never exited. Fifteen starts and stops, each within 10 s."""
    redis = redis_factory("--appendonly", "no")
    for attempt in range(15):
        port = free_port()
        process = subprocess.Popen(
            [sys.executable, "-m", "rollbridge", "serve", "--port", str(port), "--redis",
             redis.url, "--no-demo", "--redis-unsafe"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV,
        )  # fmt: skip
        try:
            wait_listening(process, port, timeout=20)
            process.terminate()
            _out, err = process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            pytest.fail(f"serve did not exit within 10 s of SIGTERM (start {attempt + 1})")
        assert process.returncode == 0, err
        assert "Traceback" not in err


def test_a_read_that_finishes_during_the_stop_takes_no_lease(redis_factory):
    """A read of a table this process follows (no process owns it) finishes while the
    process stops — after its readers are shut down, the leases it held given up —
    with a change held behind it: the change is forwarded, nobody holds the lease,
    and a process that is stopping must not take it (before, it did: the table had
    an owner gone for one lease length, every other process's change waiting on it).
    The read here is a repeat's stored reply; a reload's held changes go the same
    way."""
    redis_server = redis_factory()
    server, store = _server(redis_server)
    service = TableService(store, server.host)
    _info, tokens = service.create_table("T", "bandits", table_id="t")
    gm = store.find_token("t", hash_token(tokens["gm"])).principal()
    service.handle("t", {"type": "roll", "id": "r1", "formula": "1d6"}, gm)  # stored
    gate = threading.Event()
    reply = store.reply

    def held(*args: Any) -> Any:  # the repeat's lookup waits for the stop
        gate.wait(30)
        return reply(*args)

    store.reply = held  # type: ignore[method-assign]
    owner_key = server.keys.table("t").owner

    async def play() -> None:
        await server.start()
        reader = server._reader
        assert reader is not None
        shutdown = reader.shutdown

        def at_shutdown(*args: Any, **kwargs: Any) -> None:  # the read ends in the stop
            gate.set()
            shutdown(*args, **kwargs)

        reader.shutdown = at_shutdown  # type: ignore[method-assign]
        async with connect(server.url) as ws:
            await ws.send(json.dumps({"type": "hello", "id": "h", "table": "t",
                                      "token": tokens["gm"]}))  # fmt: skip
            assert json.loads(await ws.recv())["type"] == "welcome"
            for request_id in ("r1", "r2"):  # r1's reply is looked up, r2 held behind it
                await ws.send(json.dumps({"type": "roll", "id": request_id, "formula": "1d6"}))
            protocol = server.tables.open["t"]
            async with asyncio.timeout(10):
                while not (protocol._holding == 1 and len(protocol._held) == 1):
                    await asyncio.sleep(0.001)
            assert not server.ownership.owned
            async with asyncio.timeout(cluster.STOP_TIMEOUT + 10):
                await server.stop()
        left = list(server._tasks)  # a forward made during the stop, let it end
        if left:
            await asyncio.wait(left, timeout=10)

    try:
        asyncio.run(play())
    finally:
        store.close()
    admin = redis.Redis.from_url(redis_server.url)
    try:
        assert admin.get(owner_key) is None  # no lease taken by the stopped process
    finally:
        admin.close()


def test_a_forward_cancelled_by_the_stop_while_taking_the_lease_releases_it(redis_factory):
    """A change forwarded for a table nobody runs takes its lease (:data:`TAKE`); the
    process stops while that call is out — Redis took the lease, its answer not read
    yet — and the stop cancels the forward: the lease is released with the others
    (only if it is this process's), and a second process serves the table at once.
    Before, nothing here knew the lease was taken: it stayed with the stopped
    process for a whole lease (here 60 s), and the other process's change waited
    for an owner gone, then failed (``no_owner``)."""
    redis_server = redis_factory()
    host = PluginHost({}, environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
    store_a = RedisStore(redis_server.url, writer="node-a")
    store_b = RedisStore(redis_server.url, writer="node-b")
    a = ClusterServer(store_a, host, port=0, redis_url=redis_server.url, lease_ms=60_000)
    b = ClusterServer(store_b, host, port=0, redis_url=redis_server.url, lease_ms=60_000,
                      forward_timeout=3)  # fmt: skip
    _info, tokens = TableService(store_a, host).create_table("T", "bandits", table_id="t")
    owner_key = a.keys.table("t").owner
    watch = redis.Redis.from_url(redis_server.url)

    async def roll(server: ClusterServer, request_id: str) -> dict:
        async with connect(server.url) as ws:
            await ws.send(json.dumps({"type": "hello", "id": "h", "table": "t",
                                      "token": tokens["gm"]}))  # fmt: skip
            assert json.loads(await ws.recv())["type"] == "welcome"
            await ws.send(json.dumps({"type": "roll", "id": request_id, "formula": "1d6"}))
            while (message := json.loads(await ws.recv())).get("id") != request_id:
                pass
            return message

    async def play() -> dict:
        await a.start()
        take = a._take
        taken = asyncio.Event()

        async def unanswered(*, keys: list[str], args: list[Any]) -> Any:
            result = await take(keys=keys, args=args)  # Redis took the lease
            taken.set()
            await asyncio.Event().wait()  # and its answer is not read before the stop
            return result

        a._take = unanswered  # type: ignore[method-assign]
        async with connect(a.url) as ws:
            await ws.send(json.dumps({"type": "hello", "id": "h", "table": "t",
                                      "token": tokens["gm"]}))  # fmt: skip
            assert json.loads(await ws.recv())["type"] == "welcome"
            await ws.send(json.dumps({"type": "roll", "id": "r1", "formula": "1d6"}))
            async with asyncio.timeout(10):
                await taken.wait()
            assert watch.get(owner_key) == b"node-a"
            async with asyncio.timeout(cluster.STOP_TIMEOUT + 10):
                await a.stop()
        assert not a.ownership.owned
        assert watch.get(owner_key) is None  # released by the stop
        await b.start()
        try:
            async with asyncio.timeout(20):
                return await roll(b, "r1")
        finally:
            await b.stop()

    try:
        answer = asyncio.run(play())
    finally:
        store_a.close()
        store_b.close()
        watch.close()
    assert answer["type"] == "result" and answer["seq"] == 1, answer


def test_a_lease_being_given_up_when_the_stop_cancels_it_is_released(redis_factory):
    """The lease keeper gives up the lease of a table unused here; the stop cancels
    that call before Redis ran it: the stop releases that lease too. Before, the
    table was no longer counted as this process's (given up before the call), so the
    stop did not release it: the lease stayed with the stopped process for a whole
    lease (here 60 s)."""
    redis_server = redis_factory()
    host = PluginHost({}, environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
    store = RedisStore(redis_server.url, writer="node-a")
    server = ClusterServer(store, host, port=0, redis_url=redis_server.url, lease_ms=60_000)
    _info, tokens = TableService(store, host).create_table("T", "bandits", table_id="t")
    owner_key = server.keys.table("t").owner
    watch = redis.Redis.from_url(redis_server.url)

    async def play() -> None:
        await server.start()
        async with connect(server.url) as ws:  # a change: this process takes the table
            await ws.send(json.dumps({"type": "hello", "id": "h", "table": "t",
                                      "token": tokens["gm"]}))  # fmt: skip
            assert json.loads(await ws.recv())["type"] == "welcome"
            await ws.send(json.dumps({"type": "roll", "id": "r1", "formula": "1d6"}))
            assert json.loads(await ws.recv())["type"] in ("event", "result")
        assert server.ownership.owns("t") and watch.get(owner_key) == b"node-a"
        release = server._release
        asked = asyncio.Event()

        async def unsent(*, keys: list[str], args: list[Any]) -> Any:
            if not asked.is_set():  # the give-up's: not sent before the stop
                asked.set()
                await asyncio.Event().wait()
            return await release(keys=keys, args=args)

        server._release = unsent  # type: ignore[method-assign]
        giving_up = asyncio.get_running_loop().create_task(
            server._give_up("t", server.tables.open.get("t"))  # type: ignore[arg-type]
        )
        server._loops.append(giving_up)  # as the lease keeper's loop, which runs it
        async with asyncio.timeout(10):
            await asked.wait()
        assert not server.ownership.owns("t")
        async with asyncio.timeout(cluster.STOP_TIMEOUT + 10):
            await server.stop()

    try:
        asyncio.run(play())
        assert watch.get(owner_key) is None  # released by the stop
    finally:
        store.close()
        watch.close()


def test_a_stopped_process_leaves_no_key_of_its_own(redis_factory):
    """A process's own keys — its inbox, its replies list, the mark of its lease
    protocol (docs/redis.md) — are gone once it stopped; only a killed process's
    run out (after their leases)."""
    server_redis = redis_factory()
    server, store = _server(server_redis)
    client = redis.Redis.from_url(server_redis.url)

    async def play() -> tuple[list[bytes], list[bytes]]:
        await server.start()
        mine = f"*node:{server.node}:*"
        deadline = time.monotonic() + 10
        while not client.keys(mine) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)  # the mark is set as the process claims its settings
        running = client.keys(mine)
        await server.stop()
        return running, client.keys(mine)

    try:
        running, stopped = asyncio.run(play())
    finally:
        store.close()
        client.close()
    assert any(key.endswith(b":lease_protocol") for key in running), running
    assert stopped == []
