"""Frames held per connection while a batch of deliveries is made, then written together.

A group commit releases the replies and events of many requests at once, and a
table with two requests in one group sends each of its clients two events (the
requester, two results as well). Written one by one, as websockets'
``broadcast`` does, each frame costs a ``send`` system call on the server and a
wake-up on the client. Inside :meth:`Outbox.batch` the frames for each
connection are held, in order; when the batch ends, each connection's frames
are written with one transport write. Each message is framed once for every
connection the batch sends it to (:mod:`rollbridge.server.wire`: a server's
frames are not masked, so an event's frame is the same bytes for each), after
whatever websockets' protocol object still holds for the connection; a
connection with an extension (compression) or websockets' debug log has its
frames made by its protocol object (the sans-I/O ``send_binary`` /
``send_text``). A connection no longer open and a connection in the middle of
a fragmented message go through ``broadcast`` exactly as outside a batch.

Nothing is reordered: a connection's frames leave in the order they were
given, and nothing else writes to a connection while a batch runs (the batch is
synchronous: no task runs until it ends; a client being closed has its held
frames written first, with :meth:`Outbox.flush`, so its close frame follows
them). Frames held for one connection
are written as soon as they pass :data:`FLUSH_AT` (64 KiB; a text frame counted in its
UTF-8 bytes, not its characters), so a large burst —
a follower's catch-up of many missed events — reaches the transport as it
did before, and a client's limit on unsent bytes (checked against its
transport's buffer) sees it: held frames add at most 64 KiB to what a client
may owe before it is cut off. Measured on the throughput
benchmark: docs/performance.md ("Deliveries written together"; the frames made
once: "The loop's glue, counted").
"""

from __future__ import annotations

import logging

from websockets.asyncio.server import ServerConnection, broadcast
from websockets.protocol import Protocol, State

from rollbridge.protocol.frames import payload_size
from rollbridge.server.unsendable import close_unsendable, mended
from rollbridge.server.wire import Wires, data_frame

__all__ = ["FLUSH_AT", "Outbox", "write_data", "write_together"]

log = logging.getLogger("rollbridge.client")

Frame = bytes | str

#: Held frames of one connection (their bytes) that are written at once, batch or not.
FLUSH_AT = 64 * 1024


class Outbox:
    """Where a server's frames leave: at once, or held until the batch ends."""

    __slots__ = ("_depth", "_held", "_sizes", "_wires")

    def __init__(self) -> None:
        self._held: dict[ServerConnection, list[Frame]] | None = None
        #: Batches entered and not yet left (one inside another is part of it).
        self._depth = 0
        self._sizes: dict[ServerConnection, int] = {}
        #: Each message's WebSocket frame, made once per batch for all its connections.
        self._wires = Wires()

    @property
    def holding(self) -> bool:
        """A batch is running: frames are held until it ends."""
        return self._held is not None

    def send(self, connection: ServerConnection, frame: Frame, length: int | None = None) -> None:
        """Write ``frame`` to ``connection`` now, or when the running batch ends.
        ``length``: its :func:`~rollbridge.protocol.frames.payload_size`, when the caller
        has it."""
        held = self._held
        if held is None:
            try:
                broadcast((connection,), frame)
            except Exception:  # a frame it cannot make: mended, or the connection closed
                write_together(connection, [frame])
            return
        if length is None:  # the bytes on the wire, not a text frame's characters
            try:
                length = payload_size(frame)
            except Exception:  # no frame as it is: mended, or its connection closed, when written
                length = 0
        frames = held.get(connection)
        if frames is None:
            frames = held[connection] = [frame]
            size = self._sizes[connection] = length
        else:
            frames.append(frame)
            size = self._sizes[connection] = self._sizes[connection] + length
        if size >= FLUSH_AT:  # a burst: written now, so the client's limit sees it
            del held[connection], self._sizes[connection]
            write_together(connection, frames, self._wires)

    def flush(self, connection: ServerConnection) -> None:
        """Write the frames held for ``connection`` now (before its close frame)."""
        if self._held is not None:
            frames = self._held.pop(connection, None)
            self._sizes.pop(connection, None)
            if frames:
                write_together(connection, frames, self._wires)

    def batch(self) -> Outbox:
        """Hold every frame sent until the ``with`` block ends, then write each
        connection's together. A batch inside a batch is part of the outer one.
        (The outbox is its own context manager, entered once a batch: a
        ``contextlib`` generator cost a generator and four calls more, three
        batches a request.)"""
        return self

    def __enter__(self) -> None:
        if self._depth == 0:
            self._held = {}
        self._depth += 1

    def __exit__(self, *exc: object) -> None:
        self._depth -= 1
        if self._depth:
            return
        held, self._held = self._held, None
        self._sizes.clear()
        wires = self._wires
        try:
            for connection, frames in held.items():  # type: ignore[union-attr]
                write_together(connection, frames, wires)
        finally:
            wires.clear()


