"""A cancel of a task whose Redis command is out reaches it (rollbridge.server.
cluster_cancel, docs/redis.md "One owner per table"), on a real redis-server.

Where it was lost: redis-py sends a command under ``asyncio.wait_for`` with its
socket timeout; on Python 3.11 a task cancelled in the moment the send finished got
the send's result instead of its ``CancelledError``, and the command went on — its
reply read and returned, the caller none the wiser (a forward whose client had left
went on to take a lease). The test cancels the task at exactly that moment: the
connection's send, as redis-py runs it, followed by the cancel of the task waiting
on it (:func:`_cancel_after_send`; nothing else of redis-py is changed)."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest
import redis.asyncio as aioredis
from redis.asyncio.connection import Connection

from rollbridge.host import PluginHost
from rollbridge.server.cluster import ClusterServer
from rollbridge.server.cluster_cancel import CancelSafeRedis, within
from rollbridge.stores.redis import RedisStore
from tests.server.conftest import TEST_LIMITS


def _cancel_after_send(monkeypatch: pytest.MonkeyPatch, victim: list[asyncio.Task]) -> None:
    """Each command's send, once it finished, cancels ``victim[0]`` (the task whose
    command it is) before ``wait_for`` hands the send's result back."""
    sent = Connection._send_packed_command

    async def send_then_cancel(self: Connection, command: Any) -> None:
        await sent(self, command)
        if victim:
            victim.pop().cancel()

    monkeypatch.setattr(Connection, "_send_packed_command", send_then_cancel)


async def _command(client: aioredis.Redis, monkeypatch: pytest.MonkeyPatch, how: str) -> Any:
    """Run ``GET k`` (or a pipeline of it) in a task cancelled as its send ends: what
    the task ended with (its result, or the CancelledError)."""
    victim: list[asyncio.Task] = []
    _cancel_after_send(monkeypatch, victim)

    async def run() -> Any:
        if how == "pipeline":
            async with client.pipeline(transaction=False) as pipe:
                return await pipe.get("k").execute()
        return await client.get("k")

    task = asyncio.create_task(run())
    victim.append(task)
    try:
        return await task
    except asyncio.CancelledError as exc:
        return exc
    finally:
        monkeypatch.undo()


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="Python 3.12's wait_for loses none")
def test_redis_py_alone_loses_the_cancel_on_python_3_11(redis_factory: Any, monkeypatch):
    """The fault itself, as the server met it: the task returns the reply."""
    redis = redis_factory()

    async def play() -> Any:
        client = aioredis.Redis.from_url(redis.url)
        try:
            await client.set("k", "v")
            return await _command(client, monkeypatch, "get")
        finally:
            await client.aclose()

    assert asyncio.run(play()) == b"v"


@pytest.mark.parametrize("how", ["get", "pipeline"])
def test_the_servers_redis_client_passes_the_cancel_on(redis_factory: Any, monkeypatch, how):
    """The client a ``serve --redis`` process runs its forwards, leases and lease
    reads on: the cancel reaches the task (before, on Python 3.11, the reply did)."""
    redis = redis_factory()

    async def play() -> Any:
        store = RedisStore(redis.url, writer="node-a")
        server = ClusterServer(store, PluginHost(), port=0, redis_url=redis.url,
                               limits=TEST_LIMITS)  # fmt: skip
        await server.start()
        try:
            assert server.redis is not None
            await server.redis.set("k", "v")
            return await _command(server.redis, monkeypatch, how)
        finally:
            await server.stop()
            store.close()

    assert isinstance(asyncio.run(play()), asyncio.CancelledError)


def test_a_client_of_its_own_still_answers_and_times_out_as_before(redis_factory: Any):
    redis = redis_factory()

    async def play() -> None:
        client = CancelSafeRedis.from_url(redis.url)
        try:
            await client.set("k", "v")
            assert await client.get("k") == b"v"
            async with client.pipeline(transaction=True) as pipe:
                assert await pipe.get("k").incr("n").execute() == [b"v", 1]
            future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
            with pytest.raises(TimeoutError):
                await within(future, 0.05)
            assert not future.cancelled()  # it goes on
            future.set_result(3)
            assert await within(future, 0.05) == 3
        finally:
            await client.aclose()

    asyncio.run(play())


def test_within_raises_a_cancel_arriving_as_the_future_finishes():
    """Python 3.11's ``wait_for(shield(f))`` gives ``f``'s result to a caller
    cancelled as ``f`` finishes; :func:`within` raises the cancel."""

    async def play() -> Any:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[int] = loop.create_future()
        waiter = asyncio.create_task(within(future, 5))
        await asyncio.sleep(0)
        future.set_result(1)
        waiter.cancel()  # in the same turn: both come to the waiter at once
        try:
            return await waiter
        except asyncio.CancelledError as exc:
            return exc

    assert isinstance(asyncio.run(play()), asyncio.CancelledError)


@pytest.mark.parametrize("how", ["script", "refused"])
def test_a_lost_cancel_of_a_command_that_fails_is_raised_not_its_error(
    redis_factory: Any, monkeypatch, how
):
    """The cancel lost in the send of a command whose reply is an error: the error
    was raised and the cancel dropped — counted before the next command began, so
    no later comparison saw it. A script Redis no longer holds (restarted, ``SCRIPT
    FLUSH``) is loaded and run again by redis-py: the task got the script's answer
    (``how="script"``); a refused command gave its ``ResponseError``, which a
    forward's loop takes for a Redis failure and goes on."""
    redis = redis_factory()

    async def play() -> Any:
        client = CancelSafeRedis.from_url(redis.url)
        script = client.register_script("return redis.call('GET', KEYS[1])")
        try:
            await client.set("k", "v")
            assert await script(keys=["k"]) == b"v"
            await client.script_flush()  # as after Redis restarted
            victim: list[asyncio.Task] = []
            _cancel_after_send(monkeypatch, victim)

            async def run() -> Any:
                if how == "script":
                    return await script(keys=["k"])
                return await client.incr("k")  # not a number: refused

            task = asyncio.create_task(run())
            victim.append(task)
            try:
                return await task
            except (asyncio.CancelledError, Exception) as exc:
                return exc
            finally:
                monkeypatch.undo()
        finally:
            await client.aclose()

    assert isinstance(asyncio.run(play()), asyncio.CancelledError)
