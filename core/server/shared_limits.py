"""The per-address limits of HTTP requests and of connections, shared by every
``serve --redis`` process of one Redis (docs/redis.md, "The per-address limits,
shared"; docs/operations.md, "Limits").

Each process keeps its own count first, as under SQLite, with no round trip: what
it refuses costs Redis nothing. What it lets through is then counted in Redis, in
one round trip, against what every process counts there:

* **HTTP requests** (``--http-rate-per-address``): :class:`SharedHttpRate`, one
  token bucket per address group (an IPv4 address, an IPv6 /64) in Redis, the
  script of the shared throttle of wrong tokens
  (:data:`~rollbridge.server.shared_tokens.BUCKETS`, on Redis's ``TIME``) with the
  HTTP rate and burst. A request refused there is refused as by one process (429,
  ``Retry-After`` from the shared bucket), and keeps the place it took in the
  process's own bucket: that bucket counts every request the process asked Redis
  about, so a flood from one address costs Redis at most the rate (after a burst)
  per process, and the rest is refused without a round trip.
* **Connections** (``--max-connections-per-address``): :class:`SharedConnections`,
  one hash per address group, a field per process holding ``count:expires:version``
  — how many connections of the address that process holds, until when (ms of
  Redis's ``TIME``) the count stands unless written again, and the process's
  version of it (:data:`CONNECTIONS`). A connection the process's own count lets
  through is counted here before it is served: refused if the live counts of every
  other process and this process's own (the new one included) pass the limit (the
  count then written again without it if a newer one went out meanwhile). A close
  writes the process's new count (in the background). Every process writes
  each count it holds again every :attr:`SharedConnections.renew` seconds
  (:meth:`~rollbridge.server.cluster.ClusterServer.renew_connection_counts`), so
  that a count lives ``ttl`` after the last write: a killed process's connections
  stop counting once it has not written for ``ttl`` (its fields are deleted by the
  next script that meets them, its key expires with its last field — a count of 0
  stands as long as any other, its version kept), and a
  write that was lost (Redis gone a moment) is made right by the next renewal.
  Every write carries the process's absolute count and a version that grows with
  each; the script keeps a field's newest version only, so writes that Redis runs
  out of their order (two connections of one address at once, on two connections
  of the client's pool) never leave an older count behind.

Redis not answering (:class:`Fallback`): the process's own limits decide alone, as
under SQLite — an address spread over N processes gets up to N times them meanwhile
— and the shared counts are not asked again for :data:`RETRY_AFTER` seconds, then
by one check at a time until Redis answers (the others decide alone meanwhile): a
request or a connection is not refused for a Redis that is gone, and only one a
second waits for it (:data:`SHARED_TIMEOUT` at most). Failing closed would refuse
``/healthz``, ``/readyz`` and ``/metrics`` — what the operator and the balancer need
to see the outage — and every web view, on every process at once, for something
Redis being down does not make more dangerous; the process's own limits still bound
what one address costs each process.

Keys (``{prefix}`` the store's, ``rb:`` by default), the address group as the Redis
Cluster hash tag, as the keys of the throttle of wrong tokens::

    {prefix}http:{203.0.113.7}            the HTTP bucket of an IPv4 address
    {prefix}http:{2001:db8:1:2::/64}      of an IPv6 /64
    {prefix}conn:{203.0.113.7}            the connections of an address, per process
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import redis

from rollbridge.server.shared_tokens import BUCKETS, wait_seconds
from rollbridge.server.throttle import Retried

__all__ = [
    "CONNECTIONS",
    "COUNT_LEASES",
    "RETRY_AFTER",
    "SHARED_TIMEOUT",
    "Fallback",
    "SharedConnections",
    "SharedHttpRate",
]

log = logging.getLogger("rollbridge.cluster")

#: Seconds a shared count may take to answer before the process's own limit decides
#: alone (a Redis that answers does in well under a millisecond).
SHARED_TIMEOUT = 1.0
#: Seconds the shared counts are not asked after Redis failed to answer one.
RETRY_AFTER = 1.0
#: How many lease lengths (``--lease-ms``) a process's count of an address's
#: connections stands without being written again: a killed process's connections
#: stop counting that long after its last renewal (15 s by default). Renewed every
#: third of it.
COUNT_LEASES = 3

#: Count a connection (``ARGV[1]`` ``take``) or write the process's count (``set``)
#: of the address whose hash is ``KEYS[1]``. ``ARGV``: the operation, the process's
#: id, its count (for a take: the new connection included), the version of that
#: count, the milliseconds it stands, and for a take the limit. Fields whose time is
#: past (or unreadable) are deleted; the process's own field is written only with a
#: version newer than the one it holds — a count of 0 as well, which stands as long
#: as any: deleted, it would forget its version, and an older count Redis ran after
#: it (two closes at once, on two connections of the pool) would stand again. A take
#: whose count, with the other processes' live ones, passes the limit writes the count
#: without the new connection and answers ``{1, total}``; else ``{0, total}``
#: (``total``: every live process's count, the new connection included). The key
#: expires with its last live field. ``#!lua``: Redis out of memory refuses it whole.
CONNECTIONS = """#!lua
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local node, mine = ARGV[2], tonumber(ARGV[3])
local version, ttl = tonumber(ARGV[4]), tonumber(ARGV[5])
local held = redis.call('HGETALL', KEYS[1])
local others, latest, stored, own = 0, 0, -1, 0
for i = 1, #held, 2 do
  local count, expires, ver = string.match(held[i + 1], '^(%d+):(%d+):(%d+)$')
  if not count or tonumber(expires) <= ms then
    redis.call('HDEL', KEYS[1], held[i])
  elseif held[i] == node then
    stored, own = tonumber(ver), tonumber(expires)
  else
    others = others + tonumber(count)
    latest = math.max(latest, tonumber(expires))
  end
