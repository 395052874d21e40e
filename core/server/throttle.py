"""Log lines a client can cause, at most one per interval.

A client can make the server refuse it as often as it likes — a wrong admin token
sent in a loop, connections to a full server — and a WARNING per refusal would let
it fill the operator's disk and drown every other line. A :class:`Throttle` lets a
line through at most once per ``interval`` seconds and counts the ones it held
back, so the next line says how many there were; the metrics count every one.
"""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["Throttle"]


class Throttle:
    """At most one line per ``interval`` seconds (``clock``: monotonic seconds)."""

    __slots__ = ("_clock", "_last", "held", "interval")

    def __init__(self, interval: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval = interval
        self._clock = clock
        self._last: float | None = None
        #: Lines held back since the last one let through.
        self.held = 0

    def allow(self) -> int | None:
        """None: hold this line back (counted); else let it through, and how many
        were held back since the last one (then counted from 0 again)."""
        now = self._clock()
        if self._last is not None and now - self._last < self.interval:
            self.held += 1
            return None
        self._last, held, self.held = now, self.held, 0
        return held
