"""Request rates, sans-I/O: a token bucket per connection, per table and per
client address.

A :class:`RateLimit` holds ``burst`` tokens and gains ``rate`` per second; each
request takes one. The time comes from the clock it is given (``time.monotonic``
by default; tests pass their own), so the protocol stays free of I/O and timers.
:class:`Buckets` keeps one per client address, the most recently used
:data:`MOST_ADDRESSES` of them; :class:`WrongTokens` is the throttle of wrong
tokens per address built on :class:`PenaltyBuckets`, which forget first the
addresses whose buckets hold nothing, so that a flood of addresses cannot clear a
penalty.
"""

from __future__ import annotations

import heapq
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "CHECKING_WAIT",
    "COSTS",
    "MOST_ADDRESSES",
    "ODDS_COST",
    "SECONDS_PER_REQUEST",
    "STATS_COST",
    "WRONG_TOKENS_WINDOW",
    "Buckets",
    "PenaltyBuckets",
    "RateLimit",
    "Rates",
    "TokenRefusal",
    "TokensRefused",
    "WrongTokens",
]

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

    def wait(self, cost: float = 1.0) -> float | None:
        """What :meth:`take` of ``cost`` would answer now, taking nothing."""
        tokens = min(self.burst, self._tokens + (self.clock() - self._at) * self.rate)
        return None if tokens >= cost - _SLACK else (cost - tokens) / self.rate

    def full_at(self) -> float:
        """When (on its clock) the bucket is full again, if nothing more is taken: a
        bucket full again holds nothing a fresh one would not."""
        return self._at + max(0.0, self.burst - self._tokens) / self.rate

    def charge_work(self, seconds: float, paid: float, below: float | None = None) -> None:
        """A request took ``seconds`` of CPU time: one more request for each share
        (:data:`SECONDS_PER_REQUEST`) past the ``paid`` it took already (``below``:
        see :meth:`charge`)."""
        shares = seconds / SECONDS_PER_REQUEST
        if shares > paid:
            self.charge(shares - paid, below)

    def charge(self, tokens: float, below: float | None = None) -> None:
        """Take ``tokens`` more for work already done, whatever the bucket holds: it
        may go below empty, down to ``-below`` (None: ``-burst``; ``math.inf``: all of
        it), and later requests wait until it has refilled."""
        now = self.clock()
        held = min(self.burst, self._tokens + (now - self._at) * self.rate)
        self._at = now
        self._tokens = max(-(self.burst if below is None else below), held - tokens)

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


#: The most client addresses a :class:`Buckets` keeps a bucket for: a flood of
#: addresses (an IPv6 client's many /64s, a botnet) cannot grow the server's memory
#: past a few MiB; past it, the address used longest ago is forgotten (by
#: :class:`PenaltyBuckets`, the one whose bucket is full again soonest).
MOST_ADDRESSES = 10_000

#: Seconds in which an address may present ``--wrong-tokens-per-address`` wrong
#: tokens (10 at once, then one more a minute, by default).
WRONG_TOKENS_WINDOW = 600.0


