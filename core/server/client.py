"""One WebSocket connection: bytes in, bytes out, with a limit on what it owes.

A client reads frames in order and hands each to its sans-I/O
:class:`~rollbridge.protocol.connection.Connection`; the server carries out the
effects. Every frame to the client — replies and events alike — is written to
the connection's transport in order: at once, or, while the server carries out
a batch (a group commit's callbacks, one frame's effects), when the batch ends,
together with the client's other frames of it (:mod:`rollbridge.server.outbox`).
A client that does not read is
never waited for: when its unsent bytes pass the limit it is disconnected (1013)
and can resume.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

from rollbridge.engine.model import Principal
from rollbridge.protocol.connection import CLOSE_AUTH, CLOSE_BEHIND, Connection
from rollbridge.protocol.frames import payload_size
from rollbridge.server.bounded import BoundedConnection
from rollbridge.text import Messages, Text

if TYPE_CHECKING:
    from rollbridge.protocol.table import TableProtocol
    from rollbridge.server.app import Server

__all__ = ["Client"]

log = logging.getLogger("rollbridge.client")

_NOBODY = Principal("observer", "?", "")

say = Messages("rollbridge")
# Translators: the reason of a WebSocket close: at most 123 bytes (about 60 Cyrillic
# letters); a longer translation is sent in English.
BEHIND = say("server.behind", "too far behind; reconnect and resume")
NO_HELLO = say("server.no_hello", "no hello within {seconds:g} s")
#: The longest close reason WebSocket allows, in UTF-8 bytes.
MAX_REASON = 123


class Client:
    """A connected client; see the module docstring."""

    def __init__(
        self, connection: ServerConnection, server: Server, address: str | None = None
    ) -> None:
        """``address``: the client's address group for the per-address rates (None:
        not counted; :func:`~rollbridge.server.addresses.rated_address`)."""
        self.connection = connection
        self.server = server
        self.protocol = Connection(
            server.tables, server.host.adapters, origin=self, address=address,
            on_welcome_failed=self._welcome_failed,
        )  # fmt: skip
        self.closing = False
        if isinstance(connection, BoundedConnection):  # websockets' pongs, held to the limit
            connection.unsent_limit = server.buffer_limit
            connection.on_behind = self.fell_behind
        self._tasks: set[asyncio.Task] = set()
        #: The hello deadline's timer (the latest, when it looked again).
        self._deadline: asyncio.TimerHandle | None = None
        #: Changes of this client's that run on another process (a cluster's table
        #: owner) and are not answered yet (:meth:`forward_sent`).
        self.forwarding = 0
        self._answered: asyncio.Event | None = None

    def forward_sent(self) -> None:
        """A change of this client's went to another process to run (a cluster's
        table owner), whose CPU time comes back with its answer: until it has come
        (:meth:`forward_answered`), the client's next frame is not read, so that the
        time is charged to its connection's rate before its next request takes from
        it — as a change run here is charged before its next frame is read. (Read at
        once, a burst of frames sent without waiting for replies would each take one
        request before any of the time they cost came back.)"""
        self.forwarding += 1

    def forward_answered(self) -> None:
        """A change :meth:`forward_sent` has been answered (or refused, or taken
        over here) and its time charged — or its forwarding ended otherwise (the
        server stopping)."""
        self.forwarding -= 1
        if self.forwarding <= 0 and self._answered is not None:
            self._answered.set()

    async def _forwards_answered(self) -> None:
        """Wait until every change of this client's sent to another process has
        been answered; at once when its connection has no rate to charge, and no
        longer once the connection is closing or closed (no next frame is read then:
        the client leaves at once, not when its forwards end — up to the forward's
        timeout each, for a table deleted or an owner gone)."""
        if self.forwarding <= 0 or not self.protocol.rated:
            return
        if self._answered is None:
            self._answered = asyncio.Event()
        closed = asyncio.ensure_future(self.connection.wait_closed())
        try:
            while self.forwarding > 0 and not self.closing and not closed.done():
                self._answered.clear()
                answered = asyncio.ensure_future(self._answered.wait())
                await asyncio.wait((answered, closed), return_when=asyncio.FIRST_COMPLETED)
                answered.cancel()
        finally:
            closed.cancel()

    @property
    def principal(self) -> Principal:
        """Who the client is, once it joined a table."""
        member = self.protocol.member
        return member.principal if member is not None else _NOBODY

    @property
    def session(self) -> TableProtocol | None:
        """The table it joined, if any."""
        return self.protocol.table

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- sending ---------------------------------------------------------------

    def enqueue(self, frame: bytes | str, *, backlog: bool = False) -> None:
        """Write a frame now, or at the end of the server's running batch (the
        server's :class:`~rollbridge.server.outbox.Outbox`: no queue, no task).
        A client whose unsent bytes pass the limit is too far behind: it is
        disconnected (1013) and can resume. ``backlog`` frames (a welcome and a
        resume's missed events) are not held to the limit."""
        if self.closing:
            return
        connection = self.connection
        server = self.server
        if not backlog:
            owed = connection.transport.get_write_buffer_size()
            if owed > server.buffer_limit:
                self.fell_behind(owed)
                return
        # a binary frame's size is its length (a text frame's, its UTF-8 bytes'); a
        # frame that has none (a lone surrogate, no frame's type) is the outbox's to
        # mend or close on (rollbridge.server.unsendable), not a failure here: measured
        # first, it raised before the outbox saw it, and the client was closed 1013
        size = _size(frame)
        server.outbox.send(connection, frame, size)
        if size is not None:
            server.metrics.sent(size)

    def fell_behind(self, owed: int) -> None:
        """More than the limit is unsent (``owed`` bytes): disconnect (1013)."""
        if self.closing:
            return
        log.warning("client %s fell %d bytes behind; disconnecting", self.principal.label(), owed)
        self.server.metrics.cut_off("behind")
        self.disconnect(CLOSE_BEHIND, self.reason(BEHIND()))

    @property
    def locale(self) -> str:
        """The language of the client's texts (its member's, once it joined)."""
        member = self.protocol.member
        return member.locale if member is not None else self.protocol.locale

    def reason(self, text: Text) -> str:
        """A close reason in the client's language (English if the translation is
        longer than WebSocket allows)."""
        reason = text.render(self.locale)
        return reason if len(reason.encode("utf-8")) <= MAX_REASON else text.render()

    def disconnect(self, code: int, reason: str) -> None:
        """Leave the table now (it goes on without this client) and close the
        connection with ``code`` in the background; nothing more is sent."""
        if self.closing:
            return
        self.closing = True
        if self._answered is not None:  # a wait for its forwards ends: it is leaving
            self._answered.set()
        self.protocol.close()
        self.server.outbox.flush(self.connection)  # what it was sent goes before the close
        self._spawn(self._close(code, reason))

    async def _close(self, code: int, reason: str) -> None:
        """Close the connection; abort it if it has not closed after the close
        timeout. A client that reads nothing never takes the close frame: its socket
        and buffer are let go after a bounded time whatever it does. One that closes
        in time is let go at once: the timer, which holds the client, goes with it."""
        timer = asyncio.get_running_loop().call_later(self.server.abort_after, self.abort)
        try:
            await self.connection.close(code, reason)
        finally:
            if self.connection.state is State.CLOSED:
                timer.cancel()

    def abort(self) -> None:
        """Drop the connection's transport now, unless it closed meanwhile."""
        if self.connection.state is not State.CLOSED:
            self.server.metrics.cut_off("aborted")
            log.info("client %s did not take its close in %s s; connection aborted",
                     self.principal.label(), self.server.abort_after)  # fmt: skip
            self.connection.transport.abort()

    def _start_deadline(self) -> None:
        """Give the connection :attr:`Server.hello_timeout` from now to say ``hello``
        (the deadline it had, if any, cancelled)."""
        timeout = self.server.hello_timeout
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        if timeout is not None:
            self._deadline = asyncio.get_running_loop().call_later(timeout, self._no_hello)

    def _welcome_failed(self) -> None:
        """Its welcome failed after the table took it (a bug, a store's failure): it
        is no longer at a table and may say ``hello`` again — within a hello timeout
        from now, or it is closed as one that never said one (the first deadline had
        passed while it was at the table)."""
        if not (self.closing or self.protocol.closed):
            self._start_deadline()

    def _no_hello(self) -> None:
        self._deadline = None
        if self.protocol.joined or self.closing or self.protocol.closed:
            return
        if self.protocol.joining:  # its hello is being answered: look again shortly
            self._deadline = asyncio.get_running_loop().call_later(1.0, self._no_hello)
            return
        self.server.metrics.cut_off("no_hello")
        self.disconnect(CLOSE_AUTH, self.reason(NO_HELLO(seconds=self.server.hello_timeout)))

    # -- receiving -------------------------------------------------------------

    async def run(self) -> None:
        """Serve the connection until it closes (or it sends no ``hello`` in time)."""
        self._start_deadline()
        try:
            async for frame in self.connection:
                self.server.carry(self.protocol.receive(frame), self)
                if self.closing:
                    break
                if self.forwarding > 0:  # charged for them first (forward_sent)
                    await self._forwards_answered()
                    if self.closing:
                        break
                # the loop turns before the next frame: a frame already queued is
                # handed over without one, and a client that kept frames queued (on a
                # loaded machine) held the loop every table shares for all of them —
                # other clients' requests, their keepalive pongs and the stopping
                # signals waited (a ping 20 s late, "keepalive ping timeout"). With
                # none queued, waiting for the next frame turns the loop anyway: a
                # turn of its own would be one more of the loop's passes a request
                if _frame_queued(self.connection):
                    await asyncio.sleep(0)
        except ConnectionClosed:
            pass
        finally:
            if self._deadline is not None:  # the first, or the one looking again
                self._deadline.cancel()
                self._deadline = None
            self.protocol.close()
            if self._tasks:
                with contextlib.suppress(Exception):
                    await asyncio.gather(*self._tasks, return_exceptions=True)


def _size(frame: object) -> int | None:
    """``frame``'s payload on the wire (:func:`~rollbridge.protocol.frames.payload_size`);
    None for one that cannot be made as it is (the outbox mends it, or closes its
    connection: :mod:`rollbridge.server.unsendable`)."""
    if frame.__class__ is bytes:
        return len(frame)  # type: ignore[arg-type]
    try:
        return payload_size(frame)  # type: ignore[arg-type]
    except Exception:  # a lone surrogate, or no frame's type
        return None


def _frame_queued(connection: ServerConnection) -> bool:
    """Whether ``connection`` holds a frame already read, which its next ``recv``
    would return without letting the loop turn (websockets' assembler's queue; True
    where it is not found: a turn too many is only slower)."""
    try:
        return bool(connection.recv_messages.frames.queue)
    except AttributeError:
        return True
