"""Several ``rollbridge serve`` processes, one Redis, every table (issue 13, item 2).

:class:`ClusterServer` is the WebSocket :class:`~rollbridge.server.app.Server`
driving :class:`~rollbridge.server.cluster_table.ClusterTable` instead of the plain
table protocol, plus what a cluster needs, all over redis-py's asyncio client:

* **The lease.** A table's changes are executed by one process at a time, its
  *owner*: the process whose id is in ``rb:{T}:owner``. A process that gets a change
  for a table nobody owns takes it (:data:`TAKE`: ``SET … NX PX lease``, if the table
  is still stored: a deleted one's change is refused ``unknown_table``), loads the
  table again and executes; it renews each lease every third of its length with a
  compare-then-extend script (:data:`RENEW`; a lease that ran out while Redis failed
  is taken again by it if nobody wrote the table meanwhile), and gives it up when it
  stops (:data:`RELEASE`). The lease is only an optimisation of who executes: what keeps
  two processes from both writing is the commit script — it refuses a commit while
  another process holds the table's lease, and one that does not continue the stored
  seq, and whoever takes a lease loads the table after taking it (docs/redis.md, "The
  commit script"). A paused owner's late commit is
  refused; the table is then loaded again. A table whose reload failed (a passing
  Redis error) is loaded again by the poll, with a growing pause, while a client or a
  request waits on it; a reply parked for an event not read here waits at most
  :attr:`~ClusterServer.park_timeout`; with nothing waiting and no client it is
  unused, so its lease is given up
  (:meth:`ClusterTable.tick <rollbridge.server.cluster_table.ClusterTable.tick>`);
  after three failed reloads in a row it is given up even with a client there, which
  stays (:attr:`ClusterTable.stuck
  <rollbridge.server.cluster_table.ClusterTable.stuck>`): another process may read it.
* **Forwarding.** A change on a process that does not own its table goes to the
  owner's inbox (``rb:node:ID:inbox``, a list popped with ``BLPOP``) with its
  request id and the requester's principal; the owner runs it through its table
  protocol as if the requester were its own client and pushes the reply to the
  sender's list (``rb:node:ID:replies``). While it waits the sender watches the
  lease: if the owner changes or the lease is gone (the owner died), it sends the
  request to the new owner or takes the table over itself — after leaving it up to a
  lease to its last owner when Redis failed lately or held the read of the lease
  (:mod:`~rollbridge.server.cluster_lease_wait`: one reader per process, an ``MGET``
  of every lease waited on, for every forward waiting so). The request id is the
  idempotency key, so a request that reached two owners is executed once: the second
  finds its stored reply (or its commit is refused). The owner's reply carries the
  CPU time its handling took there (``work``, seconds), which the owner charged to
  the table's rate; the sender charges it to the rate of the connection that sent
  the change (:meth:`Connection.charge_forwarded
  <rollbridge.protocol.connection.Connection.charge_forwarded>`), as if it had run
  there. A reply without it (from an older owner) charges nothing more.
* **Fan-out.** Every process subscribes to ``rb:{T}:events`` of each table it holds
  in memory but does not own (the commit script publishes ``"{epoch}:{seq}"`` there)
  and polls the stored seq of every table it holds every ``poll_interval`` seconds;
  a table that is ahead is synced from the stored log
  (:class:`~rollbridge.server.cluster_table.Sync`) and exactly the events after the
  last one delivered here go to this process's clients. The owner is not subscribed
  to its own tables: while it holds the lease every commit is its own, and each
  notice would only come back to it to be read and dropped (1–2.5 % of a process's
  CPU, measured). Nothing is lost by it: when the lease ends (the lease keeper,
  renewing every third of a lease, finds it taken, or gone with the table written
  since; or this process gives it
  up) and the table stays in memory, its channel is subscribed to again and the table
  synced right after subscribing, which reads what the new owner committed before;
  meanwhile the poll, which reads the stored seq of every table held, owned or not,
  finds a table stored ahead. A lost subscription (``CLIENT KILL TYPE pubsub``, a
  Redis restart) is made again and every table followed synced: events are delivered
  late, never skipped or twice. A subscription quiet for a while is pinged; one that
  does not answer (a connection that died without a word) is made again too.
* **Wrong tokens.** A token this process's own throttle lets through (a
  ``hello``'s, an admin or export request's) then takes a place from the count of
  wrong tokens every process shares in Redis
  (:mod:`~rollbridge.server.shared_tokens`): :meth:`ClusterServer.take_token_place`
  before its lookup, :meth:`ClusterServer.give_back_token_place` once it was found
  right.
* **Connections and HTTP requests per address.** ``--max-connections-per-address``
  and ``--http-rate-per-address`` hold for every process together
  (:mod:`~rollbridge.server.shared_limits`): this process's own count first, then
  the one every process shares in Redis (:meth:`ClusterServer.count_connection`,
  :meth:`ClusterServer.renew_connection_counts`; the HTTP rate through
  :attr:`HttpRate.shared <rollbridge.server.address_rates.HttpRate.shared>`); with
  Redis not answering, this process's own count decides alone.

Run one process per port, behind a load balancer that passes WebSocket upgrades
(docs/redis.md, "Several processes").
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
import uuid
from collections.abc import Awaitable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any

import redis
import redis.asyncio as aioredis

from rollbridge.engine.model import Principal
from rollbridge.exceptions import (
    InvalidSettings,
    RateLimited,
    RollbridgeError,
    StoreError,
    StoreUnavailable,
    UnknownTable,
)
from rollbridge.host import PluginHost
from rollbridge.plain import JSON, pack, unpack
from rollbridge.protocol.connection import CLOSE_AUTH
from rollbridge.protocol.effects import Close, Effect, FindToken, Reply
from rollbridge.protocol.limits import TokensRefused
from rollbridge.protocol.table import error_message
from rollbridge.server.addresses import address_site, is_ip_group
from rollbridge.server.app import TABLE_DELETED, Server
from rollbridge.server.client import Client
from rollbridge.server.cluster_cancel import CancelSafeRedis, within
from rollbridge.server.cluster_lease_wait import LeaseWaits
from rollbridge.server.cluster_peers import (
    CLAIM,
    CLAIM_LEASES,
    Departures,
    claim,
    leave,
    named,
    shared,
)
from rollbridge.server.cluster_table import (
    RETRY_FIRST,
    RETRY_MOST,
    ClusterTable,
    Forward,
    Ownership,
)
from rollbridge.server.cluster_versions import OlderProcesses, mark, mark_key
from rollbridge.server.limits import HTTP_BURST_SECONDS
from rollbridge.server.logs import log_refusal
from rollbridge.server.redis_advice import advice
from rollbridge.server.shared_limits import (
    COUNT_LEASES,
    REDIS_FAILURES,
    Fallback,
    SharedConnections,
    SharedHttpRate,
    bounded,
)
from rollbridge.server.shared_tokens import SharedWrongTokens
from rollbridge.server.throttle import Retried
from rollbridge.server.writer import STOPPING
from rollbridge.stores.base import unknown_table
from rollbridge.stores.redis import CLIENT_TIMEOUTS, RedisStore
from rollbridge.stores.redis_causes import redis_words as cause
from rollbridge.stores.redis_fence import behind, delivered
from rollbridge.text import Messages, stored
from rollbridge.words import counted

__all__ = [
    "DEFAULT_FORWARD_TIMEOUT",
    "DEFAULT_LEASE_MS",
    "FORWARD_TIMEOUTS",
    "RELEASE",
    "RENEW",
    "TAKE",
    "Answer",
    "ClusterServer",
    "Remote",
]

log = logging.getLogger("rollbridge.cluster")
say = Messages("rollbridge")

#: How long a lease lasts unless renewed (milliseconds): how long a table waits for
#: a new owner after its owner died.
DEFAULT_LEASE_MS = 5000
#: The most connections one process's event-loop client opens to Redis (the inbox's
#: blocking pop and the subscription hold one each; forwards, pushes and leases share
#: the rest, waiting up to the client's timeout for one to come free). Without a cap,
#: a burst of forwards opened a connection each and the pool kept them all.
REDIS_CONNECTIONS = 64
#: Forwards remembered as counted against their table's rate (the oldest forgotten).
COUNTED_FORWARDS = 4096
#: Messages taken from each of the inbox's two lists per round trip after a blocking pop.
INBOX_BATCH = 64
#: Seconds a forwarded request waits for an answer before the requester is told to
#: send it again.
DEFAULT_FORWARD_TIMEOUT = 15.0
#: How many graces one forward leaves a lease found free after a Redis failure to its
#: last known owner: a lease after the failure that first made it wait, and a lease
#: again after one later failure; then it takes the lease (the commit script's owner,
#: epoch and seq checks keep a second writer out, whoever holds it). Counted since the
#: forward last saw the lease held: an owner seen holding it again is alive, and its
#: count begins anew (a dead one is seen holding it again once at most: its last
#: renewal, held in a paused Redis, taking the lease back when Redis wakes — then up
#: to two graces more; docs/redis.md, "One owner per table").
GRACES = 2

#: The least and the most ``forward_timeout`` may be (seconds): under a tenth of a
#: second no owner answers in time; over an hour a client waits for nothing.
FORWARD_TIMEOUTS = (0.1, 3600.0)
#: Seconds between polls of the stored seq of each table held in memory (what finds
#: a commit whose notice was lost).
DEFAULT_POLL_INTERVAL = 1.0

#: Lease lengths an owned table may go unused (no client on this process, nothing
#: running) before this process gives its lease up.
DEFAULT_IDLE_LEASES = 4

#: Seconds of silence on the subscription before it is pinged (and then without an
#: answer before it is made again).
DEFAULT_SUBSCRIPTION_PING = 3.0

#: Seconds a stop waits for the background loops to end, and then for each call that
#: gives up this process's leases and inbox, before it goes on without them.
STOP_TIMEOUT = 3.0

#: Seconds a token refused by the shared count of wrong tokens waits, at most, for
#: the places that right tokens of its address (or site) found here are giving back,
#: before it asks once more (docs/redis.md, "The throttle of wrong tokens, shared").
GIVE_BACK_WAIT = 2.0

#: Extend the lease (KEYS[1]) by ARGV[2] ms if ARGV[1] holds it: 1, else 0. Run by a
#: Redis out of memory too (``allow-oom``: it takes none): a full Redis refuses every
#: change anyway, and its leases no longer lapse and move meanwhile (as :data:`RELEASE`).
#: With KEYS[2] (the table's info hash) and ARGV[3], ARGV[4] (the epoch and seq the
#: holder knows stored; given after a renewal Redis did not answer), a lease found
#: free is taken again by the process that held it (2) when the table is stored as
#: that process knows it: nobody committed since
#: its lease ran out, so its table in memory is the stored one and no other writer
#: was there. A Redis restarted (or unanswering) for longer than a lease let the
#: leases run out, and the first forward after it took the table from its live owner.
RENEW = """#!lua flags=allow-oom
local held = redis.call('GET', KEYS[1])
if held == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
if not held and KEYS[2] and ARGV[4] then
  local head = redis.call('HMGET', KEYS[2], 'epoch', 'seq')
  if head[1] == ARGV[3] and head[2] == ARGV[4] then
    redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
    return 2
  end