def write_together(
    connection: ServerConnection, frames: list[Frame], wires: Wires | None = None
) -> None:
    """``frames`` to ``connection``, in order, with one transport write where it can
    (see the module docstring). ``wires``: the batch's frames made already
    (:mod:`rollbridge.server.wire`). Never raises: as with ``broadcast``, a
    connection that fails is skipped (and logged), never the batch. A frame that
    cannot be made leaves no client waiting for it (:mod:`rollbridge.server.unsendable`):
    a text with a lone surrogate is sent with U+FFFD in its place, and anything else
    (neither bytes nor text) closes the connection with 1011 after its other frames,
    which leave in their order (before, it was skipped: a requester whose result it
    was waited for good, its commit written)."""
    protocol = connection.protocol
    unsendable: list[object] = []  # frames of no type a frame is made of
    # not open, or in the middle of a fragmented message (rollbridge never sends one,
    # but then a frame must wait: ``broadcast`` skips it); websockets 17, the floor,
    # names the latter's future ``send_in_progress``
    if protocol.state is not State.OPEN or connection.send_in_progress is not None:
        for frame in frames:
            try:
                broadcast((connection,), frame)  # skips a connection that is not open
            except Exception:  # a frame it cannot make
                fixed = mended(frame)
                if fixed is None:
                    unsendable.append(frame)
                else:
                    _broadcast_mended(connection, fixed)
        if unsendable and protocol.state is State.OPEN:
            close_unsendable(connection, unsendable[0])
        return
    if protocol.extensions or protocol.debug:  # frames only websockets can make
        for frame in frames:
            try:
                _send_by_protocol(protocol, frame)
            except Exception:  # this frame mended, or left out: not the others
                fixed = mended(frame)
                if fixed is None:
                    unsendable.append(frame)
                    continue
                try:
                    _send_by_protocol(protocol, fixed)
                except Exception as exc:
                    log.warning("skipped a frame to a connection: %s", type(exc).__name__)
        data = None
    else:
        made = wires.frame if wires is not None else data_frame
        try:
            data = [made(frame) for frame in frames]
        except Exception:  # one frame cannot be made: the others still go, in order
            data = []
            for frame in frames:
                try:
                    data.append(made(frame))
                except Exception:
                    fixed = mended(frame)
                    if fixed is None:
                        unsendable.append(frame)
                    else:
                        data.append(data_frame(fixed))
    try:
        pending = protocol.data_to_send()  # what websockets holds goes first
        if data is None:
            data = pending
        elif pending:
            data[:0] = pending
        write_data(connection, data)
    except Exception as exc:
        log.warning("could not write to a connection: %s: %s", type(exc).__name__, exc)
    if unsendable:  # after what was written: the client reconnects and asks again
        close_unsendable(connection, unsendable[0])


def _send_by_protocol(protocol: Protocol, frame: object) -> None:
    """``frame`` made by websockets' protocol object (an extension, its debug log)."""
    if frame.__class__ is str:
        protocol.send_text(frame.encode())  # type: ignore[attr-defined]
    else:
        protocol.send_binary(frame)  # type: ignore[arg-type]


def _broadcast_mended(connection: ServerConnection, frame: bytes | str) -> None:
    try:
        broadcast((connection,), frame)
    except Exception as exc:
        log.warning("skipped a frame to a connection: %s", type(exc).__name__)


def write_data(connection: ServerConnection, data: list[bytes]) -> None:
    """What the protocol has to send, joined into one transport write; an end of
    stream among it (the protocol failed) is handled as websockets does. One write:
    a socket that fails takes no more writes, each of which asyncio would log as a
    WARNING (``socket.send() raised exception.``)."""
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