end
local refused = 0
if ARGV[1] == 'take' and others + mine > tonumber(ARGV[6]) then
  refused = 1
  mine = mine - 1
end
if version > stored then
  local expires = ms + ttl
  redis.call('HSET', KEYS[1], node, string.format('%d:%d:%d', mine, expires, version))
  latest = math.max(latest, expires)
else
  latest = math.max(latest, own)
end
if latest > ms then
  redis.call('PEXPIRE', KEYS[1], latest - ms + 1)
end
return {refused, others + mine + refused}
"""


class Fallback:
    """Whether the shared counts are asked: not for :data:`RETRY_AFTER` seconds
    after Redis failed to answer one (the process's own limits decide alone
    meanwhile), then by one check at a time until Redis answers again — the others
    decide alone while it waits, so a Redis that hangs (paused, a network that
    drops its packets) holds one request or connection a second for
    :data:`SHARED_TIMEOUT`, not every one that comes meanwhile. Each check decided
    alone is counted in the metrics, by limit; the first failure is logged (a
    WARNING), then one line a minute while it lasts, and one when Redis answers
    again.

    :param counted: called with the limit (``http_rate``, ``per_address``) whose
        shared count was not asked or did not answer.
    :param clock: monotonic seconds.
    :param advice: what a Redis error means, for the log lines (:class:`Retried`).
    """

    def __init__(
        self,
        counted: Callable[[str], None],
        clock: Callable[[], float] = time.monotonic,
        advice: Callable[[BaseException], str] | None = None,
    ) -> None:
        self.counted = counted
        self.clock = clock
        self._until = 0.0
        #: Whether Redis failed last (then one check at a time asks it again).
        self._down = False
        #: Whether a check asking Redis again after a failure waits for its answer.
        self._probing = False
        self._log = Retried(
            log, "the per-address limits shared in Redis (each process's own limits "
            "decide alone meanwhile)", advice=advice,
        )  # fmt: skip

    def usable(self, limit: str) -> bool:
        """Whether to ask the shared count of ``limit`` now (else it is counted as
        decided by the process alone). After a failure, a check that is told to ask
        must end in :meth:`failed`, :meth:`worked` or :meth:`abandoned`."""
        if self.clock() < self._until or self._probing:
            self.counted(limit)
            return False
        if self._down:
            self._probing = True  # this one asks; the others decide alone till it knows
        return True

    def failed(self, limit: str, error: BaseException) -> None:
        """Redis did not answer ``limit``'s shared count (``error``)."""
        self.counted(limit)
        self._until = self.clock() + RETRY_AFTER
        self._down, self._probing = True, False
        self._log.failed(error)

    def worked(self) -> None:
        """Redis answered a shared count."""
        self._down = self._probing = False
        self._log.worked()

    def abandoned(self) -> None:
        """A check told to ask ended without an answer or a failure (cancelled: its
        connection closed, the server stopping): another may ask."""
        self._probing = False

    async def ask(self, limit: str, call: Callable[[], Awaitable[Any]]) -> tuple[bool, Any]:
        """Ask ``limit``'s shared count, ``call()``, if it is to be asked now, for at
        most :data:`SHARED_TIMEOUT` seconds: ``(True, its answer)``, or ``(False,
        None)`` when the process's own limit decides alone (not asked, no answer in
        time, a failure: counted and logged)."""
        if not self.usable(limit):
            return False, None
        probe = self._probing  # set by usable for the one check that asks after a failure
        try:
            answer = await bounded(call())
        except REDIS_FAILURES as exc:
            self.failed(limit, exc)
            return False, None
        except BaseException:
            if probe:
                self.abandoned()
            raise
        self.worked()
        return True, answer