end
return 0
"""
#: Take the lease (KEYS[1]) for ARGV[1], for ARGV[2] ms, if nobody holds it and the
#: table is stored (its info hash, KEYS[2], exists): 1 taken, 0 held by another
#: process, -1 no such table; 2 taken, and the table's ``let_go`` note (KEYS[3])
#: named ARGV[3], the process last seen running it: it let the table go unused
#: (:data:`RELEASE`), no take-over. The note is deleted by any take (a later lapse of
#: the same process's lease is news of its own). A deleted table's lease is never
#: taken: ``DELETE_TABLE`` removes it with the table, and a plain ``SET NX`` after
#: that made it again — for good, when a reply parked for an event of the deleted
#: table kept the table in use.
TAKE = """#!lua
if redis.call('EXISTS', KEYS[2]) == 0 then
  return -1
end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  if KEYS[3] then
    local by = redis.call('GET', KEYS[3])
    if by then
      redis.call('DEL', KEYS[3])
      if by == ARGV[3] then return 2 end
    end
  end
  return 1
end
return 0
"""
#: Delete the lease (KEYS[1]) if ARGV[1] holds it: 1, else 0. With KEYS[2] (the
#: table's ``let_go`` note), a lease let go unused: the note names ARGV[1] for ARGV[2]
#: ms, so the process that takes the table next counts ``loaded``, not ``taken_over``.
RELEASE = """#!lua flags=allow-oom
if redis.call('GET', KEYS[1]) == ARGV[1] then
  if KEYS[2] then
    redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
  end
  return redis.call('DEL', KEYS[1])