class Buckets:
    """A :class:`RateLimit` per key (a client's address group), for the ``most``
    keys used last: one more forgets the key used longest ago, whose next request
    finds a full bucket again. A bounded memory is worth that: a client that has
    to make ``most`` addresses to be forgotten has that many addresses anyway.

    :param rate: tokens each bucket gains per second (> 0).
    :param burst: the most tokens a bucket holds (≥ 1); a new bucket is full.
    :param most: the most keys kept.
    :param clock: seconds, monotonic.
    """

    def __init__(
        self,
        rate: float,
        burst: float,
        most: int = MOST_ADDRESSES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.rate, self.burst, self.most, self.clock = rate, burst, most, clock
        self._buckets: OrderedDict[str, RateLimit] = OrderedDict()

    def __len__(self) -> int:
        return len(self._buckets)

    def bucket(self, key: str) -> RateLimit:
        """``key``'s bucket (made full if it has none), now the key used last."""
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = RateLimit(self.rate, self.burst, self.clock)
            if len(self._buckets) > self.most:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(key)
        return bucket

    def take(self, key: str, cost: float = 1.0) -> float | None:
        """:meth:`RateLimit.take` of ``key``'s bucket."""
        return self.bucket(key).take(cost)

    def give_back(self, key: str, tokens: float = 1.0) -> None:
        """:meth:`RateLimit.give_back` to ``key``'s bucket, if it still has one."""
        bucket = self._buckets.get(key)
        if bucket is not None:
            bucket.give_back(tokens)

    def wait(self, key: str, cost: float = 1.0) -> float | None:
        """What :meth:`take` would answer now, taking nothing and keeping no new key
        (a key without a bucket would find a full one)."""
        bucket = self._buckets.get(key)
        return None if bucket is None else bucket.wait(cost)


class PenaltyBuckets(Buckets):
    """:class:`Buckets` that, holding ``most`` keys, forget the one whose bucket is
    full again soonest — one already full again first (it holds nothing a new
    bucket would not), else the one with the least left to refill — instead of the
    key used longest ago.

    With :class:`Buckets`, a client past its limit could clear it by sending one
    request from each of ``most`` other addresses (a holder of an IPv6 /48 has
    65,536 /64s): its own key, used longest ago, was forgotten. Here its key is
    forgotten only once every key kept is further from full than its own, each of
    them drained lately by requests the limit counted.

    Each change to a bucket (through :meth:`take` and :meth:`give_back`, never the
    :class:`RateLimit` itself) notes when it is full again on a heap, the stale
    notes dropped as they are met and the heap rebuilt from the keys kept once it
    holds twice as many notes as keys: a request costs O(log ``most``), amortised,
    whatever the keys hold.
    """

    def __init__(self, *args: Any, **options: Any) -> None:
        super().__init__(*args, **options)
        #: When each key's bucket is full again, as last noted.
        self._full_at: dict[str, float] = {}
        #: ``(full_at, key)`` notes; one is stale when ``_full_at`` has moved since.
        self._notes: list[tuple[float, str]] = []

    def bucket(self, key: str) -> RateLimit:
        """``key``'s bucket (made full, once the key full again soonest is forgotten,
        if it has none)."""
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= self.most:
                self._forget()
            bucket = self._buckets[key] = RateLimit(self.rate, self.burst, self.clock)
            self._note(key, bucket)
        return bucket

    def take(self, key: str, cost: float = 1.0) -> float | None:
        """:meth:`RateLimit.take` of ``key``'s bucket."""
        bucket = self.bucket(key)
        wait = bucket.take(cost)
        if wait is None:  # a refusal takes nothing: its bucket is full no later
            self._note(key, bucket)
        return wait

    def give_back(self, key: str, tokens: float = 1.0) -> None:
        """:meth:`RateLimit.give_back` to ``key``'s bucket, if it still has one."""
        bucket = self._buckets.get(key)
        if bucket is not None:
            bucket.give_back(tokens)
            self._note(key, bucket)

    def _note(self, key: str, bucket: RateLimit) -> None:
        full_at = self._full_at[key] = bucket.full_at()
        heapq.heappush(self._notes, (full_at, key))
        if len(self._notes) > 2 * len(self._buckets) + 64:  # amortised: once per n notes
            self._notes = [(at, kept) for kept, at in self._full_at.items()]
            heapq.heapify(self._notes)

    def _forget(self) -> None:
        """Forget the key whose bucket is full again soonest."""
        while self._notes:
            full_at, key = heapq.heappop(self._notes)
            if self._full_at.get(key) == full_at:
                del self._full_at[key], self._buckets[key]
                return


#: The wait told to a token refused only because other tokens of its address are
#: still being checked (which take milliseconds, unless the store is slow): found
#: right, they give their places back.
CHECKING_WAIT = 1.0


@dataclass(frozen=True, slots=True)
class TokenRefusal:
    """Why :meth:`WrongTokens.present` refused a token, and for how long.

    :param wait: seconds until the address may present one again.
    :param checking: refused only as the address's tokens still being checked hold
        its places: one found right gives its place back (a group behind one router
        joining at once), so the wait is :data:`CHECKING_WAIT` at most; False: the
        address presented too many wrong tokens.
    :param site: the site (an IPv6 /48) whose allowance refused it, all its
        addresses together; None: the address's own.
    """

    wait: float
    checking: bool = False
    site: str | None = None


class TokensRefused(Exception):
    """A token refused by the count of wrong tokens its driver shares with other
    processes (``serve --redis``), as a read of it fails: the connection is told
    :attr:`refusal` (``rate_limited``), never a store error.

    :param refusal: why, and for how long.
    """

    def __init__(self, refusal: TokenRefusal) -> None:
        super().__init__(f"refused for {refusal.wait:g} s")
        self.refusal = refusal


class WrongTokens:
    """The throttle of wrong tokens (join tokens in a ``hello``, admin and export
    tokens over HTTP) per client address: an address may present ``allowed`` wrong
    tokens within ``window`` seconds — that many at once, then one more every
    ``window / allowed`` s. Past them, its tokens are refused without being looked
    up until it may again, right ones too: a right token of another address is not
    held up.

    Given ``site`` and ``per_site``, the addresses of one site (``site(address)``,
    the server's an IPv6 /48) may present ``per_site`` wrong tokens within
    ``window`` together, as well: a token is refused when either its address's
    allowance or its site's is spent, so that a client holding many addresses (the
    65,536 /64s of a /48) gets no more guesses than its site's.

    Each token presented takes one from its address's bucket (and its site's) while
    it is looked up (:meth:`present`), so that guesses sent at once are held to the
    bucket too; a right one gives it back (:meth:`right`), a wrong one keeps it
    (:meth:`wrong`). A right token so costs nothing, and never pays for wrong ones:
    a player holding a good token cannot guess freely by presenting it between
    guesses. A token refused while the tokens being checked would leave it room once
    found right is told so (:attr:`TokenRefusal.checking`), with a short wait: more
    right tokens at once than ``allowed`` (a group behind one router after a
    restart) are not told of wrong tokens nobody sent, nor to wait the window's
    minute.

    The buckets are :class:`PenaltyBuckets`: sending from more addresses than are
    kept does not make the throttle forget one past its allowance.

    :param allowed: wrong tokens an address may present within ``window`` (≥ 1).
    :param window: seconds.
    :param most: the most addresses tracked, and the most sites.
    :param refused: called with the address and the refusal of each token refused
        (the driver logs and counts it).
    :param site: the site an address belongs to (None: none, its own allowance only).
    :param per_site: wrong tokens a site may present within ``window`` (0: no
        allowance per site).
    """

    def __init__(
        self,
        allowed: int,
        window: float = WRONG_TOKENS_WINDOW,
        *,
        most: int = MOST_ADDRESSES,
        clock: Callable[[], float] = time.monotonic,
        refused: Callable[[str, TokenRefusal], None] | None = None,
        site: Callable[[str], str | None] | None = None,
        per_site: int = 0,
    ) -> None:
        self.allowed = allowed
        self.buckets = PenaltyBuckets(allowed / window, allowed, most, clock)
        self.per_site = per_site if site is not None else 0
        #: The sites' buckets (None: no allowance per site).
        self.sites: PenaltyBuckets | None = None
        if self.per_site:
            self.sites = PenaltyBuckets(per_site / window, per_site, most, clock)
        self.site = site
        self.refused = refused
        #: Tokens being checked, by address (an address with none is not kept).
        self.checking: dict[str, int] = {}
        #: Tokens being checked, by site (a site with none is not kept).
        self.site_checking: dict[str, int] = {}

    def site_of(self, address: str) -> str | None:
        """The site whose allowance ``address`` counts against too (None: none)."""
        return self.site(address) if self.sites is not None and self.site is not None else None

    def present(self, address: str | None, *, tell: bool = True) -> TokenRefusal | None:
        """A token from ``address`` (None: an address not counted) is about to be
        looked up: None if it may be (then :meth:`right` or :meth:`wrong` once it
        was), else why not and for how long — the longer wait of the address's and
        its site's, naming the one it tells (nothing is taken then, and an address
        not kept is not added; ``tell``: the refusal is told to :attr:`refused`,
        else the caller tells it with :meth:`refuse` if it gives up)."""
        if address is None:
            return None
        site = self.site_of(address)
        own = self.buckets.wait(address)
        shared = None if site is None or self.sites is None else self.sites.wait(site)
        if own is None and shared is None:
            self.buckets.take(address)
            _count(self.checking, address, 1)
            if site is not None and self.sites is not None:
                self.sites.take(site)
                _count(self.site_checking, site, 1)
            return None
        refusals = []
        if own is not None:
            refusals.append(_refusal(own, self.checking.get(address, 0), self.buckets.rate))
        if shared is not None and site is not None and self.sites is not None:
            checking = self.site_checking.get(site, 0)
            refusals.append(_refusal(shared, checking, self.sites.rate, site))
        refusal = max(refusals, key=lambda refusal: refusal.wait)
        if tell:
            self.refuse(address, refusal)
        return refusal

    def held_refusal(self, address: str, own: float | None, shared: float | None) -> TokenRefusal:
        """The refusal of a token of ``address`` that :meth:`present` let through
        (its place here still held) but a count shared with other processes refused,
        its bucket lacking a token for ``own`` s and its site's for ``shared`` s
        (None: not lacking): ``checking`` when this process's other tokens of the
        address being checked hold the places missing (those of other processes are
        not known here)."""
        site = self.site_of(address)
        refusals = []
        if own is not None or shared is None:
            held = self.checking.get(address, 1) - 1
            refusals.append(_refusal(own or 0.001, held, self.buckets.rate))
        if shared is not None and site is not None and self.sites is not None:
            held = self.site_checking.get(site, 1) - 1
            refusals.append(_refusal(shared, held, self.sites.rate, site))
        return max(refusals, key=lambda refusal: refusal.wait)

    def refuse(self, address: str, refusal: TokenRefusal) -> None:
        """Tell :attr:`refused` that a token of ``address`` was refused."""
        if self.refused is not None:
            self.refused(address, refusal)

    def right(self, address: str | None) -> None:
        """The token :meth:`present` let through opened what it was presented for
        (or could not be looked up, the server's failure): it costs nothing."""
        if address is not None:
            site = self._checked(address)
            self.buckets.give_back(address)
            if site is not None and self.sites is not None:
                self.sites.give_back(site)

    def wrong(self, address: str | None) -> None:
        """The token :meth:`present` let through opened nothing: its place stays taken."""
        if address is not None:
            self._checked(address)

    def _checked(self, address: str) -> str | None:
        """A token of ``address`` that :meth:`present` let through was looked up:
        its address's site (None: none)."""
        _count(self.checking, address, -1)
        site = self.site_of(address)
        if site is not None:
            _count(self.site_checking, site, -1)
        return site


def _count(counts: dict[str, int], key: str, more: int) -> None:
    """``more`` (±1) tokens of ``key`` being checked (a key with none is not kept)."""
    left = counts.get(key, 0) + more
    if left > 0:
        counts[key] = left
    else:
        counts.pop(key, None)


def _refusal(wait: float, checking: int, rate: float, site: str | None = None) -> TokenRefusal:
    """The refusal of a bucket (an address's, or ``site``'s) lacking a token for
    ``wait`` s while ``checking`` of its tokens are being checked: only for those,
    if found right they would give it room (:attr:`TokenRefusal.checking`)."""
    if checking and checking >= wait * rate - _SLACK:
        return TokenRefusal(min(wait, CHECKING_WAIT), checking=True, site=site)
    return TokenRefusal(wait, site=site)
