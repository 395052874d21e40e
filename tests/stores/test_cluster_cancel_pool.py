"""The server's Redis client (:class:`~rollbridge.server.cluster_cancel.CancelSafeRedis`)
on a real redis-server: a cancel at any moment of a command leaves no reply unread
on a pooled connection, and no cancel is raised that was never asked (rev25r's review
of ``CancelSafeRedis``, docs/redis.md "One owner per table").

A cancel raised after a command's reply was read (one redis-py lost) comes after the
connection went back to the pool clean; one delivered while the reply is out makes
redis-py close the connection. Either way the next command on the pool's only
connection must read its own reply, never the cancelled one's — the sweep cancels a
``GET``, a pipeline and a script at every turn of the loop from its start to its end,
with and without the lost-cancel moment of Python 3.11's ``wait_for``
(:func:`tests.stores.test_cluster_cancel._cancel_after_send`). A cancel that
``asyncio.timeout`` or a ``TaskGroup`` asked and took back is theirs: the task is
told ``TimeoutError`` or the group's error, and goes on as before.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest
import redis.asyncio as aioredis

from rollbridge.server.cluster_cancel import CancelSafeRedis
from tests.stores.test_cluster_cancel import _cancel_after_send

#: Turns of the loop a cancel is swept over (a GET on localhost ends within a few).
TURNS = 24


def _client(url: str) -> CancelSafeRedis:
    """A client of one pooled connection: each command reuses the one before's."""
    pool = aioredis.ConnectionPool.from_url(url, max_connections=1, socket_timeout=5.0)
    return CancelSafeRedis.from_pool(pool)


async def _goes_on(client: CancelSafeRedis, key: str, value: bytes) -> None:
    """The task asking was not left cancelled, and its next command reads its own
    reply."""
    task = asyncio.current_task()
    assert task is not None and task.cancelling() == 0
    assert await client.get(key) == value


async def _cancelled_after(turns: int, work: Any) -> Any:
    """``work()`` in a task cancelled after ``turns`` turns of the loop: its result,
    or the CancelledError it ended with."""
    task = asyncio.create_task(work())
    for _ in range(turns):
        await asyncio.sleep(0)
    task.cancel()
    try:
        return await task
    except asyncio.CancelledError as exc:
        return exc


@pytest.mark.parametrize("lost", [False, True], ids=["delivered", "lost-in-wait-for"])
@pytest.mark.parametrize("how", ["get", "pipeline", "script"])
def test_a_cancel_at_any_turn_leaves_no_reply_for_the_next_command(
    redis_factory: Any, monkeypatch: pytest.MonkeyPatch, how: str, lost: bool
) -> None:
    redis = redis_factory()

    async def play() -> list[str]:
        client = _client(redis.url)
        script = client.register_script("return redis.call('GET', KEYS[1])")
        seen = []
        try:
            for turn in range(TURNS):
                await client.set("cancelled", f"old-{turn}")
                await client.set("next", f"new-{turn}")

                async def work() -> Any:
                    if how == "pipeline":
                        async with client.pipeline(transaction=True) as pipe:
                            return await pipe.get("cancelled").get("cancelled").execute()
                    if how == "script":
                        return await script(keys=["cancelled"])
                    return await client.get("cancelled")

                victim: list[asyncio.Task] = []
                if lost:
                    _cancel_after_send(monkeypatch, victim)
                    task = asyncio.create_task(work())
                    victim.append(task)
                    try:
                        ended = await task
                    except asyncio.CancelledError as exc:
                        ended = exc
                    monkeypatch.undo()
                else:
                    ended = await _cancelled_after(turn, work)
                seen.append(type(ended).__name__)
                # the pool's one connection: its next command reads its own reply
                assert await client.get("next") == f"new-{turn}".encode()
                assert await client.mget(["next", "cancelled"]) == [
                    f"new-{turn}".encode(),
                    f"old-{turn}".encode(),
                ]
        finally:
            await client.aclose()
        return seen

    seen = asyncio.run(play())
    if lost:  # the lost cancel reaches the task every time
        assert set(seen) == {"CancelledError"}
    else:  # cancelled before it began at least (how far a GET gets in a turn varies)
        assert seen[0] == "CancelledError"


