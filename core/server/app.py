"""The WebSocket server: many tables in one process, on one store.

A thin layer around the sans-I/O engine: websockets' asyncio server accepts
connections (:class:`~rollbridge.server.client.Client`), tables are opened from
the store on first use (:class:`~rollbridge.server.session.TableSession`), and
one :class:`~rollbridge.server.writer.CommitWriter` thread makes every change
durable before it is acknowledged.

Limits: frames up to 64 KiB (larger closes with 1009), 4 MiB unsent per client
(more disconnects it with 1013), 1,024 changes waiting for the disk (more are
refused with error ``busy``), pings every 20 s, compression off.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from websockets.asyncio.server import ServerConnection, serve

from rollbridge.dice.sources import DiceSource, SecureDice
from rollbridge.engine.store import Store
from rollbridge.engine.table import Table
from rollbridge.host import PluginHost
from rollbridge.server.client import CLOSE_AUTH, Client
from rollbridge.server.codec import MAX_FRAME
from rollbridge.server.collector import CollectorManager
from rollbridge.server.session import TableSession
from rollbridge.server.writer import MAX_PENDING, CommitWriter

__all__ = ["BUFFER_LIMIT", "DEFAULT_HOST", "DEFAULT_PORT", "Server"]

log = logging.getLogger("rollbridge.server")

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
#: Bytes written to one client and not yet sent before it is disconnected as too
#: slow (the kernel's socket buffer comes on top). A resume's missed events do not
#: count; a burst of group-committed requests queues a reply and an event each.
BUFFER_LIMIT = 4 * 1024 * 1024
#: Seconds between keepalive pings, and to wait for the pong.
PING_INTERVAL = 20.0
#: Seconds between checks for revoked tokens (``table tokens ID --revoke`` and
#: ``table delete`` run in another process): a client whose token is gone is
#: disconnected with 1008 within this time.
TOKEN_CHECK_INTERVAL = 5.0


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
    ) -> None:
        self.store = store
        self.host = host
        self.address = address
        self.requested_port = port
        self.dice = dice
        self.buffer_limit = buffer_limit
        self.ping_interval = ping_interval
        self.compression = compression
        self.max_pending = max_pending
        self.token_check_interval = token_check_interval
        self._token_watch: asyncio.Task | None = None
        self.collector = CollectorManager() if manage_gc else None
        self.sessions: dict[str, TableSession] = {}
        self.clients: set[Client] = set()
        self.writer: CommitWriter | None = None
        self._server: Any = None

    # -- lifecycle ----------------------------------------------------------------

    async def start(self) -> None:
        """Start the writer and listen."""
        loop = asyncio.get_running_loop()
        self.writer = CommitWriter(self.store, loop, max_pending=self.max_pending)
        self._server = await serve(
            self._handle,
            self.address,
            self.requested_port,
            max_size=MAX_FRAME,
            max_queue=8,
            write_limit=32 * 1024,
            compression=self.compression,
            ping_interval=self.ping_interval,
            ping_timeout=self.ping_interval,
            close_timeout=5,
        )
        if self.collector is not None:
            self.collector.start()
        if self.token_check_interval is not None:
            self._token_watch = loop.create_task(self._watch_tokens(self.token_check_interval))
        log.info("listening on %s", self.url)

    @property
    def port(self) -> int:
        """The port actually listened on."""
        sockets = self._server.sockets if self._server is not None else ()
        return sockets[0].getsockname()[1] if sockets else self.requested_port

    @property
    def url(self) -> str:
        """The WebSocket URL clients connect to."""
        return f"ws://{self.address}:{self.port}/"

    async def stop(self) -> None:
        """Stop accepting, close every client with 1001, flush the store."""
        if self._token_watch is not None:
            self._token_watch.cancel()
            self._token_watch = None
        if self.collector is not None:
            self.collector.stop()
        if self._server is not None:
            self._server.close(close_connections=True)
            await self._server.wait_closed()
            self._server = None
        if self.writer is not None:
            await asyncio.get_running_loop().run_in_executor(None, self.writer.close)
            self.writer = None
        self.store.close()

    async def serve_forever(self, stop: asyncio.Event) -> None:
        """Run until ``stop`` is set (by a signal handler), then shut down cleanly."""
        await self.start()
        try:
            await stop.wait()
        finally:
            await self.stop()

    # -- tables ---------------------------------------------------------------------

    def session(self, table_id: str) -> TableSession:
        """The live session of a table, opened from the store on first use.

        :raises UnknownTable: RulesetUnavailable:
        """
        session = self.sessions.get(table_id)
        if session is None:
            snapshot, history = self.store.load(table_id)
            ruleset = Table.check_ruleset(snapshot.info, self.host.rulesets)
            assert self.writer is not None, "the server is not started"
            session = TableSession(
                Table(snapshot, ruleset, history, load_event=self._event_loader(table_id)),
                store=self.store,
                writer=self.writer,
                host=self.host,
                dice=self.dice,
                on_idle=self.release,
            )
            self.sessions[table_id] = session
        return session

    def _event_loader(self, table_id: str) -> Callable[[int], Any]:
        return lambda seq: self.store.event(table_id, seq)

    def release(self, session: TableSession) -> None:
        """Drop a table's session once nobody uses it (it reloads on the next hello)."""
        if session.idle and self.sessions.get(session.id) is session:
            del self.sessions[session.id]

    # -- tokens -----------------------------------------------------------------------

    def drop_revoked(self) -> int:
        """Disconnect (1008) every joined client whose token is no longer in the
        store: revoked, or its table deleted, by the CLI in another process.
        Returns how many were disconnected.

        :raises StoreError: the store could not be read.
        """
        joined = [c for c in self.clients if c.session is not None and not c.closing]
        if not joined:
            return 0
        live = self.store.token_ids()
        dropped = 0
        for client in joined:
            if client.principal.key not in live:
                log.info(
                    "the token of %s at table %s was revoked; disconnecting",
                    client.principal.label(),
                    client.session.id if client.session is not None else "?",
                )
                client.disconnect(CLOSE_AUTH, "token revoked")
                dropped += 1
        return dropped

    async def _watch_tokens(self, interval: float) -> None:
        while True:
            await asyncio.sleep(interval)
            try:
                self.drop_revoked()
            except Exception:  # a busy or failing store: try again next time
                log.exception("checking for revoked tokens failed")

    # -- connections ------------------------------------------------------------------

    async def _handle(self, connection: ServerConnection) -> None:
        client = Client(connection, self)
        self.clients.add(client)
        try:
            await client.run()
        finally:
            self.clients.discard(client)
