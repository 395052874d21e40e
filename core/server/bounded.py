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
"""

from __future__ import annotations

from collections.abc import Callable

from websockets.asyncio.server import ServerConnection

from rollbridge.server.limits import BUFFER_LIMIT
from rollbridge.server.outbox import write_data

__all__ = ["BoundedConnection"]


class BoundedConnection(ServerConnection):
    """A :class:`~websockets.asyncio.server.ServerConnection` that stops reading
    once more than :attr:`unsent_limit` bytes wait to be sent to its client."""

    #: Unsent bytes past which the client is cut off (the server's ``buffer_limit``).
    unsent_limit: int = BUFFER_LIMIT
    #: Called once, with the unsent bytes, when they pass the limit (the server's
    #: client cuts itself off); None: the connection is dropped at once.
    on_behind: Callable[[int], None] | None = None
    _behind: bool = False

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
