"""The WebSocket server: many tables in one process, on one store.

A driver of the sans-I/O :mod:`rollbridge.protocol`, and nothing more: websockets'
asyncio server accepts connections (:class:`~rollbridge.server.client.Client`,
which hands each frame to its :class:`~rollbridge.protocol.connection.Connection`),
and :meth:`Server.carry` carries out what the protocol asks — frames written to
clients, store reads on a thread of their own (never on the event loop), commits
through the one :class:`~rollbridge.server.writer.CommitWriter` thread, which makes
every change durable before it is acknowledged.

Limits: frames up to 64 KiB (larger closes with 1009), 4 MiB unsent per client
(more disconnects it with 1013), 1,024 changes waiting for the disk (more are
refused with error ``busy``), pings every 20 s, compression off.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import functools
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from websockets.asyncio.server import ServerConnection, serve
from websockets.protocol import State

from rollbridge.dice.sources import DiceSource, SecureDice
from rollbridge.dice.verifiable import DiceKey
from rollbridge.exceptions import Busy, InternalError, RateLimited, StoreError, StoreUnavailable
from rollbridge.host import PluginHost
from rollbridge.protocol.connection import CLOSE_AUTH, CLOSE_BEHIND, CLOSE_LIMIT, Tables
from rollbridge.protocol.effects import (
    Close,
    Compute,
    Deliver,
    Effect,
    Notify,
    Persist,
    Read,
    ReadEvents,
    Reopened,
    Reply,
)
from rollbridge.protocol.frames import MAX_FRAME
from rollbridge.protocol.limits import Rates
from rollbridge.protocol.observers import notify
from rollbridge.protocol.table import FAILED, ReadChanges, ReadRecalled, ReadRetained, ReadSettled
from rollbridge.server.address_rates import wrong_tokens
from rollbridge.server.addresses import AddressCounts, address_group, peer_address, rated_address
from rollbridge.server.bounded import BoundedConnection, Opening
from rollbridge.server.client import Client
from rollbridge.server.collector import CollectorManager
from rollbridge.server.http import HttpRoutes
from rollbridge.server.let_go import let_go
from rollbridge.server.limits import (
    BUFFER_LIMIT,
    DEFAULT_HOST,
    DEFAULT_PORT,
    PING_INTERVAL,
    READER_THREADS,
    SWEEP_INTERVAL,
    TOKEN_CHECK_INTERVAL,
    Limits,
)
from rollbridge.server.listen import cannot_listen, host_port
from rollbridge.server.logs import log_refusal
from rollbridge.server.metrics import ServerMetrics
from rollbridge.server.outbox import Outbox
from rollbridge.server.overdue import overdue_refusal
from rollbridge.server.store_health import StoreHealth
from rollbridge.server.store_probe import PROBE_EVERY, probe_store
from rollbridge.server.throttle import Retried, Throttle
from rollbridge.server.writer import MAX_PENDING, CommitWriter, stopping
from rollbridge.stores.base import Store
from rollbridge.text import Messages
from rollbridge.words import counted

__all__ = ["BUFFER_LIMIT", "DEFAULT_HOST", "DEFAULT_PORT", "Server"]

log = logging.getLogger("rollbridge.server")
say = Messages("rollbridge")
# Translators: the reason of a WebSocket close (at most 123 bytes).
REVOKED = say("server.revoked", "token revoked")
# Translators: the reason of a WebSocket close (at most 123 bytes): the table the
# connection was at has been deleted.
TABLE_DELETED = say("server.table_deleted", "table deleted")
# Translators: the reason of a WebSocket close (at most 123 bytes).
TOO_MANY_FROM_ADDRESS = say("server.per_address", "too many connections from this address")
# Translators: the reason of a WebSocket close (at most 123 bytes).
SERVER_FULL = say("server.full", "the server is full; try again later")
#: Seconds a connection refused before its ``hello`` (a full server, an address at
#: its limit) has to take its close before it is aborted.
REFUSED_CLOSE_TIMEOUT = 1.0
#: Port 0 on a host of several addresses: how many times a port free on all is sought.
PORT_ATTEMPTS = 5

#: The reads of a table's log (and the counting of one, ``stats``): what may decode
#: a log of the largest events. Only these hold the collector off
#: (:meth:`~rollbridge.server.collector.CollectorManager.quiet`) — a table's load, a
#: stored reply's or a token's look-up makes few objects, and holding every pass off
#: for them, hundreds a second at a busy server, kept the heap from being checked
#: (hostile28) — and only these are charged to the asker's rates.
LOG_READS = (ReadEvents, ReadRetained, Compute)
#: The reads of the log a request begins (``state`` at a seq or with ``undone``,
#: ``stats``, a repeated request's walk back to its event): refused ``rate_limited``
#: when their turn comes while the table owes an earlier read's time
#: (:meth:`~rollbridge.protocol.connection.Tables.read_refusal`) or the server refuses
#: every read (:meth:`Server._overdue_refusal`);
#: never a GM's welcome's read of the settled requests (:class:`ReadSettled`: the
#: join's, counted at its ``hello``).
ASKED_READS = (ReadChanges, ReadRecalled, ReadRetained)


class Server:
    """rollbridge's live server.

    :param store: where tables live (SQLite by default, see ``rollbridge serve``).
    :param host: the plugin host.
    :param address: interface to listen on.
    :param port: port to listen on (0: any free port; see :attr:`port`).
    :param dice: makes the dice source of each request.
    :param buffer_limit: unsent bytes per client before it is disconnected.
    :param ping_interval: keepalive ping interval in seconds (None: off).
    :param compression: ``"deflate"`` to enable permessage-deflate (off by default).
    :param max_pending: changes that may wait to be written before new ones are
        refused with error ``busy`` (reads and repeats are still answered).
    :param token_check_interval: seconds between checks for revoked tokens
        (None: never check).
    :param sweep_interval: seconds between sweeps that drop idle tables still in
        memory, a backstop to dropping each as it becomes idle (None: no sweep).
    :param probe_interval: seconds between two tries of the store while its changes
        fail (:mod:`rollbridge.server.store_probe`).
    :param manage_gc: keep the garbage collector's full passes off the
        long-lived heap (:mod:`rollbridge.server.collector`); global to the
        interpreter, so only for a process that is the server (``rollbridge serve``).
    """

    def __init__(
        self,
        store: Store,
        host: PluginHost,
        *,
        address: str = DEFAULT_HOST,
        port: int = DEFAULT_PORT,
        dice: Callable[[], DiceSource] = SecureDice,
        buffer_limit: int = BUFFER_LIMIT,
        ping_interval: float | None = PING_INTERVAL,
        compression: str | None = None,
        max_pending: int = MAX_PENDING,
        token_check_interval: float | None = TOKEN_CHECK_INTERVAL,
        manage_gc: bool = False,
        limits: Limits | None = None,
        dice_key: DiceKey | None = None,
        sweep_interval: float | None = SWEEP_INTERVAL,
        probe_interval: float = PROBE_EVERY,
    ) -> None:
        self.store = store
        #: The key of verifiable dice: the store's (beside its file), unless given.
        self.dice_key = dice_key if dice_key is not None else DiceKey.for_store(store)
        self.host = host
        self.address = address
        self.requested_port = port
        self.dice = dice
        self.buffer_limit = buffer_limit
        self.ping_interval = ping_interval
        self.compression = compression
        self.max_pending = max_pending
        self.token_check_interval = token_check_interval
        #: Seconds between sweeps for idle tables left in memory (None: none).
        self.sweep_interval = sweep_interval
        self._sweeper: asyncio.Task | None = None
        self.probe_interval = probe_interval
        self._prober: asyncio.Task | None = None
        limits = self.limits = limits or Limits()
        self.hello_timeout = limits.hello_timeout
        self.abort_after = limits.close_timeout
        #: Open connections per client address (for ``limits.per_address``).
        self.per_address = AddressCounts()
        self._token_watch: asyncio.Task | None = None
        #: The store failing each check: the first failure, then one line a minute. The
        #: lines say what failed: a read of the tokens (the store's words say why).
        self._token_check_log = Retried(
            log, "checking for revoked tokens, reading every table's tokens", level=logging.ERROR
        )
        self.collector = CollectorManager() if manage_gc else None
        self.metrics = ServerMetrics(self)
        self.tables = Tables(
            host.rulesets,
            rates=Rates(limits.rate_per_connection, limits.rate_per_table),
            max_per_token=limits.per_token,
            wrong_tokens=wrong_tokens(limits, self.metrics),
            dice=dice,
            admit=self._admit,
            max_event_bytes=limits.max_event_bytes,
            max_actors=limits.max_actors,
            dice_key=self.dice_key,
            clock=time.time,
            retain=store.retain,
            # half the outbox, the welcome counted: room is left for the live frames
            backlog_limit=buffer_limit // 2,
        )
        # a resume that reads the log is refused as state and stats are (review of hostile29)
        self.tables.server_read_refusal = self._overdue_refusal
        self.clients: set[Client] = set()
        #: Connections open, refused ones still closing and joined ones alike (for
        #: ``limits.max_connections``: each holds a socket).
        self.sockets = 0
        #: A full server refuses many connections, and logs one line a minute; an
        #: address at its limit one every 10 s.
        self._full_log = Throttle(60.0)
        self._per_address_log = Throttle(10.0)
        #: Where frames leave; a batch writes each client's frames together.
        self.outbox = Outbox()
        self.writer: CommitWriter | None = None
        #: Whether the store works: an outage (a full disk, Redis gone) logged once.
        self.health = StoreHealth()
        self._reader: ThreadPoolExecutor | None = None
        #: The events read for a computation still out (``stats``): dropped after it.
        self._held: dict[Read, list[Any]] = {}
        #: The reads out on the reader threads now (begun, their ``done`` not yet run).
        self._running: set[Read] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: Any = None
        #: Set when :meth:`stop` begins: ``/readyz`` answers 503 from then on.
        self.stopping = False
        #: Sockets still in their opening handshake, held to the connection limits.
        self.opening = Opening(limits.per_address, self.metrics.cut_off, limits.trusted_proxies)
        self.http = HttpRoutes(self)  # /metrics, /healthz, /readyz, /admin/

    # -- lifecycle ----------------------------------------------------------------

    async def start(self) -> None:
        """Start the writer and the readers, and listen."""
        loop = self._loop = asyncio.get_running_loop()
        self.writer = CommitWriter(
            self.store, loop, max_pending=self.max_pending, batch=self.outbox.batch,
            health=self.health,
        )  # fmt: skip
        self.writer.observe = self.metrics.committed
        self.tables.on_drop = self._table_dropped
        self._reader = ThreadPoolExecutor(READER_THREADS, thread_name_prefix="rollbridge-reader")
        try:
            self._server = await self._serve_on(self.requested_port)
            if self.requested_port == 0:
                self._server = await self._one_port(self._server)
        except OSError as exc:  # the port taken, privileged, or not this machine's
            raise cannot_listen(exc, self.address, self.requested_port) from None
        if self.collector is not None:
            self.collector.start()
        if self.token_check_interval is not None:
            self._token_watch = loop.create_task(self._watch_tokens(self.token_check_interval))
        if self.sweep_interval is not None:
            self._sweeper = loop.create_task(self._sweep_idle(self.sweep_interval))
        self._prober = loop.create_task(probe_store(self, self.probe_interval))
        log.info("listening on %s", self.url)

    async def _serve_on(self, port: int) -> Any:
        """Listen on :attr:`address` (every address it names) at ``port``."""
        return await serve(
            self._handle,
            self.address,
            port,
            max_size=MAX_FRAME,
            max_queue=8,
            write_limit=32 * 1024,
            compression=self.compression,
            process_request=self.http.process_request,
            process_response=self.http.process_response,
            ping_interval=self.ping_interval,
            ping_timeout=self.ping_interval,
            close_timeout=self.limits.close_timeout,
            create_connection=functools.partial(  # type: ignore[arg-type]
                BoundedConnection, opening=self.opening
            ),
        )

    async def _one_port(self, server: Any) -> Any:
        """``server``, listening at port 0, on one port: a host that names several
        addresses (``''``, or ``localhost`` as 127.0.0.1 and ::1) has a socket on
        each, and each took its own free port, while :attr:`port` (the one printed)
        names the first's. Listened on again at that port on every address (taken on
        another meanwhile: at another free port), a few times.

        :raises OSError: no port was free on every address."""
        for _ in range(PORT_ATTEMPTS):
            ports = [s.getsockname()[1] for s in server.sockets]
            if len(set(ports)) <= 1:
                return server
            server.close()
            await server.wait_closed()
            try:
                server = await self._serve_on(ports[0])
            except OSError as exc:
                if exc.errno != errno.EADDRINUSE:
                    raise
                server = await self._serve_on(0)
        server.close()
        await server.wait_closed()
        raise OSError(errno.EADDRINUSE, "no free port on every address")

    @property
    def port(self) -> int:
        """The port actually listened on."""
        sockets = self._server.sockets if self._server is not None else ()
        return sockets[0].getsockname()[1] if sockets else self.requested_port

    @property
    def url(self) -> str:
        """The WebSocket URL clients connect to."""
        return f"ws://{host_port(self.address, self.port)}/"

    async def stop(self) -> None:
        """Stop accepting, close every client with 1001, flush the store."""
        self.stopping = True
        if self._token_watch is not None:
            self._token_watch.cancel()
            self._token_watch = None
        if self._sweeper is not None:
            self._sweeper.cancel()
            self._sweeper = None
        if self._prober is not None:
            self._prober.cancel()
            self._prober = None
        self.http.ready.cancel()
        if self.collector is not None:
            self.collector.stop()
        if self._server is not None:
            self._server.close(close_connections=True)
            try:  # whatever the clients do, the drain is bounded
                await asyncio.wait_for(self._server.wait_closed(), self.limits.drain_timeout)
            except TimeoutError:
                left = [c for c in self.clients if c.connection.state is not State.CLOSED]
                log.warning("%s did not close within %s s; aborted",
                            counted(len(left), "client"), self.limits.drain_timeout)  # fmt: skip
                for client in left:
                    client.connection.transport.abort()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._server.wait_closed(), 1)
            self._server = None
        loop = asyncio.get_running_loop()
        if self.writer is not None:
            await loop.run_in_executor(None, self.writer.close)
            self.writer = None
        if self._reader is not None:
            # the reads not yet begun are dropped: queued for clients that are gone,
            # they would hold the stop past its drain timeout
            self._reader.shutdown(wait=True, cancel_futures=True)
            self._reader = None
        self.store.close()

    async def serve_forever(
        self, stop: asyncio.Event, listening: Callable[[], None] | None = None
    ) -> None:
        """Run until ``stop`` is set (by a signal handler), then shut down cleanly
        (also when :meth:`start` fails: the writer and the store are closed).

        :param listening: called once the port is listened on.
        :raises CannotListen: the port cannot be listened on."""
        try:
            await self.start()
            if listening is not None:
                listening()
            await stop.wait()
        finally:
            await self.stop()

    # -- the protocol's effects ---------------------------------------------------------

    def _admit(self) -> None:
        writer = self.writer
        if writer is not None and writer.full:
            raise Busy(
                say.plural(
                    "server.busy",
                    "the server has {pending} change waiting to be written to "
                    "disk (its limit is {limit}); nothing was done: send the request again "
                    "shortly",
                    "the server has {pending} changes waiting to be written to "
                    "disk (its limit is {limit}); nothing was done: send the request again "
                    "shortly",
                    count="pending",
                )(pending=writer.pending, limit=writer.max_pending),
                details={"pending": writer.pending, "limit": writer.max_pending},
            )

    def carry(self, effects: list[Effect], client: Client | None = None) -> None:
        """Carry out the protocol's effects, in order (``client``: whose frame
        produced them, for a :class:`Close` of its own connection). The frames
        they send leave together, per client, when the last is carried out."""
        with self.outbox.batch():
            for effect in effects:
                try:
                    self._carry_one(effect, client)
                except Exception:  # a driver bug must not stop the other effects
                    log.exception("carrying out %s failed", type(effect).__name__)

    def _carry_one(self, effect: Effect, client: Client | None) -> None:
        if isinstance(effect, Deliver):
            if effect.backlog:  # a welcome: a hello answered
                self.metrics.joined()
            for member, frame in effect.frames:
                try:
                    member.origin.enqueue(frame, backlog=effect.backlog)
                except Exception:  # a bug: that member alone misses it, and reconnects
                    self._lost_frame(member.origin)
        elif isinstance(effect, Reply):
            self.metrics.replied(effect)
            if effect.error is not None:
                log_refusal(effect)
            if effect.frame is not None and isinstance(effect.origin, Client):
                try:
                    effect.origin.enqueue(effect.frame)
                except Exception:  # a bug: never left waiting for its answer, it resumes
                    self._lost_frame(effect.origin)
        elif isinstance(effect, Read):
            self._read(effect, client)
        elif isinstance(effect, Persist):
            assert effect.commit is not None, "nothing to commit"
            if self.writer is None:  # stopped: a read that came back in the stop asks it
                self._persisted(effect, stopping())
                return
            try:
                self.writer.submit(
                    effect.table_id, effect.commit, lambda error: self._persisted(effect, error)
                )
            except Exception:  # a bug: failed as a commit is, never left out for good
                log.exception("table %s: a commit could not be queued", effect.table_id)
                self._persisted(effect, InternalError(FAILED()))
        elif isinstance(effect, Notify):
            assert effect.table is not None
            notify(self.host, effect.table, effect.events)
        elif isinstance(effect, Close):
            target = effect.member.origin if effect.member is not None else client
            if target is not None:
                self.metrics.closed(effect.code, effect.reason)
                target.disconnect(effect.code, effect.reason)
        elif isinstance(effect, Reopened) and self.writer is not None:
            self.writer.reset(effect.table_id)

    def _lost_frame(self, client: Client) -> None:
        """A frame could not be handed to ``client`` (a bug, being handled now): its
        traceback logged, the client disconnected (1013, "the server failed; try
        again") to resume — it must not go on having missed an event, nor wait for a
        reply that never comes. The other members of the delivery are sent theirs."""
        log.exception("a frame for %s could not be sent; disconnecting it",
                      client.principal.label())  # fmt: skip
        try:
            client.disconnect(CLOSE_BEHIND, client.reason(FAILED()))
        except Exception:
            log.exception("disconnecting %s failed", client.principal.label())

    def _read(self, effect: Read, client: Client | None) -> None:
        if self._loop is None or self._reader is None:  # stopped (or not started)
            # a read that came back in the stop asks it: refused, not left waiting
            self._read_refused(effect, stopping(), client)
            return
        ended: list[str] = []  # how the reader thread's work ended, told before ``done``
        # what it read and the reader thread's CPU time it took: held here, not by
        # the future, so that done() holds the last reference to a large read's
        # events and lets them go a few a turn
        out: list[Any] = []

        def counted(outcome: str) -> None:
            ended.append(outcome)
            self.metrics.store_read(outcome)

        if isinstance(effect, ASKED_READS) and not isinstance(effect, ReadSettled):
            refusal = self.tables.read_refusal(effect.table_id)
            if refusal is None:  # reads held the collector off too long
                refusal = self._overdue_refusal()
            if refusal is not None:  # the table owes an earlier read's time
                self._read_refused(effect, refusal, client)
                return
        quiet = None  # the collector held off for a read of the log alone
        release = _nothing  # and its ticks until the read's events are let go
        if self.collector is not None and isinstance(effect, LOG_READS):
            quiet = self.collector.quiet
            release = self.collector.hold()
        try:
            future = self._loop.run_in_executor(
                self._reader, _run_if_wanted, effect, self.store, counted, quiet, out,
                self.tables.rates.work_clock,
            )  # fmt: skip
        except Exception:  # a bug: failed as a read is, never left out for good
            release()
            log.exception("table %s: a read could not be started", effect.table_id)
            self._read_refused(effect, InternalError(FAILED()), client)
            return
        self._running.add(effect)

        def done(finished: asyncio.Future) -> None:
            self._running.discard(effect)
            if finished.cancelled():
                self._held.pop(effect, None)
                release()
                return
            follow: list[Effect] = []
            result = None
            try:
                error = finished.exception()
                if error is None and ended == ["done"] and not isinstance(effect, Compute):
                    self.health.read()  # a read that reached the store (a skipped one did not)
                spent = 0.0
                if out:  # a read that failed took its time too: charged all the same
                    value, spent = out
                    result = value if error is None else None
                    out.clear()
                # charged before what follows: the next read at the table begins
                # there, and is refused while the table owes this one's time
                self._charge_read(effect, client, spent)
                follow = self._follow(effect, error, result, client)
                if isinstance(error, StoreUnavailable):
                    # the requests it refused store_error are counted, not the read: a
                    # table the cluster loads again while Redis is away, with nobody
                    # asking, was counted as a refused request each time it tried, and
                    # then a request held behind the read, let go as it failed and
                    # refused for a fault of its own (unknown_actor), was counted too
                    refused = sum(
                        isinstance(e, Reply) and isinstance(e.error, StoreError) for e in follow
                    )
                    self.health.failed(error, refused, commit=False)
            finally:
                self._settle(effect.table_id)
                self._let_go(effect, result, follow, release)

        future.add_done_callback(done)

    def _charge_read(self, effect: Read, client: Client | None, seconds: float) -> None:
        """A read of the log (or the counting of one) took ``seconds`` of a reader
        thread's CPU time: charged to the table's rate and to the rate of the
        connection whose request asked it, as time on the event loop is. A log full
        of the largest events takes seconds to read; uncharged, one player's reads
        back to back kept a reader thread decoding, and every table's clients
        sharing the interpreter with it, for as long as it liked (hostile27)."""
        if not isinstance(effect, LOG_READS):
            return
        self.tables.charge_read(effect.table_id, seconds)
        if client is not None:
            client.protocol.charge_read(seconds)

    def _let_go(
        self, effect: Read, result: Any, follow: list[Effect], release: Callable[[], None]
    ) -> None:
        """What a read that came back brought is dropped a few events a turn
        (:func:`~rollbridge.server.let_go.let_go`), once the reply is made: a read of
        the log's events then, or — when its events went on to a computation on the
        reader thread (``stats``) — once that came back too. ``release`` (the read's
        hold on the collector manager's passes,
        :meth:`~rollbridge.server.collector.CollectorManager.hold`) is called once the
        last of them is dropped: a full pass set off by the heap they grew, run while
        they were being freed, walked them all (hostile28)."""
        assert self._loop is not None
        dropped: list[Any] = []  # our own list (a store might keep the one it gave)
        try:
            held = self._held.pop(effect, None)
            if isinstance(effect, Compute):
                effect.work = None  # what it closed over: the events below hold them too
            if isinstance(effect, (ReadEvents, ReadRetained)) and isinstance(result, list):
                later = next((e for e in follow if isinstance(e, Compute)), None)
                # only one that was begun comes back to let them go: one refused at
                # once (the server stopping) held them for as long as the server object
                # lived; one begun holds the collector manager's ticks off itself
                if later is not None and later in self._running:
                    self._held[later] = list(result)
                else:
                    dropped += result
            if held is not None:
                dropped += held
        finally:
            if dropped:
                let_go(self._loop, dropped, done=release)
            else:
                release()

    def _overdue_refusal(self) -> RateLimited | None:
        """The refusal of every new read of the log a client asks (``state`` at a seq,
        ``stats``, a ``hello`` resuming elsewhere than the latest seq) while reads have
        held the collector off past its bound
        (:attr:`~rollbridge.server.collector.CollectorManager.overdue`), or None."""
        if self.collector is not None and self.collector.overdue:
            return overdue_refusal()
        return None

    def _read_refused(self, effect: Read, error: BaseException, client: Client | None) -> None:
        """``effect`` is not run: it fails with ``error`` (its request answered, the
        hold it took let go) and the table is settled."""
        try:
            self._follow(effect, error, None, client)
        finally:
            self._settle(effect.table_id)

    def _follow(
        self,
        effect: Read | Persist,
        error: BaseException | None,
        result: Any,
        client: Client | None,
    ) -> list[Effect]:
        """Hand what came back of ``effect`` (``error``, else ``result``) to the
        protocol and carry out what follows; returned, the effects carried out. The
        protocol answers the requests of a step that fails on a bug itself
        (``internal``); one that escapes it all the same (a driver's or the
        protocol's own bug) is logged with its traceback here (none carried out),
        never raised into the event loop's callback, where nobody would see it and
        the table would not be settled."""
        try:
            follow = effect.fail(error) if error is not None else effect.resume(result)
        except Exception:
            log.exception("table %s: handling a %s that came back failed", effect.table_id,
                          type(effect).__name__)  # fmt: skip
            return []
        self.carry(follow, client)
        return follow

    def _persisted(self, effect: Persist, error: BaseException | None) -> None:
        try:
            self._follow(effect, error, None, None)
        finally:
            self._settle(effect.table_id)

    def _settle(self, table_id: str) -> None:
        """Drop the table from memory if what just came back (a read, a commit) and
        its follow-ups left it idle: its last client may have left while it was out,
        when the table could not be dropped yet."""
        protocol = self.tables.open.get(table_id)
        if protocol is not None:
            self.tables.release(protocol)

    def _table_dropped(self, table_id: str) -> None:
        """A table left memory: the commit writer forgets a failed commit of it, and a
        Redis store what its last commit left (:mod:`rollbridge.stores.redis_sent`:
        served again, the table is read again, which forgets it anyway)."""
        if self.writer is not None:
            self.writer.forget(table_id)
        sent = getattr(self.store, "sent", None)  # only a Redis store remembers
        if sent is not None:
            sent.forget(table_id)

    def sweep(self) -> int:
        """Drop every idle table still in memory; how many were dropped. A backstop
        (:attr:`sweep_interval`): each path that leaves a table idle drops it at
        once, so a sweep that finds one has found a path that did not."""
        idle = [p for p in self.tables.open.values() if p.idle]
        for protocol in idle:
            self.tables.release(protocol)
        return len(idle)

    async def _sweep_idle(self, interval: float) -> None:
        while True:
            await asyncio.sleep(interval)
            dropped = self.sweep()
            if dropped:
                log.warning("dropped %s left in memory", counted(dropped, "idle table"))

    # -- tokens -----------------------------------------------------------------------

    def drop_revoked(self, live: set[str], tables: set[str] | None = None) -> int:
        """Disconnect (1008) every joined client whose token is not in ``live`` (the
        store's token ids: one was revoked, or its table deleted, by the CLI in
        another process). ``tables``, the store's table ids if known, tells the
        clients of a deleted table so (``table deleted``), not that their token was
        revoked. Returns how many were disconnected."""
        dropped = 0
        for client in [c for c in self.clients if c.session is not None and not c.closing]:
            if client.principal.key not in live:
                table = client.session.id if client.session is not None else "?"
                if tables is not None and table not in tables:
                    log.info("table %s was deleted; disconnecting %s", table,
                             client.principal.label())  # fmt: skip
                    reason = TABLE_DELETED()
                else:
                    log.info("the token of %s at table %s was revoked; disconnecting",
                             client.principal.label(), table)  # fmt: skip
                    reason = REVOKED()
                client.disconnect(CLOSE_AUTH, client.reason(reason))
                self.metrics.cut_off("revoked")
                dropped += 1
        return dropped

    async def check_tokens(self) -> int:
        """Read the store's token ids (on a reader thread) and disconnect the clients
        whose token is gone — and, only when some are, the store's tables, to tell
        those of a deleted table so. :raises StoreError: the store could not be read."""
        if not any(c.session is not None for c in self.clients):
            return 0
        assert self._loop is not None and self._reader is not None, "the server is not started"
        live = await self._loop.run_in_executor(self._reader, self.store.token_ids)
        if all(c.principal.key in live for c in self.clients if c.session is not None):
            return 0
        tables = await self._loop.run_in_executor(self._reader, self._table_ids)
        return self.drop_revoked(live, tables)

    def _table_ids(self) -> set[str]:
        return {info.id for info in self.store.tables()}

    async def recheck_tokens(self) -> None:
        """:meth:`check_tokens`, its failure logged (a store that cannot be read in one
        line, as the next check may well succeed, and then at most one line a minute
        until one does; anything else with its traceback)."""
        try:
            await self.check_tokens()
        except StoreError as exc:
            self._token_check_log.failed(exc)
        except Exception:
            log.exception("checking for revoked tokens failed")
        else:
            self._token_check_log.worked()

    async def _watch_tokens(self, interval: float) -> None:
        while True:
            await asyncio.sleep(interval)
            await self.recheck_tokens()

    # -- connections ------------------------------------------------------------------

    async def _handle(self, connection: ServerConnection) -> None:
        if isinstance(connection, BoundedConnection):
            connection.opened()  # counted from here on as a connection
        self.sockets += 1  # every connection holds a socket, a refused one too
        try:
            await self._admit_connection(connection)
        finally:
            self.sockets -= 1

    async def _refuse_connection(
        self,
        connection: ServerConnection,
        cut: str,
        reason: str,
        said: Throttle,
        line: str,
        *args: object,
    ) -> None:
        """Refuse a connection before its ``hello``: counted as ``cut``, ``line``
        logged (through ``said``, with how many were refused since it last was), closed
        1013 with ``reason``, waiting at most :data:`REFUSED_CLOSE_TIMEOUT` for its
        close: a client that never answers must not hold a socket for the whole
        ``--close-timeout``."""
        held = said.allow()
        if held is not None:
            log.warning(f"{line}; %d more refused since the last such line", *args, held)
        self.metrics.cut_off(cut)
        timeout = connection.close_timeout
        if timeout is None or timeout > REFUSED_CLOSE_TIMEOUT:
            connection.close_timeout = REFUSED_CLOSE_TIMEOUT
        await connection.close(CLOSE_LIMIT, reason)

    async def _admit_connection(self, connection: ServerConnection) -> None:
        address = address_group(peer_address(connection, self.limits.trusted_proxies))
        full = self.limits.max_connections
        if full is not None and self.sockets > full:  # the others fill it already
            await self._refuse_connection(
                connection, "server_full", SERVER_FULL().render(), self._full_log,
                "refusing connections: %d open, the limit (--max-connections)", full,
            )  # fmt: skip
            return
        count = self.per_address.get(address, 0)
        limit = self.limits.per_address
        if limit is not None and count >= limit:
            await self._refuse_connection(
                connection, "per_address", TOO_MANY_FROM_ADDRESS().render(),
                self._per_address_log,
                "refused a connection from %s: %d open, the limit "
                "(--max-connections-per-address)", address, count,
            )  # fmt: skip
            return
        self.per_address.add(address)  # held here before any await: counted at once
        held, counted = True, limit is not None
        try:
            if counted:
                total = await self.count_connection(address)
                if total is not None:  # other processes hold the rest
                    counted = held = False  # the count written without it already
                    self.per_address.remove(address)  # not held while it closes
                    await self._refuse_connection(
                        connection, "per_address", TOO_MANY_FROM_ADDRESS().render(),
                        self._per_address_log,
                        "refused a connection from %s: %d open on every process together, "
                        "the limit (--max-connections-per-address)", address, total - 1,
                    )  # fmt: skip
                    return
            trusted = self.limits.trusted_proxies
            client = Client(connection, self, rated_address(connection, trusted))
            self.clients.add(client)
            try:
                await client.run()
            finally:
                self.clients.discard(client)
        finally:
            if held:
                self.per_address.remove(address)
            if counted:
                self.connection_closed(address)

    async def count_connection(self, address: str) -> int | None:
        """Count a connection from ``address`` (held in :attr:`per_address` already)
        wherever else connections are counted: None to serve it, else how many the
        address would hold with it (it is refused). One process: nothing to ask; a
        cluster process asks the count every process shares
        (:meth:`~rollbridge.server.cluster.ClusterServer.count_connection`)."""
        return None

    def connection_closed(self, address: str) -> None:
        """A connection from ``address`` that :meth:`count_connection` let through
        closed: gone from :attr:`per_address` already."""


def _nothing() -> None:
    """A read's hold on the collector manager's ticks when there is no manager."""


def _run_if_wanted(
    effect: Read,
    store: Store,
    counted: Callable[[str], None] | None = None,
    quiet: Callable[[], AbstractContextManager[None]] | None = None,
    out: list[Any] | None = None,
    clock: Callable[[], float] = time.thread_time,
) -> Any:
    """On a reader thread: ``effect`` run, unless nobody waits for it any more (its
    client left while it waited its turn): None then, unread. ``counted`` is told
    how it ended: ``done``, ``skipped`` or ``failed`` (it raised). ``quiet`` (the
    managed collector's :meth:`~rollbridge.server.collector.CollectorManager.quiet`,
    given for :data:`LOG_READS` alone) holds the garbage collector's passes off while
    it runs: a read of a log of large events makes millions of objects, and each pass
    they set off walked them all holding the interpreter's lock, stopping every
    table's clients. With ``out``, what it read and the seconds of ``clock`` (the
    thread's CPU time) its run took are appended to it and None returned (the future
    holds nothing); a run that raised appends None and its seconds, then raises: its
    time is charged too."""
    if not effect.wanted():
        if counted is not None:
            counted("skipped")
        return None
    started = clock()
    try:
        with quiet() if quiet is not None else nullcontext():
            value = effect.run(store)
    except BaseException:
        if counted is not None:
            counted("failed")
        if out is not None:  # what it took is charged as a read that came back is
            out += (None, clock() - started)
        raise
    if counted is not None:
        counted("done")
    if out is not None:
        out += (value, clock() - started)
        return None
    return value
