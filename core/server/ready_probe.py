"""What ``/readyz`` asks the store, and what it tells the store's health meanwhile.

Two tries, each shared by the ``/readyz`` requests that come while it runs (a
balancer polling every half second never stacks calls on the two store-reading
threads, even against a Redis that hangs):

* the store's ``ping`` over its own connections (the pool's), asked anew once the
  last one has answered and :data:`PING_FRESH_FOR` seconds (a tenth) have passed: a
  Redis stopped a moment ago is said within a tenth of a second, and a poller
  without a pause (asked anew at each answer, it kept one of the two reader threads
  pinging without end) costs some ten pings a second, however often it polls; a
  success is not reused past the start of an outage (as below);
* the store's ``probe_read`` — Redis's: a ``PING`` over a new connection, bounded by
  the client's timeouts — which meets what a new connection meets now. A password
  rotated while the process serves (``CONFIG SET requirepass``, ``ACL SETUSER``)
  leaves the pool's connections authenticated and refuses every new one; ``/readyz``
  judged by the pool alone answered 200, and its read that worked ended the outage
  that the clients' reads (needing new connections) began again: the outage flipped
  back and forth. A new connection's answer, whatever it was, stands for
  :data:`FRESH_FOR` seconds after it came: a new connection a second at most,
  however often ``/readyz`` is polled and whatever Redis says — a refusal reused too
  (a password refused was asked anew at each request: under a balancer's polls, or
  an attacker's, hundreds of connections a second, each left in ``TIME_WAIT``), so
  the outage's end is seen within a second. A success is not reused past the start of
  an outage begun after the try that found it (a client's read refused on a new
  connection): the next request tries anew, and only a try begun in the outage ends
  it. A store with no ``probe_read`` (SQLite) is asked its ``ping`` only.

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
import dataclasses
import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rollbridge.exceptions import StoreUnavailable
from rollbridge.server.web import in_reader

if TYPE_CHECKING:
    from rollbridge.server.app import Server

__all__ = ["FRESH_FOR", "PING_FRESH_FOR", "ReadyProbe"]

#: Seconds a new connection's answer (its success or its refusal) stands for the
#: next ``/readyz`` requests.
FRESH_FOR = 1.0

#: Seconds the pool's ping's answer stands for the next ``/readyz`` requests: a
#: poller without a pause (a thousand requests a second) costs about ten pings a
#: second, not one reader thread busy with pings.
PING_FRESH_FOR = 0.1

#: A try's end: None (the store answered) or what it raised.
Outcome = BaseException | None


@dataclasses.dataclass(eq=False, slots=True)
class _Try:
    """One try (the pool's ping, or a new connection's): its task, when it ended,
    and how many outages of the store had begun when it began (:attr:`StoreHealth.outages
    <rollbridge.server.store_health.StoreHealth.outages>`)."""

    began: int
    task: asyncio.Task[Outcome] = dataclasses.field(init=False)
    ended: float = -math.inf


class ReadyProbe:
    """The store's tries for ``/readyz`` (see the module docstring; ``clock``:
    monotonic seconds)."""

    def __init__(
        self,
        server: Server,
        *,
        fresh_for: float = FRESH_FOR,
        ping_fresh_for: float = PING_FRESH_FOR,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.server = server
        #: Seconds a new connection's answer is reused.
        self.fresh_for = fresh_for
        self._clock = clock
        #: Seconds the pool's ping's answer is reused.
        self.ping_fresh_for = ping_fresh_for
        self._ping: _Try | None = None
        self._fresh: _Try | None = None

    async def check(self, timeout: float) -> Outcome:
        """None when the store answers both tries, else the first one's error.
        :raises TimeoutError: no answer within ``timeout`` seconds (the tries go on,
        and tell the store's health how they end)."""
        store, health = self.server.store, self.server.health
        ping = self._ping = self._reuse(self._ping, store.ping, self.ping_fresh_for)
        probe = getattr(store, "probe_read", None)
        fresh = None
        if probe is not None:
            fresh = self._fresh = self._reuse(self._fresh, probe, self.fresh_for)
        async with asyncio.timeout(timeout):
            error = await asyncio.shield(ping.task)
            if error is None and self._older(ping):  # begun before this outage
                ping = self._ping = self._reuse(None, store.ping, self.ping_fresh_for)
                error = await asyncio.shield(ping.task)
            if error is None and probe is not None and fresh is not None:
                error = await asyncio.shield(fresh.task)
                if error is None and self._older(fresh):
                    fresh = self._fresh = self._reuse(None, probe, self.fresh_for)
                    error = await asyncio.shield(fresh.task)
        if error is None and (fresh is None or not self._older(fresh)):
            health.read()  # both answered, in the outage if one goes on: it ends
        return error

    def cancel(self) -> None:
        """Stop waiting for the tries under way (the server stops)."""
        for last in (self._ping, self._fresh):
            if last is not None:
                last.task.cancel()

    def _reuse(self, last: _Try | None, call: Callable[[], Any], fresh_for: float) -> _Try:
        """The try of ``call`` that stands now: ``last`` if under way, or if it ended
        less than ``fresh_for`` seconds ago (a success only if no outage began after
        it began); else one begun now."""
        if last is not None:
            if not last.task.done():
                return last
            recent = self._clock() - last.ended < fresh_for
            # a refusal stands as it is; a success, unless an outage began after it
            if (
                recent
                and not last.task.cancelled()
                and (last.task.result() is not None or not self._older(last))
            ):
                return last
        fresh = _Try(began=self.server.health.outages)
        fresh.task = asyncio.get_running_loop().create_task(self._try(call, fresh))
        return fresh

    def _older(self, fresh: _Try) -> bool:
        """Whether an outage goes on that began after ``fresh`` began."""
        health = self.server.health
        return health.failing is not None and fresh.began != health.outages

    async def _try(self, call: Callable[[], Any], fresh: _Try) -> Outcome:
        """``call`` on a reader thread; a refusal of the store as a whole is told to
        the store's health (no request was refused for it), whoever still waits."""
        outcome: Outcome = None
        try:
            await in_reader(self.server, call)
        except StoreUnavailable as exc:
            self.server.health.failed(exc, 0, commit=False)
            outcome = exc
        except Exception as exc:  # a store closed, a bug: not ready, and why
            outcome = exc
        fresh.ended = self._clock()
        return outcome
