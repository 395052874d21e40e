"""What ``/readyz`` asks the store, and what it tells the store's health meanwhile.

Two tries, each shared by the ``/readyz`` requests that come while it runs (a
balancer polling every half second never stacks calls on the two store-reading
threads, even against a Redis that hangs):

* the store's ``ping`` over its own connections (the pool's), asked anew for each
  request once the last one has answered: a Redis stopped a moment ago is said at
  once;
* the store's ``probe_read`` — Redis's: a ``PING`` over a new connection, bounded by
  the client's timeouts — which meets what a new connection meets now. A password
  rotated while the process serves (``CONFIG SET requirepass``, ``ACL SETUSER``)
  leaves the pool's connections authenticated and refuses every new one; ``/readyz``
  judged by the pool alone answered 200, and its read that worked ended the outage
  that the clients' reads (needing new connections) began again: the outage flipped
  back and forth. A new connection's answer that worked is reused for
  :data:`FRESH_FOR` seconds (a connection a second at most, however often
  ``/readyz`` is polled); a refusal is not, so the outage's end is seen at the next
  request. A store with no ``probe_read`` (SQLite) is asked its ``ping`` only.

Each try tells :attr:`Server.health <rollbridge.server.app.Server.health>` what it
found when it ends, also after the ``/readyz`` that began it stopped waiting: a Redis
that accepts connections and never answers (a process stopped with SIGSTOP, a host
whose network drops packets) fails the try once the client's timeout passes, and the
outage is logged and counted (``rollbridge_store_failing`` 1) — before, ``/readyz``
answered "slow" and the gauge stayed 0. Only both tries answering end an outage in
which only reads failed.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rollbridge.exceptions import StoreUnavailable
from rollbridge.server.web import in_reader

if TYPE_CHECKING:
    from rollbridge.server.app import Server

__all__ = ["FRESH_FOR", "ReadyProbe"]

#: Seconds a new connection's answer that worked stands for the next ``/readyz``.
FRESH_FOR = 1.0

#: A try's end: None (the store answered) or what it raised.
Outcome = BaseException | None


class ReadyProbe:
    """The store's tries for ``/readyz`` (see the module docstring; ``clock``:
    monotonic seconds)."""

    def __init__(
        self,
        server: Server,
        *,
        fresh_for: float = FRESH_FOR,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.server = server
        #: Seconds a new connection's answer that worked is reused.
        self.fresh_for = fresh_for
        self._clock = clock
        self._ping: asyncio.Task[Outcome] | None = None
        self._fresh: asyncio.Task[Outcome] | None = None
        self._fresh_at = -math.inf

    async def check(self, timeout: float) -> Outcome:
        """None when the store answers both tries, else the first one's error.
        :raises TimeoutError: no answer within ``timeout`` seconds (the tries go on,
        and tell the store's health how they end)."""
        store = self.server.store
        if self._ping is None or self._ping.done():
            self._ping = self._start(store.ping)
        ping = self._ping
        fresh: asyncio.Task[Outcome] | None = None
        probe = getattr(store, "probe_read", None)
        if probe is not None:
            stale = self._clock() - self._fresh_at >= self.fresh_for
            if self._fresh is None or (self._fresh.done() and stale):
                self._fresh = self._start(probe, fresh=True)
            fresh = self._fresh
        async with asyncio.timeout(timeout):
            error = await asyncio.shield(ping)
            if error is None and fresh is not None:
                error = await asyncio.shield(fresh)
        if error is None:
            self.server.health.read()  # both answered: an outage of reads ends
        return error

    def cancel(self) -> None:
        """Stop waiting for the tries under way (the server stops)."""
        for task in (self._ping, self._fresh):
            if task is not None:
                task.cancel()

    def _start(self, call: Callable[[], Any], *, fresh: bool = False) -> asyncio.Task[Outcome]:
        return asyncio.get_running_loop().create_task(self._try(call, fresh))

    async def _try(self, call: Callable[[], Any], fresh: bool) -> Outcome:
        """``call`` on a reader thread; a refusal of the store as a whole is told to
        the store's health (no request was refused for it), whoever still waits."""
        try:
            await in_reader(self.server, call)
        except StoreUnavailable as exc:
            self.server.health.failed(exc, 0, commit=False)
            self._fresh_at = -math.inf if fresh else self._fresh_at
            return exc
        except Exception as exc:  # a store closed, a bug: not ready, and why
            self._fresh_at = -math.inf if fresh else self._fresh_at
            return exc
        if fresh:
            self._fresh_at = self._clock()
        return None