def test_a_timeout_around_a_command_is_a_timeout_and_the_task_goes_on(redis_factory: Any):
    """``asyncio.timeout`` cancels the task and takes the cancel back: TimeoutError,
    never a CancelledError the task did not ask for; its next commands answer."""
    redis = redis_factory()

    async def play() -> None:
        client = _client(redis.url)
        try:
            await client.set("k", "v")
            with pytest.raises(TimeoutError):
                async with asyncio.timeout(0.05):
                    await client.blpop(["empty"], timeout=0)  # held by Redis for good
            await _goes_on(client, "k", b"v")
            async with client.pipeline(transaction=True) as pipe:
                assert await pipe.get("k").execute() == [b"v"]
        finally:
            await client.aclose()

    asyncio.run(play())


def test_a_timeout_expiring_as_the_send_ends_is_a_timeout(redis_factory: Any, monkeypatch):
    """The lost cancel was asked by ``asyncio.timeout``: raised as the cancel, it
    comes out of the ``async with`` as TimeoutError (the timeout's own), and the next
    command on the pool's one connection reads its own reply."""
    redis = redis_factory()

    async def play() -> None:
        client = _client(redis.url)
        try:
            await client.set("k", "v")
            await client.set("n", "w")
            victim: list[asyncio.Task] = []
            _cancel_after_send(monkeypatch, victim)

            async def timed() -> Any:
                async with asyncio.timeout(30) as timeout:
                    task = asyncio.current_task()
                    assert task is not None
                    # the timeout's cancel, at the moment redis-py loses it
                    victim.append(_Expire(timeout))  # type: ignore[arg-type]
                    return await client.get("k")

            with pytest.raises(TimeoutError):
                await timed()
            monkeypatch.undo()
            await _goes_on(client, "n", b"w")
        finally:
            await client.aclose()

    asyncio.run(play())


class _Expire:
    """Stands in the victim list for a task: its ``cancel`` makes ``timeout`` expire
    now (the timeout then cancels its task, as its timer would)."""

    def __init__(self, timeout: asyncio.Timeout) -> None:
        self.timeout = timeout

    def cancel(self) -> None:
        # its timer firing in this very turn (asyncio's own expiry, run by hand)
        handler = self.timeout._timeout_handler  # type: ignore[attr-defined]
        if handler is not None:
            handler.cancel()
        self.timeout._on_timeout()  # type: ignore[attr-defined]


def test_a_task_group_sibling_failing_is_the_groups_error(redis_factory: Any):
    """A sibling's failure cancels the group's task during its command; the group
    takes the cancel back and raises the sibling's error, and the task goes on."""
    redis = redis_factory()

    async def play() -> None:
        client = _client(redis.url)
        try:
            await client.set("k", "v")

            async def fails() -> None:
                await asyncio.sleep(0.02)
                raise ValueError("sibling")

            with pytest.raises(ExceptionGroup) as caught:
                async with asyncio.TaskGroup() as group:
                    group.create_task(fails())
                    await client.blpop(["empty"], timeout=0)  # for good
            assert isinstance(caught.value.exceptions[0], ValueError)
            await _goes_on(client, "k", b"v")
        finally:
            await client.aclose()

    asyncio.run(play())


def test_a_command_of_a_task_cancelled_before_it_began_answers(redis_factory: Any):
    """A task that took a cancel and goes on (a stop's clean-up: ``cancelling()`` is
    1 as its commands begin) gets their answers; only a new cancel is raised."""
    redis = redis_factory()

    async def play() -> tuple[Any, Any]:
        client = _client(redis.url)
        try:
            await client.set("k", "v")

            async def cleans_up() -> Any:
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.sleep(30)  # taken, not taken back: cancelling() stays 1
                return await client.get("k"), await client.pipeline().get("k").execute()

            task = asyncio.create_task(cleans_up())
            await asyncio.sleep(0)  # (its first step: asleep)
            task.cancel()
            return await task
        finally:
            await client.aclose()

    assert asyncio.run(play()) == (b"v", [b"v"])


def test_pubsub_of_the_servers_client_still_hears(redis_factory: Any):
    """A subscription made through the client (its own connection) hears a
    publish sent through the same client."""
    redis = redis_factory()

    async def play() -> Any:
        pool = aioredis.ConnectionPool.from_url(redis.url, max_connections=2)
        client = CancelSafeRedis.from_pool(pool)
        try:
            async with client.pubsub() as pubsub:
                await pubsub.subscribe("ch")
                await client.publish("ch", "hello")
                while True:
                    message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=5)
                    if message is not None:
                        return message["data"]
        finally:
            await client.aclose()

    assert asyncio.run(play()) == b"hello"