end
return 0
"""
#: How long a ``let_go`` note stays (ms) when no process takes the table: a day.
LET_GO_KEEP_MS = 86_400_000


def _outcome(forward: Forward, answer: Answer | None) -> str:
    """A forward's outcome as ``rollbridge_forwarded_total`` counts it: ``answered``
    (the owner ran it), ``taken_over`` (the lease of a process seen running the table
    was found free, and that process had not stopped: this process took the table
    from it), ``loaded`` (nobody this process saw ran it, or the one that did
    stopped: its first load here, or after its runner's SIGTERM)."""
    if answer is not None:
        return "answered"
    return "taken_over" if forward.taken_from is not None else "loaded"


def _timed_out(error: BaseException) -> bool:
    """Whether a call to Redis failed because its reply did not come within the
    client's timeout (the connection is closed and made again by the next call)."""
    return isinstance(error, redis.TimeoutError | TimeoutError)


def _stalled(sent: float, reply_timeout: float | None) -> bool:
    """Whether a call sent at ``sent`` (``time.monotonic()``) that timed out was
    noticed a quarter of its reply timeout (5 s without one) or more after it was due:
    this process was paused or starved of CPU past it (a Redis that hangs is noticed on
    time by a process that runs), and the call's lateness is its own."""
    timeout = reply_timeout or 5.0
    return time.monotonic() - sent > timeout * 1.25


def _refuses_writes(error: Exception) -> bool:
    """Whether ``error`` is a Redis refusal that lasts (a full Redis under
    ``noeviction``; a failing save with ``stop-writes-on-bgsave-error``; a read-only
    replica), which a forward does not retry."""
    if isinstance(error, redis.exceptions.OutOfMemoryError | redis.exceptions.ReadOnlyError):
        return True
    return isinstance(error, redis.ResponseError) and "MISCONF" in str(error)


# Translators: a forwarded change got no answer; {seconds} is a number.
NO_OWNER = say(
    "cluster.no_owner",
    "the process that runs this table did not answer within {seconds} s; send the request "
    "again (with the same id)",
)


class _Silence:
    """Finds a subscription that died without a word (a black-holed connection):
    after ``quiet`` seconds without a message it is pinged, and a ping unanswered
    for ``patience`` seconds ends it (it is then made again)."""

    def __init__(self, quiet: float, patience: float) -> None:
        self.quiet, self.patience = quiet, patience
        self.last = time.monotonic()
        self.pinged: float | None = None

    def heard(self) -> None:
        self.last, self.pinged = time.monotonic(), None

    async def check(self, pubsub: Any) -> None:
        """Ping when it has been quiet; :raises redis.ConnectionError: no answer."""
        now = time.monotonic()
        if self.pinged is not None:
            if now - self.pinged > self.patience:
                raise redis.ConnectionError(f"no answer to a ping in {self.patience} s")
        elif now - self.last > self.quiet:
            self.pinged = now
            await pubsub.ping()


@dataclass(eq=False, slots=True)
class Remote:
    """The requester of a forwarded request, as the owner sees it: the process
    that forwarded it, the forward's id there, and the seconds of this process's
    CPU time its handling took (sent back with the reply, for the requester's
    connection's rate)."""

    node: str
    fid: str
    work: float = 0.0


@dataclass(frozen=True, slots=True)
class Answer:
    """The owner's reply to a forwarded change, as its sender gets it: the reply,
    and the seconds of the owner's CPU time its handling took (0 when the owner did
    not say: a process of an older version)."""

    message: JSON
    work: float = 0.0


def _work(value: Any) -> float:
    """The ``work`` of a forward's reply, as seconds to charge: a finite number
    above 0, else 0 (none sent, by an older owner; or anything but a number)."""
    if value.__class__ not in (int, float) or not math.isfinite(value) or value <= 0:
        return 0.0
    return float(value)


def _stopping(table_id: str) -> StoreError:
    """A change this process would take a table's lease for, while it stops."""
    return StoreError(STOPPING(), details={"reason": "stopping", "table": table_id})


def _asking(forward: Forward) -> Client | None:
    """The client here that sent ``forward``'s change, if a client sent it."""
    asker = forward.asker
    client = asker.origin if asker is not None else None
    return client if isinstance(client, Client) else None


class ClusterServer(Server):
    """A :class:`~rollbridge.server.app.Server` that shares every table with the
    other processes on the same Redis; see the module docstring.

    :param store: the Redis store; its ``writer`` is this process's id, the value
        of the leases it holds.
    :param host: the plugin host.
    :param redis_url: the store's Redis URL (for the asyncio client).
    :param lease_ms: how long a lease lasts unless renewed.
    :param forward_timeout: seconds a forwarded request waits for an answer
        (:data:`FORWARD_TIMEOUTS`: 0.1 to 3600).
    :param poll_interval: seconds between polls of the stored seqs.
    :param park_timeout: seconds a forwarded change's reply waits, at most, for the
        event it names to be read here (then its requester is told ``store_error``,
        as any store failure is told to a client, without details; the log says why,
        ``reason`` ``not_synced``); None: ``forward_timeout``.
    :param options: as for :class:`~rollbridge.server.app.Server`.
    :raises InvalidSettings: a store without a writer id, a lease under 300 ms, or a
        ``forward_timeout`` out of :data:`FORWARD_TIMEOUTS`.
    """

    def __init__(
        self,
        store: RedisStore,
        host: PluginHost,
        *,
        redis_url: str,
        lease_ms: int = DEFAULT_LEASE_MS,
        forward_timeout: float = DEFAULT_FORWARD_TIMEOUT,
        poll_interval: float = DEFAULT_POLL_INTERVAL,
        park_timeout: float | None = None,
        **options: Any,
    ) -> None:
        if not store.writer:
            raise InvalidSettings("a cluster process needs a store with a writer id")
        if lease_ms < 300:
            raise InvalidSettings(f"the lease must last 300 ms or more, not {lease_ms}")
        if not FORWARD_TIMEOUTS[0] <= forward_timeout <= FORWARD_TIMEOUTS[1]:  # NaN too
            low, high = FORWARD_TIMEOUTS
            raise InvalidSettings(
                f"forward_timeout must be {low} to {high} seconds, not {forward_timeout!r}",
                details={"field": "forward_timeout"},
            )
        # the poll drops the idle tables every poll_interval: no sweep of its own
        options.setdefault("sweep_interval", None)
        super().__init__(store, host, **options)
        self.node = store.writer
        self.redis_url = redis_url
        #: The Redis server, as logs may name it (never a password).
        self.store_where = store.where
        self.lease_ms = lease_ms
        self.forward_timeout = forward_timeout
        self.poll_interval = poll_interval
        #: Seconds a reply parked for its event waits, at most (plus up to a poll).
        self.park_timeout = forward_timeout if park_timeout is None else park_timeout
        #: Seconds before a broken table's first new reload, and the most between two
        #: (:meth:`ClusterTable.tick <rollbridge.server.cluster_table.ClusterTable.tick>`).
        self.reload_retry = (RETRY_FIRST, RETRY_MOST)
        #: Seconds of silence before the subscription is pinged, and then without a
        #: pong before it is made again.
        self.subscription_ping = DEFAULT_SUBSCRIPTION_PING
        self.ownership = Ownership()
        self.tables.protocol = ClusterTable
        self.tables.options["ownership"] = self.ownership
        self.keys = store.keys
        prefix = store.keys.prefix
        self.inbox = f"{prefix}node:{self.node}:inbox"
        self.replies = f"{prefix}node:{self.node}:replies"
        self.redis: aioredis.Redis | None = None
        #: The throttle of wrong tokens every process of the Redis counts against
        #: (None: off, or not started).
        self.shared_tokens: SharedWrongTokens | None = None
        #: The HTTP rate and the connections per address every process counts
        #: against (None: that limit off, or not started).
        self.shared_http: SharedHttpRate | None = None
        self.shared_connections: SharedConnections | None = None
        #: Seconds a count of an address's connections written by this process stands
        #: without being written again (a killed process's stop counting after it).
        self.count_ttl = lease_ms * COUNT_LEASES / 1000
        #: When Redis did not answer a shared limit: this process's own decide alone.
        self.fallback = Fallback(self.metrics.fell_back, advice=self._advice)
        #: The addresses this process may have a count of in Redis (written, or
        #: being written).
        self._published: set[str] = set()
        self._store_error = store.error_of
        #: The give-backs of right tokens' places under way, by address and site.
        self._giving: dict[str, set[asyncio.Task[Any]]] = {}
        self._renewed: dict[str, float] = {}
        #: When each owned table was last seen in use.
        self._used: dict[str, float] = {}
        #: Lease lengths a table owned here may go unused before its lease is released.
        self.idle_leases = DEFAULT_IDLE_LEASES
        self._waiting: dict[str, asyncio.Future[Answer]] = {}
        #: The tables whose lease a forward asked Redis to take (:data:`TAKE`), or
        #: this process to give up (:meth:`_give_up`), and has no answer of yet, by
        #: forward (or call) id: a stop that cancels the call meanwhile releases them
        #: too (the lease may have been taken, or not yet released).
        self._lease_calls: dict[str, str] = {}
        #: The forwards waiting for a table's owner after a Redis failure: one reader
        #: of the leases waited on for the process (:meth:`_send`).
        self._lease_waits = LeaseWaits(
            self._read_leases, lambda: self.stopping or self.redis is None
        )
        #: The forwards counted against their table's rate lately (a resend is not).
        self._counted: dict[str, None] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._loops: list[asyncio.Task[Any]] = []
        # the loops' failures while Redis is down: the first, then one a minute
        # (each line: what Redis did, what to check, redis-py's words as the detail)
        said = self._advice
        self._inbox_log = Retried(log, "reading this process's inbox", advice=said)
        self._subscription_log = Retried(log, "subscribing to the tables' events", advice=said)
        self._poll_log = Retried(log, "polling the stored seqs of followed tables", advice=said)
        self._renew_log = Retried(log, "renewing the leases", advice=said)
        self._count_log = Retried(log, "renewing the counts of connections per address",
                                  advice=said)  # fmt: skip
        # forwards meeting a Redis that does not answer (each tries every 0.2 s): the
        # first, then one a minute, for them all (a refusal is the store's health's)
        self._forward_log = Retried(log, "forwarding", advice=said)
        #: The tables taken over from each process, until it is found gone.
        self.departures = Departures()
        #: The processes on this Redis of an older lease protocol (said once each).
        self.older = OlderProcesses(self.keys.prefix, self.node, self.peers_key)
        #: A process with other settings was logged (:meth:`_renew_settings`).
        self._differ_told = False
        #: This process's settings are claimed in Redis (:meth:`claim_settings`).
        self._claimed = False
        #: A value in Redis that is no dice key was logged (:meth:`_check_dice_key`).
        self._bad_key_told = False
        #: When a call to Redis last failed here (monotonic seconds).
        self._failed_at = -math.inf
        #: The tables whose last renewal Redis did not answer: a lease of theirs that
        #: ran out meanwhile is taken again if nobody wrote the table (:data:`RENEW`).
        self._unrenewed: set[str] = set()

    # -- lifecycle ----------------------------------------------------------------

    async def start(self) -> None:
        """Start the server, then the inbox, the subscription, the poll and the
        lease keeper."""
        await super().start()
        # many forwards at once wait for a connection instead of opening one each
        # (and keeping them all, the pool's peak, for as long as the process runs)
        pool = aioredis.BlockingConnectionPool.from_url(
            self.redis_url,
            max_connections=REDIS_CONNECTIONS,
            timeout=CLIENT_TIMEOUTS["socket_timeout"],
            decode_responses=False,
            **CLIENT_TIMEOUTS,
        )
        # a cancel reaches the caller of a command, also one redis-py lost (3.11)
        self.redis = CancelSafeRedis.from_pool(pool)
        self._take = self.redis.register_script(TAKE)
        self._renew = self.redis.register_script(RENEW)
        self._release = self.redis.register_script(RELEASE)
        self._claim = self.redis.register_script(CLAIM)
        guard = self.tables.wrong_tokens
        if guard is not None:
            per_site = guard.per_site if guard.sites is not None else 0
            self.shared_tokens = SharedWrongTokens(
                self.redis, prefix=self.keys.prefix, allowed=guard.allowed,
                per_site=per_site, site=address_site,
            )  # fmt: skip
        rate = self.limits.http_rate_per_address
        if rate:
            burst = max(1.0, rate * HTTP_BURST_SECONDS)  # the process's own bucket's
            self.shared_http = SharedHttpRate(self.redis, self.keys.prefix, rate, burst)
            self.http.rate.shared = self._shared_http_wait
        jobs = [self._read_inbox(), self._listen(), self._poll(), self._keep_leases()]
        if self.limits.per_address is not None:
            self.shared_connections = SharedConnections(
                self.redis, self.keys.prefix, self.node, self.limits.per_address,
                self.count_ttl,
            )  # fmt: skip
            jobs.append(self._renew_counts())
        loop = asyncio.get_running_loop()
        for job in jobs:
            self._loops.append(loop.create_task(job))
        log.info("cluster process %s (lease %d ms), sharing the tables of %s",
                 self.node, self.lease_ms, self.store_where)  # fmt: skip

    async def stop(self) -> None:
        """Stop as :meth:`Server.stop`, then give up every lease held (another
        process takes the table at once instead of after the lease). Bounded: a
        Redis that does not answer delays a stop by a few seconds, never for good."""
        self.stopping = True
        self._unclaim_unstarted()  # before the store closes
        await self._stop_loops()
        await super().stop()
        for task in list(self._tasks):
            task.cancel()
        if self.redis is not None:
            # its claim first: a process that finds a lease of it free then knows that
            # it stopped (counted loaded there, not taken_over: ClusterServer._stopped)
            await self._bounded(leave(self.redis, self.peers_key, self.node),
                                "deleting this process's settings")  # fmt: skip
            # and those a forward cancelled above was taking: Redis may have taken the
            # lease before its answer was read (RELEASE deletes only this process's)
            for table_id in self.ownership.owned | set(self._lease_calls.values()):
                await self._bounded(
                    self._release(keys=[self.keys.table(table_id).owner], args=[self.node]),
                    f"giving up the lease of table {table_id}",
                )
            self.ownership.clear()
            # the inbox, and the mark of this process's lease protocol (a process killed
            # leaves its mark until it runs out, as its claim)
            await self._bounded(
                self.redis.delete(self.inbox, self.replies, mark_key(self.keys.prefix, self.node)),
                "clearing the inbox",
            )
            if self.shared_connections is not None and self._published:
                # every client is gone: this process's counts, 0, without a lapse
                await self._bounded(
                    self.shared_connections.write_all(list(self._published), lambda _a: 0),
                    "clearing this process's counts of connections",
                )
            await self._bounded(self.redis.aclose(), "closing the Redis connections")
            self.redis = None

    async def _stop_loops(self) -> None:
        """Cancel the background loops and wait for them to end, cancelling again
        while they run: a cancellation that a library swallows (redis-py can, while
        it connects) must not hold the stop. Each loop also ends at its next turn
        once :attr:`stopping` is set; one that still runs after :data:`STOP_TIMEOUT`
        is left behind, with a warning."""
        pending = {task for task in self._loops if not task.done()}
        deadline = time.monotonic() + STOP_TIMEOUT
        while pending:
            for task in pending:
                task.cancel()
            left = deadline - time.monotonic()
            if left <= 0:
                log.warning("%s did not stop within %s s; stopping without them",
                            counted(len(pending), "background loop"), STOP_TIMEOUT)  # fmt: skip
                break
            _done, pending = await asyncio.wait(pending, timeout=min(0.1, left))
        for task in self._loops:  # a loop that failed: its error is logged, not lost
            if task.done() and not task.cancelled() and task.exception() is not None:
                error = task.exception()  # a bug: the loops log and go on otherwise
                log.warning(
                    "a background loop of this process had stopped with an error (a bug, "
                    "to report): %s: %s", type(error).__name__, cause(error),
                )  # fmt: skip
        self._loops = []

    async def _bounded(self, call: Awaitable[Any], what: str) -> None:
        """Await ``call`` for at most :data:`STOP_TIMEOUT`; a failure or a timeout is
        logged, not raised (the stop goes on)."""
        try:
            async with asyncio.timeout(STOP_TIMEOUT):
                await call
        except REDIS_FAILURES as exc:
            log.warning("stopping, %s failed: %s", what, self._advice(exc))

    def _advice(self, error: BaseException) -> str:
        """What a Redis error a loop met means and what to check, redis-py's words
        as its detail (:func:`~rollbridge.server.redis_advice.advice`)."""
        return advice(error, self.store_where)

    def _spawn(self, job: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(job)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # -- effects --------------------------------------------------------------------

    def _carry_one(self, effect: Effect, client: Client | None) -> None:
        if isinstance(effect, Forward):
            task = self._spawn(self._forward(effect))
            asker = _asking(effect)
            if asker is not None:  # its next frame waits for the answer and its charge
                asker.forward_sent()
                # done, failed or cancelled (a stop), even before it ran
                task.add_done_callback(lambda _task: asker.forward_answered())
        elif isinstance(effect, Reply) and isinstance(effect.origin, Remote):
            self.metrics.replied(effect)
            if effect.error is not None:
                log_refusal(effect)
            self._spawn(self._answer(effect.origin, effect.message))
        elif isinstance(effect, FindToken) and effect.address is not None and self.shared_tokens:
            self._spawn(self._find_shared(effect, effect.address, client))
        else:
            super()._carry_one(effect, client)

    # -- the shared throttle of wrong tokens ---------------------------------------------

    async def take_token_place(self, address: str) -> None:
        """Take a place for a token of ``address`` from the count of wrong tokens
        every process shares (:mod:`~rollbridge.server.shared_tokens`), once this
        process's own throttle let it through.

        :raises TokensRefused: the address (or its IPv6 /48) presented too many wrong
            tokens lately, on any process; nothing was taken.
        :raises StoreError: Redis did not answer (a :class:`StoreUnavailable`);
            nothing was taken.
        """
        shared, guard = self.shared_tokens, self.tables.wrong_tokens
        if shared is None or guard is None:
            return
        for attempt in range(2):
            try:
                waits = await shared.take(address)
            except REDIS_FAILURES as exc:
                raise self._store_error(exc) from None
            if waits is None:
                return
            # right tokens of its address (or site) found here a moment ago give their
            # places back in the background: refused before they reached Redis, the
            # token waits for them (bounded) and asks once more
            pending = {
                task for key in self._places_of(address) for task in self._giving.get(key, ())
            }
            if attempt or not pending:
                break
            await asyncio.wait(pending, timeout=GIVE_BACK_WAIT)
        raise TokensRefused(guard.held_refusal(address, *waits))

    def _places_of(self, address: str) -> tuple[str, ...]:
        """The buckets a token of ``address`` takes a place from: its own, its site's."""
        site = address_site(address) if self.shared_tokens and self.shared_tokens.shared else None
        return (address,) if site is None else (address, site)

    def give_back_token_place(self, address: str) -> None:
        """Give back (in the background) the place a right token of ``address`` took
        from the shared count; Redis not answering leaves it taken until its bucket
        refills, said at DEBUG."""
        shared = self.shared_tokens
        if shared is None:
            return

        async def give_back() -> None:
            try:
                await shared.give_back(address)
            except REDIS_FAILURES as exc:
                log.debug("giving back a token's place of %s: %s", address, exc)

        task = self._spawn(give_back())
        keys = self._places_of(address)
        for key in keys:
            self._giving.setdefault(key, set()).add(task)

        def given(_task: asyncio.Task[Any]) -> None:
            for key in keys:
                tasks = self._giving.get(key)
                if tasks is not None:
                    tasks.discard(task)
                    if not tasks:
                        del self._giving[key]

        task.add_done_callback(given)

    async def _find_shared(self, find: FindToken, address: str, client: Client | None) -> None:
        """:class:`FindToken` under the shared count: a place taken first (else the
        read fails with why), given back when the token is found, or the read fails."""
        try:
            await self.take_token_place(address)
        except Exception as exc:  # refused, or Redis down: the hello is told, unread
            if isinstance(exc, StoreUnavailable):
                self.health.failed(exc, commit=False)  # as a read failed so
            self.carry(find.fail(exc), client)
            self._settle(find.table_id)
            return
        result, error = find.on_result, find.on_error

        def found(record: Any) -> list[Effect]:
            if record is not None:  # right: it costs nothing
                self.give_back_token_place(address)
            return result(record) if result is not None else []

        def failed(exc: BaseException) -> list[Effect]:
            self.give_back_token_place(address)  # the server's failure, not the token's
            if error is None:
                raise exc
            return error(exc)

        find.on_result, find.on_error = found, failed
        super()._carry_one(find, client)

    # -- the shared limits per address ---------------------------------------------------

    async def _shared_http_wait(self, address: str) -> float | None:
        """Take a request of ``address`` from the HTTP bucket every process shares:
        None if it may be answered (or Redis did not answer: this process's own
        bucket let it through), else the seconds until it may."""
        shared = self.shared_http
        if shared is None or not is_ip_group(address):
            return None
        _answered, wait = await self.fallback.ask("http_rate", lambda: shared.take(address))
        return wait

    async def count_connection(self, address: str) -> int | None:
        """Count a connection from ``address`` (held in :attr:`per_address` already)
        in Redis, with every process's: None to serve it, else how many the address
        would hold with it, on every process together (it is refused). Redis not
        answering serves it (this process's own count let it through); the next
        renewal writes it. An address that is no IP address (a Unix socket's peer)
        is not shared."""
        shared = self.shared_connections
        if shared is None or not is_ip_group(address):
            return None

        taken = 0

        def take() -> Any:  # the count read as its version is given: no await between
            nonlocal taken
            self._published.add(address)
            taken = shared.version + 1  # the version the take's count is written with
            return shared.take(address, self.per_address.get(address, 0))

        answered, total = await self.fallback.ask("per_address", take)
        if not answered or total is None:
            return None
        if shared.version > taken:
            # refused, but a count written meanwhile (another connection's take, a
            # close) held it, and stands if newer: the count without it is written
            # again — once the caller let it go (the task runs after this step)
            self.connection_closed(address)
        elif self.per_address.get(address, 0) <= 1:
            self._published.discard(address)  # refused, and none held: written as none
        return total

    def connection_closed(self, address: str) -> None:
        """Write this process's new count of ``address``'s connections, in the
        background (Redis not answering: the next renewal writes it)."""
        shared = self.shared_connections
        if shared is None or address not in self._published or self.stopping:
            return

        async def write() -> None:
            try:  # the count read as its version is given: in one step, no await between
                await bounded(shared.write(address, self.per_address.get(address, 0)))
            except REDIS_FAILURES as exc:
                log.debug("writing the count of connections of %s: %s", address, exc)
            else:
                if not self.per_address.get(address):  # written as none, and none since
                    self._published.discard(address)

        self._spawn(write())

    async def renew_connection_counts(self) -> None:
        """Write every count of connections this process holds again (0 for an
        address it may still have one of in Redis): each then stands another
        :attr:`count_ttl`, and a write lost meanwhile is made right.

        :raises redis.RedisError: Redis did not answer."""
        shared = self.shared_connections
        if shared is None:
            return
        held = {a for a in self.per_address if is_ip_group(a)}
        addresses = held | self._published
        if not addresses:
            return
        self._published |= held
        await shared.write_all(addresses, lambda a: self.per_address.get(a, 0))
        for address in addresses:
            if not self.per_address.get(address):
                self._published.discard(address)

    async def _renew_counts(self) -> None:
        """:meth:`renew_connection_counts` every third of :attr:`count_ttl`."""
        assert self.shared_connections is not None
        while not self.stopping:
            await asyncio.sleep(self.shared_connections.renew)
            try:
                await self.renew_connection_counts()
            except REDIS_FAILURES as exc:
                self._count_log.failed(exc)
            else:
                self._count_log.worked()

    # -- forwarding -------------------------------------------------------------------

    async def _forward(self, forward: Forward) -> None:
        table: ClusterTable = forward.table
        try:
            try:
                answer = await self._send(forward)
            except UnknownTable as exc:  # deleted meanwhile: the operator's doing, not a fault
                log.info("a change forwarded for table %s: %s", forward.table_id, exc)
                effects = table.refuse_forward(forward, exc)
                self.metrics.forwarded("refused")
            except StoreUnavailable as exc:  # Redis refused or was silent: the store fails
                # as a commit of this process's would (the gauge, the probe, one ERROR
                # for the outage with Redis's words, "works again" when it ends)
                self.health.failed(exc)
                log.debug("a change forwarded for table %s failed: %s", forward.table_id, exc)
                effects = table.refuse_forward(forward, exc)
                self.metrics.forwarded("refused")
            except RollbridgeError as exc:  # the client is told store_error; the log says why
                log.warning("a change forwarded for table %s failed: %s", forward.table_id, exc)
                effects = table.refuse_forward(forward, exc)
                self.metrics.forwarded("refused")
            except Exception as exc:  # a driver bug: the requester still gets an answer
                log.exception("forwarding a request of table %s failed", forward.table_id)
                effects = table.refuse_forward(forward, StoreError(f"{type(exc).__name__}: {exc}"))
                self.metrics.forwarded("refused")
            else:  # a bug on the way answers the requester ``internal`` (the table's guard)
                self.metrics.forwarded(_outcome(forward, answer))
                if answer is None:
                    effects = table.take_over(forward)
                else:
                    self._charge_requester(forward, answer.work)
                    if answer.message.get("type") == "result":
                        # a change of this process's client written: the store works
                        # here too (an outage said here ends, though the owner wrote it)
                        self.health.succeeded()
                    effects = table.forwarded(forward, answer.message)
            self.carry(effects)
        except Exception:  # one that escapes all the same: logged, never the task's end
            log.exception("a change forwarded for table %s: what followed failed",
                          forward.table_id)  # fmt: skip
        finally:
            self._settle(forward.table_id)  # its requester may have left meanwhile

    def _charge_requester(self, forward: Forward, seconds: float) -> None:
        """The owner took ``seconds`` of its CPU time for a change forwarded from
        here: charged to the rate of the connection that sent it, as if it had run
        here (the owner charged the table's rate; it is not charged here again)."""
        client = _asking(forward)
        if seconds > 0 and client is not None:
            client.protocol.charge_forwarded(seconds)

    async def _send(self, forward: Forward) -> Answer | None:
        """Send ``forward`` to the table's owner and return its reply; None when this
        process took the table over instead. :raises StoreError: no answer in time.
        :raises UnknownTable: nobody holds the lease and the table is not in Redis
        (deleted): its lease is not taken (:data:`TAKE`).
        :raises StoreError: (``reason`` ``stopping``) this process is stopping and
        nobody holds the lease: a stopping process takes none (it would hold the
        table, gone, for a whole lease)."""
        assert self.redis is not None or self.stopping, "not started"
        owner_key = self.keys.table(forward.table_id).owner
        fid = uuid.uuid4().hex
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self._waiting[fid] = future
        who = forward.principal
        assert who is not None
        payload = pack(
            {"fid": fid, "from": self.node, "table": forward.table_id,
             "message": dict(forward.message), "who": [who.role, who.name, who.key],
             "locale": forward.locale},
            stored,
        )  # fmt: skip
        deadline = time.monotonic() + self.forward_timeout
        sent_to: str | None = None
        # the last other process found running the table (by this change's forwards or
        # an earlier one's): a lease found free is taken over from it
        ran_it: str | None = getattr(forward.table, "ran_by", None)
        resend_at = deadline
        grace = 0.0  # until when a lease found free is left to its owner (Redis failed)
        grace_after = -math.inf  # the failure that grace follows: a later one restarts it
        held_here = False  # a read of this forward's was held (the lease held when sent)
        graces = 0  # how many graces this forward has begun (GRACES at most)
        # the last call to Redis failed with this: Redis, not the owner, is silent
        silent: Exception | None = None
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    if silent is not None:  # reason unreachable, as the store says it
                        raise self._refusal(silent, forward.table_id)
                    raise StoreError(
                        NO_OWNER(seconds=self.forward_timeout),
                        details={"reason": "no_owner", "table": forward.table_id},
                    )
                if self.redis is None:  # stopped meanwhile: Redis let go
                    raise _stopping(forward.table_id)
                try:
                    asked = time.monotonic()
                    raw = await self.redis.get(owner_key)
                    # Redis held this read (paused, stalled): the owner's renewal, sent
                    # every third of a lease, may have been held with it past the lease;
                    # a lease found free is left to it as after a failure — this lease
                    # held when the read was sent, though whose this forward never saw
                    held_here = self._held_since(asked) or held_here
                    silent = None
                    self._forward_log.worked()  # Redis answers
                    if raw is None:
                        if self.stopping:  # a stop has given the leases up, or is about to
                            raise _stopping(forward.table_id)
                        known = ran_it is not None or held_here
                        if known and self._outage_recent(2 * self.lease_ms / 1000):
                            # a lease that ran out while Redis failed: its live owner takes
                            # it again (RENEW) at its next renewal; taken here a lease on
                            if self._failed_at > grace_after and graces < GRACES:
                                # a failure since (Redis paused again after the wait): its
                                # owner's renewal is left a whole lease again, as after
                                # the first — once more at most (GRACES): a Redis failing
                                # within every lease takes a dead owner's table after two
                                grace = time.monotonic() + self.lease_ms / 1000
                                grace_after, graces = self._failed_at, graces + 1
                            if time.monotonic() < grace:
                                # one reader of the leases waited on for every forward
                                # of this process (cluster_lease_wait: an MGET of them),
                                # until this one is held again
                                holder = await self._lease_waits.held(
                                    forward.table_id, owner_key, min(grace, deadline)
                                )
                                if holder is not None:  # seen held: as below, anew
                                    # (Redis may pause before the read that follows)
                                    graces = 0
                                continue
                        keys = self.keys.table(forward.table_id)
                        self._lease_calls[fid] = forward.table_id  # a stop meanwhile releases it
                        taken = await self._take(
                            keys=[owner_key, keys.info, keys.let_go],
                            args=[self.node, self.lease_ms, ran_it or ""],
                        )
                        del self._lease_calls[fid]
                        if taken == -1:  # deleted (its lease with it): nobody runs it now
                            raise unknown_table(forward.table_id)
                        if taken:
                            self._took(forward.table_id, ran_it)
                            forward.reload, forward.taken_from = True, ran_it
                            if ran_it is not None and (taken == 2 or await self._stopped(ran_it)):
                                forward.taken_from = None  # let go, not lost: loaded
                            if forward.table is not None:
                                forward.table.ran_by = None  # run here now
                            return None
                        continue
                    # (bytes no process id is, written by another program: a holder
                    # that answers nobody, waited for until the forward's timeout)
                    owner = raw.decode(errors="backslashreplace")
                    # held: whoever holds it is alive (a lease found free is taken again
                    # only by its live owner's renewal, or by another process), so the
                    # graces begin anew — a dead owner's once at most (its last renewal,
                    # held in a paused Redis); the forward's deadline bounds the wait
                    graces = 0
                    if forward.table is not None:  # run here now, or seen run there
                        forward.table.ran_by = None if owner == self.node else owner
                    if owner != self.node:
                        ran_it = owner
                        self.older.saw(owner)
                    if owner == self.node:  # another change took it first: no reload
                        forward.reload = not self._took(forward.table_id)
                        return None
                    if owner != sent_to or time.monotonic() >= resend_at:
                        # to a new owner; or again to the same, its answer may be lost (the
                        # owner answers a request id it is running or ran with that result)
                        pushed = time.monotonic()
                        await self._push(f"{self.keys.prefix}node:{owner}:inbox", payload)
                        self._held_since(pushed)  # held past its lease: as a read held
                        sent_to, resend_at = owner, time.monotonic() + self.lease_ms / 1000
                except REDIS_FAILURES as exc:
                    if _refuses_writes(exc):
                        # out of memory, unable to persist, a replica: no retry within
                        # the forward's timeout will change that; the client is told at
                        # once (the log says it once, as the store's health)
                        raise self._refusal(exc, forward.table_id) from None
                    self._forward_log.failed(exc, f"to table {forward.table_id}")
                    self._failed_at = time.monotonic()
                    silent = exc
                    await asyncio.sleep(min(0.2, max(left, 0)))
                    continue
                wait = min(left, self.lease_ms / 2000)
                with contextlib.suppress(TimeoutError):
                    return await within(future, wait)  # (a cancel is never lost)
        finally:
            self._waiting.pop(fid, None)
            if not self.stopping:  # (stopping: the stop releases what it was taking)
                self._lease_calls.pop(fid, None)

    async def _read_leases(self, keys: Sequence[str]) -> list[bytes | None]:
        """The holders of the leases at ``keys`` (one ``MGET``), each None while free;
        all None once Redis is let go (stopped: the waits end)."""
        redis = self.redis
        if redis is None:
            return [None] * len(keys)
        return list(await redis.mget(list(keys)))

    async def _stopped(self, node: str) -> bool:
        """Whether process ``node`` stopped, saying goodbye: its claim deleted
        (:func:`~rollbridge.server.cluster_peers.leave`, after it gave its leases up)
        and not recorded gone without stopping. A process killed, hung or cut off from
        Redis keeps its claim for :data:`CLAIM_LEASES` leases, then is recorded gone
        for as long: a lease of it found free is a take-over. Redis failing: not known
        to have stopped (a take-over, as before the check)."""
        assert self.redis is not None
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.hexists(self.peers_key, node).hexists(self.departed_key, node)
                claimed, gone = await pipe.execute()
        except REDIS_FAILURES:
            return False
        return not claimed and not gone

    def _refusal(self, error: Exception, table_id: str) -> StoreError:
        """A Redis error that ended a forward, as the store says it (a
        :class:`StoreUnavailable` whose ``reason`` is the store's own: a commit of
        this process failing so is one outage with it), naming the table; of a
        command in a pipeline, only what Redis answered. A socket's own error
        (not redis-py's) is Redis not answering (``reason`` ``unreachable``)."""
        said = cause(error)
        if not isinstance(error, redis.RedisError):
            error = redis.ConnectionError(said)
        elif said != str(error):  # not the packed request redis-py puts before it
            error = type(error)(said)
        refusal = self._store_error(error)
        refusal.details["table"] = table_id
        return refusal

    def _took(self, table_id: str, ran_it: str | None = None) -> bool:
        """Record the lease of ``table_id`` as held here; whether it already was.
        (The subscription loop then leaves the table's channel: its notices are of
        this process's own commits.) ``ran_it``: the process that held the lease
        before, as this process saw it (said, and remembered: :attr:`departures`)."""
        held = not self.ownership.take(table_id)
        if not held and ran_it is not None:
            log.info("this process now runs table %s (process %s ran it before)",
                     table_id, named(ran_it))  # fmt: skip
            self.departures.took(table_id, ran_it)
        elif not held:
            log.info("this process now runs table %s", table_id)
        self._renewed[table_id] = self._used[table_id] = time.monotonic()
        return held

    async def _answer(self, origin: Remote, message: JSON) -> None:
        """Push the reply of a forwarded request to the process that sent it, with
        the CPU time its handling took here (``work``: its requester's connection is
        charged for it there; a process of an older version ignores it)."""
        assert self.redis is not None, "not started"
        where = f"{self.keys.prefix}node:{origin.node}:replies"
        data = pack({"fid": origin.fid, "message": message, "work": origin.work}, stored)
        for attempt in range(3):  # a connection Redis dropped is made again
            try:
                await self._push(where, data)
                return
            except REDIS_FAILURES as exc:
                if attempt == 2:  # the sender sends its request again, or times out
                    log.warning(
                        "the answer to a change process %s forwarded was lost (it sends "
                        "the change again, or tells its client store_error): %s",
                        named(origin.node), self._advice(exc),
                    )  # fmt: skip
                else:
                    await asyncio.sleep(0.1)

    async def _push(self, where: str, data: bytes) -> None:
        """Append to another process's list, which lives as long as a forward waits."""
        assert self.redis is not None, "not started"
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.rpush(where, data)
            pipe.pexpire(where, int(self.forward_timeout * 1000) + self.lease_ms)
            await pipe.execute()

    async def _read_inbox(self) -> None:
        """Pop forwarded requests (run them) and replies (hand them to their waiter):
        one blocking pop, then whatever else both lists hold in one round trip, the
        replies first — a busy inbox never holds back the answers this process's own
        forwards wait for, and a burst costs one round trip, not one per message."""
        assert self.redis is not None
        # the pop blocks in Redis at most half the connection's reply timeout (1 s by
        # default; less when a URL's socket_timeout is below 2 s), so an idle inbox is
        # never taken for a dead connection
        reply_timeout = self.redis.connection_pool.connection_kwargs.get("socket_timeout")
        wait = 1.0 if not reply_timeout else max(0.05, min(1.0, reply_timeout / 2))
        late = 0  # the pops in a row whose reply came too late, not said
        while not self.stopping:
            sent = time.monotonic()
            try:
                popped = await self.redis.blpop([self.replies, self.inbox], timeout=wait)
            except REDIS_FAILURES as exc:
                if _timed_out(exc) and (late == 0 or (late == 1 and _stalled(sent, reply_timeout))):
                    # one reply late is this process's own load (a machine busy enough to
                    # hold it past its reply timeout, or the process paused), not a Redis
                    # that hangs: said when the next pop, on a new connection, fails too —
                    # unless this process noticed that one late as well (stalled again);
                    # once only: a new connection to a Redis that takes none waits the
                    # connect timeout, "stalled" at every pop, and was never said (rev29o)
                    late += 1
                    continue
                self._inbox_log.failed(exc)
                await asyncio.sleep(0.2)
                continue
            late = 0
            self._inbox_log.worked()
            if popped is None:
                continue
            replies = requests = None
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    pipe.lpop(self.replies, INBOX_BATCH)
                    pipe.lpop(self.inbox, INBOX_BATCH)
                    replies, requests = await pipe.execute(raise_on_error=False)
            except REDIS_FAILURES as exc:
                # what Redis popped before the answer was lost is gone from here: each
                # sender sends its request again after a lease without an answer
                self._inbox_log.failed(exc)
            replies = replies if isinstance(replies, list) else None
            requests = requests if isinstance(requests, list) else None
            key, first = popped
            if key.decode() == self.replies:
                replies = [first, *(replies or ())]
            else:
                requests = [first, *(requests or ())]
            for data in replies or ():  # the answers first; each list in order
                self._handle_popped(True, data)
            for data in requests or ():
                self._handle_popped(False, data)

    def _handle_popped(self, is_reply: bool, data: bytes) -> None:
        """Hand a popped reply to its waiter, or run a popped request."""
        try:
            body = unpack(data)
            if is_reply:
                waiter = self._waiting.get(body["fid"])
                if waiter is not None and not waiter.done():
                    waiter.set_result(Answer(body["message"], _work(body.get("work"))))
            else:
                self._run_forwarded(body)
        except Exception:
            log.exception("a forwarded message could not be handled")

    def _run_forwarded(self, body: dict[str, Any]) -> None:
        """Run a request another process forwarded, as if its requester were here."""
        origin = Remote(body["from"], body["fid"])
        if self.ownership.owns(body["table"]):
            self._used[body["table"]] = time.monotonic()  # in use, by other processes' clients
        who = Principal(*body["who"])
        message, locale = body["message"], body["locale"]
        if origin.fid not in self._counted:  # a forward sent again is counted once
            try:
                # every change of a table, from any process, passes here: the owner's
                # bucket holds the table to its rate across processes
                self.tables.count_at_table(body["table"])
            except RateLimited as exc:
                refused = error_message(message.get("id"), exc, locale)
                self.carry([Reply(origin=origin, message=refused, error=exc)])
                return
            self._counted[origin.fid] = None
            if len(self._counted) > COUNTED_FORWARDS:
                del self._counted[next(iter(self._counted))]

        def opened(found: Any) -> list[Effect]:
            if isinstance(found, BaseException):
                error = found if isinstance(found, RollbridgeError) else StoreError(str(found))
                refused = error_message(message.get("id"), error, locale)
                return [Reply(origin=origin, message=refused, error=error)]
            clock = self.tables.rates.work_clock
            started = clock()
            try:
                return found.receive(message, who, origin, locale=locale)
            finally:  # its requester's process timed only the forwarding
                origin.work = clock() - started  # sent back with the reply
                self.tables.charge_work(body["table"], origin.work)

        self.carry(self.tables.get(body["table"], opened))

    # -- the lease ------------------------------------------------------------------------

    @property
    def shared_settings(self) -> str:
        """The settings every process on this Redis must share, as JSON
        (:mod:`~rollbridge.server.cluster_peers`)."""
        retain = int(getattr(self.store, "retain", 0))
        return shared(retain, self.limits.max_actors, self.limits.max_event_bytes)

    @property
    def peers_key(self) -> str:
        """The hash of every live process's settings."""
        return self.keys.glob("processes")

    @property
    def departed_key(self) -> str:
        """The hash of the processes found gone without stopping, kept a claim's
        length (:data:`~rollbridge.server.cluster_peers.CLAIM`)."""
        return self.keys.glob("processes:gone")

    def claim_settings(self) -> None:
        """Name this process's settings among the others' before it serves.

        :raises InvalidRequest: (``settings_differ``) a live process on this Redis
            runs with other ``--retain``, ``--max-actors`` or ``--max-event-size``.
        :raises StoreError: Redis failed."""
        ttl = self.lease_ms * CLAIM_LEASES
        call = getattr(self.store, "call", None)
        assert call is not None, "a cluster process runs on a Redis store"
        client = self.store.client  # type: ignore[attr-defined]
        call(lambda: mark(client, self.keys.prefix, self.node, ttl))  # before its claim
        call(lambda: claim(client, self.peers_key, self.departed_key, self.node,
                           self.shared_settings, ttl))  # fmt: skip
        self._claimed = True

    def _unclaim_unstarted(self) -> None:
        """Delete the claim of a process that never started (its port was taken): it
        served nothing, and must not hold its settings against the next start for
        three leases. A Redis that fails meanwhile: the claim lapses."""
        if not self._claimed or self.redis is not None:
            return
        self._claimed = False
        with contextlib.suppress(RollbridgeError):
            self.store.call(  # type: ignore[attr-defined]
                lambda: self.store.client.hdel(self.peers_key, self.node)  # type: ignore[attr-defined]
            )

    async def _renew_settings(self) -> None:
        """Renew this process's claim of its settings (with the leases). A live
        process found with other settings (it started while this one's claim had
        lapsed: Redis lost its data, or did not answer for several leases, or this
        process was paused) is logged once, as a WARNING; this process's claim is
        renewed all the same, so that the other one finds it and says so too, and a
        process started meanwhile is checked against both. A process whose claim ran
        out is said gone, with the tables taken over from it here
        (:class:`~rollbridge.server.cluster_peers.Departures`)."""
        assert self.redis is not None
        try:
            await self.older.remark(self.redis, self.lease_ms * CLAIM_LEASES)  # first
            found, gone = await self._claim(
                keys=[self.peers_key, self.departed_key],
                args=[self.node, self.shared_settings, self.lease_ms * CLAIM_LEASES, 1],
            )
        except REDIS_FAILURES:  # the lease renewals that follow say that Redis fails
            self._failed_at = time.monotonic()
            return
        with contextlib.suppress(*REDIS_FAILURES):  # (said by the leases' renewals)
            await self.older.look(self.redis)
        self.departures.gone(gone)  # an empty answer too: who is no longer gone
        if found and not self._differ_told:
            self._differ_told = True
            other, theirs = (p.decode() if isinstance(p, bytes) else str(p) for p in found[:2])
            log.warning("process %s on this Redis runs with other settings than this one "
                        "(%s there, %s here): stop one of them and start it with the same "
                        "values", other, theirs, self.shared_settings)  # fmt: skip
        elif not found:
            self._differ_told = False

    async def _keep_leases(self) -> None:
        """Renew every lease held, every third of its length (every 0.1 s while Redis
        fails); a lease found taken, or run out with the table written since, is given
        up here too (one that Redis does not answer for is kept meanwhile), and so is the lease of a
        table unused (no client here, nothing running) for :attr:`idle_leases`
        lease lengths, and at once that of a table whose reloads keep failing here
        (:attr:`ClusterTable.stuck <rollbridge.server.cluster_table.ClusterTable.stuck>`):
        another process takes it when it needs it."""
        assert self.redis is not None
        while not self.stopping:
            # Redis failing: tried again soon, so that the leases that ran out meanwhile
            # are taken again by their owners before another process's forward
            await asyncio.sleep(self.lease_ms / 3000 if not self._outage_recent(0.5) else 0.1)
            try:
                await self._renew_settings()
            except Exception:  # a bug: logged, never the loop's end
                log.exception("renewing this process's settings failed")
            now = time.monotonic()
            for table_id in self.ownership.owned:  # a snapshot: _give_up, _lost change it
                try:
                    await self._keep_lease(table_id, now)
                except Exception:  # a bug: that table's turn alone, never the loop's end
                    log.exception("table %s: keeping its lease failed", table_id)

    async def _keep_lease(self, table_id: str, now: float) -> None:
        """One lease of :meth:`_keep_leases`: renewed, given up or found lost. (A call
        of its own: the table it looked at is not kept by the loop while it sleeps.)"""
        owner_key = self.keys.table(table_id).owner
        protocol = self.tables.open.get(table_id)
        if isinstance(protocol, ClusterTable) and protocol.stuck:
            # its reads fail here, again and again: another process may read it
            log.warning("table %s: loading it failed %d times in a row; giving its lease up",
                        table_id, protocol.failures)  # fmt: skip
            await self._give_up(table_id, protocol, "its reads fail here")
            return
        if protocol is not None and (not isinstance(protocol, ClusterTable) or protocol.used):
            self._used[table_id] = now
        # unused, or not in memory at all: unused since then, and given up
        # after a while like any (not renewed for good)
        elif now - self._used.setdefault(table_id, now) > self.idle_leases * (self.lease_ms / 1000):
            await self._give_up(table_id, protocol)
            return
        keys, args = [owner_key], [self.node, self.lease_ms]
        if table_id in self._unrenewed and isinstance(protocol, ClusterTable):
            # its lease may have run out while Redis failed: taken again if stored so
            keys.append(self.keys.table(table_id).info)
            args += [protocol.table.info.epoch, protocol.durable_seq]
        try:
            kept = await self._renew(keys=keys, args=args)
        except REDIS_FAILURES as exc:
            # kept meanwhile: while Redis fails nobody commits through it, and the
            # renewal that Redis answers says whether the lease is still this one's
            self._renew_log.failed(exc, f"(table {table_id})")
            self._failed_at = time.monotonic()
            self._unrenewed.add(table_id)
            return
        self._renew_log.worked()
        self._unrenewed.discard(table_id)
        if kept:
            self._renewed[table_id] = time.monotonic()
            if kept == 2:
                log.info("table %s: its lease ran out while Redis failed; taken again "
                         "(nobody wrote it meanwhile)", table_id)  # fmt: skip
        elif len(keys) == 1 and self._answered_late(table_id):
            # Redis held this renewal past the lease (paused, stalled: its clock ran on,
            # the reply timeout did not end the call): as one it did not answer, tried
            # again at once with the table's epoch and seq
            self._failed_at = time.monotonic()
            self._unrenewed.add(table_id)
        else:
            self._lost(table_id)

    def _answered_late(self, table_id: str) -> bool:
        """Whether table ``table_id``'s lease was last renewed here longer than a lease
        ago: a renewal answered 0 now may have found it run out while Redis (or this
        process) was paused."""
        renewed = self._renewed.get(table_id)
        return renewed is not None and time.monotonic() - renewed > self.lease_ms / 1000

    def _held_since(self, sent: float) -> bool:
        """Whether a call to Redis sent at ``sent`` (``time.monotonic``) was held past a
        third of a lease (Redis paused, stalled): then counted as a failure now, as
        the renewals sent meanwhile may have been held with it past their lease."""
        if time.monotonic() - sent <= self.lease_ms / 3000:
            return False
        self._failed_at = time.monotonic()
        return True

    def _outage_recent(self, seconds: float) -> bool:
        """Whether a call to Redis failed here within the last ``seconds``."""
        return time.monotonic() - self._failed_at < seconds

    async def _give_up(
        self, table_id: str, protocol: ClusterTable | None, why: str = "unused"
    ) -> None:
        """Drop an unused table from memory and release its lease. (A table still
        used here, one :attr:`~ClusterTable.stuck`, stays in memory, followed.)"""
        assert self.redis is not None
        self.ownership.drop(table_id)  # from now on its changes are forwarded
        self._renewed.pop(table_id, None)
        self._unrenewed.discard(table_id)
        self._used.pop(table_id, None)
        # out of memory before the await: the subscription loop, which would subscribe
        # to the channel of a table held here but no longer owned, never sees it
        if protocol is not None:
            self.tables.release(protocol)
        key = uuid.uuid4().hex  # a stop that cancels the release meanwhile releases it
        self._lease_calls[key] = table_id
        try:
            keys = self.keys.table(table_id)  # noted let go: no take-over (TAKE)
            await self._release(keys=[keys.owner, keys.let_go], args=[self.node, LET_GO_KEEP_MS])
        except REDIS_FAILURES as exc:  # it runs out by itself
            log.warning("giving up the lease of table %s failed (it runs out by itself "
                        "within --lease-ms): %s", table_id, self._advice(exc))  # fmt: skip
        finally:
            if not self.stopping:
                self._lease_calls.pop(key, None)
        log.info("this process gave up table %s (%s)", table_id, why)

    def _lost(self, table_id: str) -> None:
        """The lease of ``table_id`` is gone: sync the table (the new owner may have
        committed); the subscription loop subscribes to its channel again (and syncs
        once subscribed) if it stays in memory."""
        log.warning("this process no longer runs table %s (its lease is gone)", table_id)
        self.ownership.drop(table_id)
        self._renewed.pop(table_id, None)
        self._unrenewed.discard(table_id)
        self._used.pop(table_id, None)  # kept only for tables owned here
        protocol = self.tables.open.get(table_id)
        if isinstance(protocol, ClusterTable):
            self.carry(protocol.resync())
            self.tables.release(protocol)

    # -- following the stored log ---------------------------------------------------------

    def _notice(self, table_id: str, epoch: int, seq: int) -> None:
        protocol = self.tables.open.get(table_id)
        if isinstance(protocol, ClusterTable):
            self.carry(protocol.notified(epoch, seq))

    def _resync(self, table_id: str) -> None:
        protocol = self.tables.open.get(table_id)
        if isinstance(protocol, ClusterTable):
            self.carry(protocol.resync())

    async def _listen(self) -> None:
        """Subscribe to the channel of every table held in memory and not owned here;
        a notice of a commit ahead of this process syncs the table. The owner's own
        commits need no notice: when a table becomes owned here its channel is left,
        and when the lease ends (lost, given up) while the table stays in memory it is
        subscribed to again and the table synced (what the new owner committed before
        the subscription is read from the log). A lost subscription is made again, and
        every table followed synced (what was published meanwhile is read from the
        log)."""
        assert self.redis is not None
        while not self.stopping:
            pubsub = self.redis.pubsub()
            subscribed: dict[str, str] = {}
            watch = _Silence(self.subscription_ping, self.subscription_ping)
            open_ids: set[str] = set()
            version = -1
            try:
                while not self.stopping:
                    # the channels wanted are worked out again only when the tables
                    # held or those owned change, not for every message
                    if self.ownership.version != version or self.tables.open.keys() != open_ids:
                        version = self.ownership.version  # before any await: a change
                        open_ids = set(self.tables.open)  # meanwhile is seen next turn
                        owned = self.ownership.owned
                        wanted = {self.keys.table(t).channel: t for t in open_ids if t not in owned}
                        new = [c for c in wanted if c not in subscribed]
                        gone = [c for c in subscribed if c not in wanted]
                        if new:
                            await pubsub.subscribe(*new)
                            for channel in new:
                                subscribed[channel] = wanted[channel]
                                self._resync(wanted[channel])  # what came before it
                        if gone:
                            await pubsub.unsubscribe(*gone)
                            for channel in gone:
                                del subscribed[channel]
                    # redis-py forgets a channel when it reads its unsubscribe reply: read
                    # on until then, or a reconnection would subscribe to it again
                    if not subscribed and not pubsub.subscribed:
                        watch.heard()  # nothing to hear: no silence to count, no ping due
                        await asyncio.sleep(0.1)
                        continue
                    await watch.check(pubsub)
                    message = await pubsub.get_message(ignore_subscribe_messages=True,
                                                       timeout=0.1)  # fmt: skip
                    self._subscription_log.worked()
                    if message is None:
                        continue
                    watch.heard()
                    if message.get("type") != "message":
                        continue
                    table_id = subscribed.get(message["channel"].decode())
                    if table_id is None:  # sent before its unsubscribe took effect
                        continue
                    epoch, _, seq = message["data"].decode().partition(":")
                    self._notice(table_id, int(epoch), int(seq))
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self._subscription_log.failed(exc, "(lost; subscribing again)")
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
            await asyncio.sleep(0.1)

    def _gone(self, table_id: str) -> None:
        """The table is no longer in Redis (its data lost, its info key deleted): its
        clients here are closed (1008, as for a deleted table); the table leaves memory
        once unused, and a hello for it is refused (``unknown_table``)."""
        protocol = self.tables.open.get(table_id)
        if not isinstance(protocol, ClusterTable) or not protocol.members:
            return
        log.warning(
            "table %s is gone from Redis (deleted, or Redis lost its data); closing its clients",
            table_id,
        )
        members = list(protocol.members)
        for member in members:
            protocol.leave(member)
        # told as one process tells a deleted table's clients: in each one's language
        self.carry([Close(member=m, code=CLOSE_AUTH, reason=_deleted(m.origin)) for m in members])

    def _tick(self) -> None:
        """What time alone ends, for every table held (:meth:`ClusterTable.tick
        <rollbridge.server.cluster_table.ClusterTable.tick>`): a parked reply past
        :attr:`park_timeout` is answered ``store_error``; a broken table something
        waits on loads itself again, with a growing pause. A table's failure here is
        logged and costs the others nothing."""
        now = time.monotonic()
        first, most = self.reload_retry
        for protocol in list(self.tables.open.values()):
            if not isinstance(protocol, ClusterTable):
                continue
            try:
                effects = protocol.tick(now, patience=self.park_timeout, first=first, most=most)
            except Exception:
                log.exception("table %s: its timers failed", protocol.id)
                continue
            if effects:
                self.carry(effects)

    async def _check_dice_key(self) -> None:
        """Keep this process's key of verifiable dice the one Redis holds
        (``rb:dice_key``): put it back if Redis lost it (``SET NX``), and take
        Redis's if another was made meanwhile — by a process started, or a ``table
        create`` run, after Redis lost its data — so that every process and every
        table made since derive the same seeds. Before, a process kept the key it
        started with: every roll at a verifiable table made after the loss was
        refused ``dice_key_lost`` until the process was restarted. A Redis that
        fails is said by the poll."""
        assert self.redis is not None
        key = self.keys.glob("dice_key")
        mine = self.dice_key.secret()
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.set(key, mine, nx=True)
                pipe.get(key)
                put, held = await pipe.execute()
        except REDIS_FAILURES:
            return
        if put:
            # made at every start and never deleted: Redis lost its data (FLUSHALL, a
            # restart without its AOF), and with it every table it held
            log.error("the key of verifiable dice was gone from Redis: Redis lost its "
                      "data (FLUSHALL, or a restart without its appendonly files), and "
                      "the tables it held with it; restore the last backup (docs/redis.md, "
                      "\"Backups\"); this process put its own back")  # fmt: skip
            return
        if held is None:
            return
        try:
            changed = self.dice_key.adopt(bytes(held))
        except ValueError as exc:  # not a key (written by hand?): nobody's dice use it
            if not self._bad_key_told:
                self._bad_key_told = True
                log.error("%s in Redis is no key of verifiable dice (%s): this process "
                          "keeps its own; delete it (DEL %s) and the processes put theirs "
                          "back", key, exc, key)  # fmt: skip
            return
        self._bad_key_told = False
        if changed:
            log.warning("the key of verifiable dice in Redis is not the one this process "
                        "had (Redis lost its data, or holds another copy's): this process "
                        "takes Redis's; a verifiable table's segment opened under the other "
                        "refuses its dice (dice_key_lost) until its GM's dice.reveal")  # fmt: skip

    async def _poll(self) -> None:
        """Read the stored (epoch, seq) of every table held in memory, every
        ``poll_interval`` seconds: a notice lost on a connection that died silently
        is found here."""
        assert self.redis is not None
        while not self.stopping:
            await asyncio.sleep(self.poll_interval)
            try:
                await self._check_dice_key()
            except Exception:  # a bug: logged, never the poll's end
                log.exception("checking the key of verifiable dice failed")
            try:
                self._tick()
                # one left idle after a sync is dropped here (no loop variable of this
                # loop names a table while it sleeps: it would keep the last one alive)
                self.sweep()
            except Exception:  # a bug: logged, never the poll's end
                log.exception("the poll's timers and sweep failed")
            tables = list(self.tables.open)
            if not tables:
                continue
            # what each table had committed before the read: a stored table found
            # behind it went back in time (a failover), and its sync fences it
            known = [delivered(self.tables.open.get(t)) for t in tables]
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    for table_id in tables:
                        pipe.hmget(self.keys.table(table_id).info, "epoch", "seq")
                    stored_at = await pipe.execute()
            except REDIS_FAILURES as exc:
                self._poll_log.failed(exc)
                continue
            self._poll_log.worked()
            for table_id, (epoch, seq), point in zip(tables, stored_at, known, strict=True):
                try:
                    if epoch is None or seq is None:
                        self._gone(table_id)
                    elif point is not None and behind((int(epoch), int(seq)), point):
                        self._resync(table_id)
                    else:
                        self._notice(table_id, int(epoch), int(seq))
                except Exception:  # a bug: that table's alone, never the poll's end
                    log.exception("table %s: following its stored seq failed", table_id)


def _deleted(origin: Any) -> str:
    """The close reason of a deleted table's client (``table deleted``, in its
    language when it is one of this process's clients)."""
    return (
        origin.reason(TABLE_DELETED()) if isinstance(origin, Client) else TABLE_DELETED().render()
    )
