"""Frames held per connection while a batch of deliveries is made, then written together.

A group commit releases the replies and events of many requests at once, and a
table with two requests in one group sends each of its clients two events (the
requester, two results as well). Written one by one, as websockets'
``broadcast`` does, each frame costs a ``send`` system call on the server and a
wake-up on the client. Inside :meth:`Outbox.batch` the frames for each
connection are held, in order; when the batch ends, each connection's frames
are framed by its websockets protocol object (the sans-I/O ``send_binary`` /
``send_text``) and written with one transport write. A lone frame, a
connection no longer open and a connection in the middle of a fragmented
message go through ``broadcast`` exactly as outside a batch.

Nothing is reordered: a connection's frames leave in the order they were
given, and nothing else writes to a connection while a batch runs (the batch is
synchronous: no task runs until it ends). A client's limit on unsent bytes is
checked against its transport's buffer, as before: frames held by a batch are
not counted, so a client that does not read may owe one batch more than the
limit before it is cut off (a healthy client is never cut off for the size of a
batch, which its socket takes at once). Measured on the throughput
benchmark: docs/performance.md ("Deliveries written together").
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

from websockets.asyncio.server import ServerConnection, broadcast
from websockets.protocol import State

__all__ = ["Outbox", "write_together"]

log = logging.getLogger("rollbridge.client")

Frame = bytes | str


class Outbox:
    """Where a server's frames leave: at once, or held until the batch ends."""

    __slots__ = ("_held",)

    def __init__(self) -> None:
        self._held: dict[ServerConnection, list[Frame]] | None = None

    @property
    def holding(self) -> bool:
        """A batch is running: frames are held until it ends."""
        return self._held is not None

    def send(self, connection: ServerConnection, frame: Frame) -> None:
        """Write ``frame`` to ``connection`` now, or when the running batch ends."""
        held = self._held
        if held is None:
            broadcast((connection,), frame)
            return
        frames = held.get(connection)
        if frames is None:
            held[connection] = [frame]
        else:
            frames.append(frame)

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Hold every frame sent until the block ends, then write each connection's
        together. A batch inside a batch is part of the outer one."""
        if self._held is not None:
            yield
            return
        self._held = {}
        try:
            yield
        finally:
            held, self._held = self._held, None
            for connection, frames in held.items():
                write_together(connection, frames)


def write_together(connection: ServerConnection, frames: list[Frame]) -> None:
    """``frames`` to ``connection``, in order, with one transport write where it can
    (see the module docstring). Never raises: as with ``broadcast``, a connection
    that fails is skipped (and logged), never the batch."""
    protocol = connection.protocol
    if len(frames) == 1 or protocol.state is not State.OPEN or _mid_message(connection):
        for frame in frames:
            broadcast((connection,), frame)  # skips a connection that is not open
        return
    try:
        for frame in frames:
            if frame.__class__ is str:
                protocol.send_text(frame.encode())  # type: ignore[union-attr]
            else:
                protocol.send_binary(frame)  # type: ignore[arg-type]
    except Exception as exc:
        log.warning("skipped frames to a connection: %s: %s", type(exc).__name__, exc)
    try:
        _write(connection, protocol.data_to_send())
    except Exception as exc:
        log.warning("could not write to a connection: %s: %s", type(exc).__name__, exc)


def _write(connection: ServerConnection, data: list[bytes]) -> None:
    """What the protocol has to send, joined into one transport write; an end of
    stream among it (the protocol failed) is handled as websockets does."""
    transport = connection.transport
    if all(data):
        if data:
            transport.write(b"".join(data))
        return
    for chunk in data:
        if chunk:
            transport.write(chunk)
        elif transport.can_write_eof():
            transport.write_eof()
        else:
            transport.close()


def _mid_message(connection: ServerConnection) -> bool:
    """The connection is sending a fragmented message (rollbridge never does, but
    then a frame must wait: ``broadcast`` skips it). websockets 14 and later name
    the future ``send_in_progress``, 13 ``fragmented_send_waiter``."""
    for name in ("send_in_progress", "fragmented_send_waiter"):
        if getattr(connection, name, None) is not None:
            return True
    return False
