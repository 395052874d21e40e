"""A cancel that reaches the caller of a Redis command (rollbridge.server.cluster,
docs/redis.md "One owner per table").

Where it was lost: redis-py sends every command under
``asyncio.wait_for(self._send_packed_command(…), socket_timeout)``
(``redis.asyncio.connection.Connection.send_packed_command``). On Python 3.11 a task
cancelled in the moment that send finished — the cancel delivered to ``wait_for``'s
waiter after the send's result was set — gets the send's result from ``wait_for``
instead of its ``CancelledError`` (CPython gh-86296; ``wait_for`` is rewritten in
3.12): the command goes on, its reply is read and returned, and the caller never
learns it was cancelled — a forward whose client left, or one a stop cancelled, went
on to take a lease; a lease reader went on reading. The task's count of cancels asked
(``Task.cancelling``) still says so, since nothing took the cancel back: the client
here compares it before and after each command (and each pipeline) and raises the
``CancelledError`` itself. :func:`within` waits on a future with a timeout without
``wait_for``'s loss of a cancel, and without cancelling the future.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

import redis.asyncio as aioredis
from redis.asyncio.client import Pipeline

__all__ = ["CancelSafeRedis", "within"]

T = TypeVar("T")


async def _passed_on(awaitable: Awaitable[T]) -> T:
    """``await awaitable``; a cancel of this task that was asked meanwhile and lost
    on the way (its result returned instead, or the command's error raised: a
    script's ``NOSCRIPT`` after Redis restarted, which redis-py's script answers by
    loading it and running it again) raised here, as it was asked."""
    task = asyncio.current_task()
    asked = task.cancelling() if task is not None else 0
    try:
        result = await awaitable
    except Exception as exc:  # the reply an error (a script Redis lost, a refusal…):
        if task is not None and task.cancelling() > asked:  # the cancel came first
            raise asyncio.CancelledError from exc  # (else dropped: the next compares to it)
        raise
    if task is not None and task.cancelling() > asked:
        raise asyncio.CancelledError  # swallowed by Python 3.11's wait_for in redis-py
    return result


class CancelSafePipeline(Pipeline):
    """redis-py's pipeline whose ``execute`` passes a lost cancel on."""

    async def execute(self, raise_on_error: bool = True) -> list[Any]:
        """Send the queued commands (:meth:`redis.asyncio.client.Pipeline.execute`).

        :raises asyncio.CancelledError: this task was cancelled meanwhile."""
        return await _passed_on(super().execute(raise_on_error))


class CancelSafeRedis(aioredis.Redis):
    """redis-py's asyncio client whose commands, scripts and pipelines pass a cancel
    of their task on to their caller, also one lost inside redis-py."""

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        """Run one command (:meth:`redis.asyncio.Redis.execute_command`).

        :raises asyncio.CancelledError: this task was cancelled meanwhile."""
        return await _passed_on(super().execute_command(*args, **options))

    def pipeline(self, transaction: bool = True, shard_hint: str | None = None) -> Pipeline:
        """A pipeline (:meth:`redis.asyncio.Redis.pipeline`) that passes a cancel on."""
        return CancelSafePipeline(
            self.connection_pool, self.response_callbacks, transaction, shard_hint
        )


async def within(future: asyncio.Future[T], seconds: float) -> T:
    """``future``'s result once it is done, within ``seconds`` — as
    ``asyncio.wait_for(asyncio.shield(future), seconds)``, but a cancel of the
    caller arriving as the future finishes is raised, never exchanged for its result
    (Python 3.11's ``wait_for``), and the future is never cancelled.

    :raises TimeoutError: it was not done in time (it goes on).
    :raises asyncio.CancelledError: the caller was cancelled."""
    done, _pending = await asyncio.wait({future}, timeout=max(0.0, seconds))
    if not done:
        raise TimeoutError
    return future.result()
