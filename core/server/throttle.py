"""Log lines a client can cause, at most one per interval.

A client can make the server refuse it as often as it likes — a wrong admin token
sent in a loop, connections to a full server — and a WARNING per refusal would let
it fill the operator's disk and drown every other line. A :class:`Throttle` lets a
line through at most once per ``interval`` seconds and counts the ones it held
back, so the next line says how many there were; the metrics count every one.

A store that is down does the same to a loop that calls it again and again (the
cluster's inbox, several times a second): :class:`Retried` logs such a loop's first
failure, at most one line per interval while it goes on, and one when it works again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from rollbridge.stores.redis_causes import redis_words
from rollbridge.words import counted

__all__ = ["Retried", "Throttle"]


class Throttle:
    """At most one line per ``interval`` seconds (``clock``: monotonic seconds)."""

    __slots__ = ("_clock", "_last", "held", "interval")

    def __init__(self, interval: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval = interval
        self._clock = clock
        self._last: float | None = None
        #: Lines held back since the last one let through.
        self.held = 0

    @property
    def last(self) -> float | None:
        """When (on its clock) a line was last let through; None: never."""
        return self._last

    def allow(self) -> int | None:
        """None: hold this line back (counted); else let it through, and how many
        were held back since the last one (then counted from 0 again)."""
        now = self._clock()
        if self._last is not None and now - self._last < self.interval:
            self.held += 1
            return None
        self._last, held, self.held = now, self.held, 0
        return held


class Retried:
    """The log of a loop that calls the store again and again (the cluster's inbox,
    its subscription, its polls; the check for revoked tokens): while the store is
    down each call fails, several times a second. The first failure is logged, then
    at most one line per ``interval`` seconds saying how many failed since, and one
    line when a call works again.

    :param log: the logger; ``level`` the level of the failure lines.
    :param what: what failed, as the lines name it (``reading the inbox``).
    :param advice: what an error means and what to check, with the library's words
        as its detail (:func:`rollbridge.server.redis_advice.advice`); without it,
        the error's own words.
    """

    __slots__ = (
        "_advice", "_clock", "_interval", "_kind", "_log", "_throttle", "failures", "level",
        "what",
    )  # fmt: skip

    def __init__(
        self,
        log: logging.Logger,
        what: str,
        *,
        level: int = logging.WARNING,
        interval: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
        advice: Callable[[BaseException], str] | None = None,
    ) -> None:
        self._log = log
        self.what = what
        self._advice = advice
        self.level = level
        self._interval, self._clock = interval, clock
        self._throttle = Throttle(interval, clock)
        #: Calls failed since the last that worked.
        self.failures = 0
        #: The kind (type) of the failure last logged: another kind is logged at once.
        self._kind = ""

    def failed(self, error: BaseException, detail: str = "") -> None:
        """A call failed with ``error`` (``detail``: more of what it did, a table)."""
        self.failures += 1
        kind = type(error).__name__
        if self.failures == 1 or kind != self._kind:
            # a new outage, or a failure of another kind (Redis back but refusing the
            # password): its first line is never held back
            self._throttle = Throttle(self._interval, self._clock)
        self._kind = kind
        held = self._throttle.allow()
        if held is None:
            return
        what = f"{self.what} {detail}".rstrip()
        said = redis_words(error) if self._advice is None else self._advice(error)
        if self.failures == 1:
            line = "%s: %s" if self._advice is None else "%s failed: %s"
            self._log.log(self.level, line, what, said)
        else:
            self._log.log(self.level, "%s: still failing (%d times since it began): %s",
                          what, self.failures, said)  # fmt: skip

    def worked(self) -> None:
        """A call worked: after failures, one line says so."""
        if self.failures:
            failures, self.failures = self.failures, 0
            self._log.info("%s works again, after %s", self.what, counted(failures, "failure"))
