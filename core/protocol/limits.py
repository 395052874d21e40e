"""Request rates, sans-I/O: a token bucket per connection and per table.

A :class:`RateLimit` holds ``burst`` tokens and gains ``rate`` per second; each
request takes one. The time comes from the clock it is given (``time.monotonic``
by default; tests pass their own), so the protocol stays free of I/O and timers.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["COSTS", "ODDS_COST", "SECONDS_PER_REQUEST", "STATS_COST", "RateLimit", "Rates"]

#: What an ``odds`` request takes from its connection's bucket, in requests: it may
#: compute for tens of milliseconds (:data:`rollbridge.odds.bounds.SERVER_BOUNDS`),
#: so a connection gets a fifth as many of them per second as of other requests.
ODDS_COST = 5.0

#: What a ``stats`` request takes from its connection's bucket: it reads the whole
#: retained log (on a reader thread) and builds the asker's view of every event.
STATS_COST = 5.0

#: The request types that cost more than one request, and what they cost.
COSTS: dict[str, float] = {"odds": ODDS_COST, "stats": STATS_COST}

#: The event loop's time one request's share of a rate pays for: a request handled
#: in longer (a roll of 999 exploding dice, ~50 ms, refused as too large or not)
#: takes one more request from its connection's rate and its table's for every
#: further such share past what it paid already (an ``odds`` request its cost's
#: five shares), so that one table cannot take the loop every table shares. The
#: time is the CPU time of the thread that handled it (:attr:`Rates.work_clock`):
#: another process, or another thread of the server, running meanwhile is not the
#: request's work.
SECONDS_PER_REQUEST = 0.005

#: How far below its cost a bucket may be and still pay it: what the floats of
#: ``rate × seconds`` lose, so that a client that waited the wait it was told is
#: not refused by a rounding error.
_SLACK = 1e-9


@dataclass(slots=True)
class RateLimit:
    """A token bucket: ``rate`` requests per second on average, ``burst`` at once.

    :param rate: tokens gained per second (> 0).
    :param burst: the most tokens held (≥ 1); a fresh bucket is full.
    :param clock: seconds, monotonic.
    """

    rate: float
    burst: float
    clock: Callable[[], float] = time.monotonic
    _tokens: float = field(init=False)
    _at: float = field(init=False)

    def __post_init__(self) -> None:
        self._tokens = self.burst
        self._at = self.clock()

    def take(self, cost: float = 1.0) -> float | None:
        """Take ``cost`` tokens (a request costs one; a costlier kind more): None when
        they were there, else the seconds until they are (nothing is taken then)."""
        now = self.clock()
        tokens = min(self.burst, self._tokens + (now - self._at) * self.rate)
        self._at = now
        if tokens >= cost - _SLACK:
            self._tokens = max(0.0, tokens - cost)
            return None
        self._tokens = tokens
        return (cost - tokens) / self.rate

    def charge_work(self, seconds: float, paid: float) -> None:
        """A request took ``seconds`` of CPU time: one more request for each share
        (:data:`SECONDS_PER_REQUEST`) past the ``paid`` it took already."""
        shares = seconds / SECONDS_PER_REQUEST
        if shares > paid:
            self.charge(shares - paid)

    def charge(self, tokens: float) -> None:
        """Take ``tokens`` more for work already done, whatever the bucket holds: it
        may go below empty (down to ``-burst``), and later requests wait until it has
        refilled."""
        now = self.clock()
        held = min(self.burst, self._tokens + (now - self._at) * self.rate)
        self._at = now
        self._tokens = max(-self.burst, held - tokens)

    def give_back(self, tokens: float) -> None:
        """Return ``tokens`` taken for a request that was then refused (never past
        ``burst``): a refused request costs nothing but what the caller keeps."""
        self._tokens = min(self.burst, self._tokens + tokens)


@dataclass(frozen=True, slots=True)
class Rates:
    """The request rates a driver allows (None: no limit).

    :param per_connection: requests per second of one connection (burst: twice it).
    :param per_table: requests per second at one table, all its clients together
        (burst: twice it).
    :param clock: the buckets' clock (seconds, monotonic).
    :param work_clock: what a request's handling is timed by for
        :data:`SECONDS_PER_REQUEST`: the CPU time of the thread that handles it
        (never the wall clock, which also counts the time the machine gave other
        processes, or the interpreter other threads, meanwhile).
    """

    per_connection: float | None = None
    per_table: float | None = None
    clock: Callable[[], float] = time.monotonic
    work_clock: Callable[[], float] = time.thread_time

    def bucket(self, rate: float | None) -> RateLimit | None:
        """A bucket for ``rate`` (one of the two), or None for no limit (None or 0)."""
        if not rate or rate != rate or rate == float("inf"):  # 0, NaN, ∞: no limit
            return None
        return RateLimit(rate, max(1.0, 2 * rate), self.clock)