#: What a shared count's call may raise when Redis does not answer in time.
REDIS_FAILURES = (redis.RedisError, OSError, TimeoutError)


class SharedHttpRate:
    """The HTTP rate's buckets in Redis, one per address group; see the module
    docstring.

    :param redis: an asyncio redis-py client.
    :param prefix: the store's key prefix (``rb:``).
    :param rate: requests per second (> 0).
    :param burst: the most requests at once (≥ 1).
    """

    def __init__(self, redis: Any, prefix: str, rate: float, burst: float) -> None:
        self.prefix = prefix
        self.numbers = [rate / 1000, float(burst)]  # per ms, as the script counts
        self._script = redis.register_script(BUCKETS)

    def key(self, address: str) -> str:
        """The key of ``address``'s bucket."""
        return f"{self.prefix}http:{{{address}}}"

    async def take(self, address: str) -> float | None:
        """Take a request of ``address`` from its bucket: None if it had one, else
        the seconds until it has (nothing taken).

        :raises redis.RedisError: Redis did not answer (nothing was taken).
        """
        waits = await self._script(keys=[self.key(address)], args=["take", *self.numbers])
        if not waits:
            return None
        return wait_seconds(waits[0]) or 0.001


class SharedConnections:
    """The connections of each address group, counted per process in Redis; see the
    module docstring.

    :param redis: an asyncio redis-py client.
    :param prefix: the store's key prefix (``rb:``).
    :param node: this process's id (a field of each address's hash).
    :param limit: connections from one address group, every process together.
    :param ttl: seconds a count written stands without being written again.
    """

    def __init__(self, redis: Any, prefix: str, node: str, limit: int, ttl: float) -> None:
        self.prefix = prefix
        self.node = node
        self.limit = limit
        self.ttl_ms = max(1, round(ttl * 1000))
        #: Seconds between two renewals of every count held (a third of ``ttl``).
        self.renew = ttl / COUNT_LEASES
        self._version = 0
        self._redis = redis
        self._script = redis.register_script(CONNECTIONS)

    def key(self, address: str) -> str:
        """The key of ``address``'s hash of counts."""
        return f"{self.prefix}conn:{{{address}}}"

    @property
    def version(self) -> int:
        """The version the last count written (or being written) carries."""
        return self._version

    def _next(self) -> int:
        self._version += 1
        return self._version

    async def take(self, address: str, mine: int) -> int | None:
        """Count a new connection of ``address``, this process holding ``mine`` of
        them with it: None if every process's together are within the limit, else
        how many there would be (then this process's count is written without it).

        :raises redis.RedisError: Redis did not answer (nothing is known of it).
        """
        args = ["take", self.node, mine, self._next(), self.ttl_ms, self.limit]
        refused, total = await self._script(keys=[self.key(address)], args=args)
        return int(total) if refused else None

    async def write(self, address: str, mine: int) -> None:
        """Write this process's count of ``address``'s connections (0: none).

        :raises redis.RedisError: Redis did not answer."""
        args = ["set", self.node, mine, self._next(), self.ttl_ms]
        await self._script(keys=[self.key(address)], args=args)

    async def write_all(
        self, addresses: Iterable[str], count_of: Callable[[str], int], batch: int = 512
    ) -> None:
        """:meth:`write` of each of ``addresses``, in pipelines of ``batch``: each
        count read (``count_of``) as its version is given, so that a count read
        before a later connection never carries a newer version than that one's.

        :raises redis.RedisError: Redis did not answer (the rest are not written)."""
        pending = list(addresses)
        for start in range(0, len(pending), batch):
            async with self._redis.pipeline(transaction=False) as pipe:
                for address in pending[start : start + batch]:
                    args = ["set", self.node, count_of(address), self._next(), self.ttl_ms]
                    pipe.evalsha(self._script.sha, 1, self.key(address), *args)
                pipe.scripts.add(self._script)  # loaded first, if Redis lacks it
                await pipe.execute()


async def bounded(call: Any, timeout: float = SHARED_TIMEOUT) -> Any:
    """Await ``call`` for at most ``timeout`` seconds.

    :raises TimeoutError: no answer in time (the call is cancelled)."""
    async with asyncio.timeout(timeout):
        return await call
