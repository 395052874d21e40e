"""websockets' server connection, with what the client leaves unread bounded.

websockets answers every WebSocket ping with a pong by itself, as the frames come
in, written to the socket whatever the client reads: a client that sends pings and
never reads would grow the server's memory by what it sends (found by red-teaming:
one connection, no ``hello``, ~270 MB in 15 s). The server's own frames are held to
the limit where they are written (:meth:`~rollbridge.server.client.Client.enqueue`);
:class:`BoundedConnection` holds websockets' pongs to the same limit: past it, the
connection reads no more and its client is cut off as too far behind (1013).

websockets also writes each of those pongs with a transport write of its own: when
the client resets the connection amid a burst of pings, every write after the one
that failed was a WARNING of asyncio's, ``socket.send() raised exception.`` (found
by red-teaming: 20 connections, no ``hello``, 10,127 lines). What websockets has to
send is written in one write (:func:`~rollbridge.server.outbox.write_data`).

A socket still in its opening handshake holds a file descriptor for websockets'
10 s open timeout, counted nowhere: one address opening sockets and never finishing
a request (a slowloris) took the process to its open-file limit, every other client
was refused, and asyncio logged a traceback for each refused accept (found by
red-teaming: 350 such sockets, a limit of 300 files, 3,929 tracebacks). The server's
:class:`Opening` counts them by address: past ``--max-connections-per-address`` from
one address, a new socket is dropped as soon as it is accepted. A trusted proxy's
sockets (``--trusted-proxy``) are not counted: whose they are is not known before
their request, and the proxy holds its own clients' handshakes. (Such a flood from
many addresses is still for a reverse proxy or the firewall.)
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import Any, Literal

from websockets.asyncio.server import ServerConnection
from websockets.server import ServerProtocol

from rollbridge.server.addresses import AddressCounts, Network, address_group, is_trusted
from rollbridge.server.bad_request import AnsweringProtocol
from rollbridge.server.limits import BUFFER_LIMIT
from rollbridge.server.outbox import write_data
from rollbridge.server.throttle import Throttle

__all__ = ["BoundedConnection", "Opening"]

log = logging.getLogger("rollbridge.server")


class Opening:
    """The sockets of one server still in their opening handshake, by address group.

    :param per_address: the most from one address group (None: any).
    :param refused: called with ``"opening"`` for each socket dropped (the server's
        metrics).
    :param trusted: the operator's proxies, whose sockets are not counted.
    """

    def __init__(
        self,
        per_address: int | None,
        refused: Callable[[str], None] | None = None,
        trusted: Sequence[Network] = (),
    ) -> None:
        self.per_address = per_address
        self.refused = refused
        self.trusted = trusted
        self.count = 0
        self.by_address = AddressCounts()
        self._said = Throttle(10.0)

    def enter(self, peer: str) -> str | Literal[False] | None:
        """Count a socket from ``peer``: the address group it is counted under, None
        for one not counted (a trusted proxy's), or False: refused."""
        if is_trusted(peer, self.trusted):
            return None
        address = address_group(peer)
        held = self.by_address.get(address, 0)
        if self.per_address is not None and held >= self.per_address:
            if self.refused is not None:
                self.refused("opening")
            said = self._said.allow()
            if said is not None:
                log.warning("dropped a socket from %s: %d still in their opening handshake, "
                            "the limit (--max-connections-per-address); %d more dropped "
                            "since the last such line", address, held, said)  # fmt: skip
            return False
        self.by_address.add(address)
        self.count += 1
        return address

    def leave(self, address: str) -> None:
        """A socket counted by :meth:`enter` finished its handshake, or closed."""
        self.count -= 1
        self.by_address.remove(address)


class BoundedConnection(ServerConnection):
    """A :class:`~websockets.asyncio.server.ServerConnection` that stops reading
    once more than :attr:`unsent_limit` bytes wait to be sent to its client."""

    #: Unsent bytes past which the client is cut off (the server's ``buffer_limit``).
    unsent_limit: int = BUFFER_LIMIT
    #: Called once, with the unsent bytes, when they pass the limit (the server's
    #: client cuts itself off); None: the connection is dropped at once.
    on_behind: Callable[[int], None] | None = None
    _behind: bool = False

    def __init__(self, *args: Any, opening: Opening | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if type(self.protocol) is ServerProtocol:  # nothing parsed yet: answers what it
            self.protocol.__class__ = AnsweringProtocol  # cannot read (bad_request.py)
        self._opening = opening
        #: The address group it is counted under while it opens (None: not counted).
        self._counted: str | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """websockets' own, then counted as opening (or dropped: see :class:`Opening`)."""
        super().connection_made(transport)
        if self._opening is None:
            return
        peer = transport.get_extra_info("peername")
        counted = self._opening.enter(str(peer[0]) if peer else "?")
        if counted is False:
            transport.abort()
        else:
            self._counted = counted

    def opened(self) -> None:
        """Its handshake is over: no longer counted as opening."""
        if self._counted is not None and self._opening is not None:
            self._opening.leave(self._counted)
            self._counted = None

    def connection_lost(self, exc: Exception | None) -> None:
        """websockets' own; one that closes while it opens is no longer counted."""
        super().connection_lost(exc)
        self.opened()

    def send_data(self) -> None:
        """What websockets has to send, in one transport write."""
        data = self.protocol.data_to_send()
        if data:
            write_data(self, data)

    def data_received(self, data: bytes) -> None:
        """websockets' own handling (pongs included), then the limit."""
        super().data_received(data)
        owed = self.transport.get_write_buffer_size()
        if owed <= self.unsent_limit:
            return
        self.transport.pause_reading()  # no more pings read: no more pongs written
        if self._behind:
            return
        self._behind = True
        if self.on_behind is not None:
            self.on_behind(owed)
        else:  # before its client was made: nothing to tell, nothing to keep
            self.transport.abort()
