"""A server's WebSocket data frame, made once for every connection that is sent it.

A server's frames are not masked (RFC 6455, section 5.1), so a message sent
to several connections without an extension (rollbridge's default: compression
off) is the same bytes on each: a header — FIN and the opcode, then the
payload's length in 7, 16 or 64 bits — and the payload. websockets' protocol
object makes them again for each connection (a ``Frame``, its checks, a
``BytesIO``); the outbox makes them here once per message and batch
(:class:`Wires`) and writes them to each connection's transport after whatever
websockets itself still holds for it. tests/server/test_server_wire.py holds
them byte for byte to websockets' own.
"""

from __future__ import annotations

import struct

__all__ = ["Wires", "data_frame"]

_FIN_BINARY = 0x82
_FIN_TEXT = 0x81
_SHORT = struct.Struct("!BB")
_MEDIUM = struct.Struct("!BBH")
_LONG = struct.Struct("!BBQ")


def data_frame(message: bytes | str) -> bytes:
    """``message`` as one unmasked, unfragmented WebSocket frame: binary for
    bytes, text (UTF-8) for a string."""
    if message.__class__ is str:
        payload = message.encode()  # type: ignore[union-attr]
        first = _FIN_TEXT
    else:
        payload = message  # type: ignore[assignment]
        first = _FIN_BINARY
    length = len(payload)
    if length < 126:
        header = _SHORT.pack(first, length)
    elif length < 65536:
        header = _MEDIUM.pack(first, 126, length)
    else:
        header = _LONG.pack(first, 127, length)
    return header + payload


class Wires:
    """The frames made for one batch's messages, by message (its identity: the
    same event goes to many connections as one object); :meth:`clear` when the
    batch ends."""

    __slots__ = ("_made",)

    def __init__(self) -> None:
        self._made: dict[int, tuple[bytes | str, bytes]] = {}

    def frame(self, message: bytes | str) -> bytes:
        """``message``'s frame (:func:`data_frame`), made at its first call in the batch."""
        made = self._made.get(id(message))
        if made is not None and made[0] is message:
            return made[1]
        wire = data_frame(message)
        # the message is kept with its frame: its id cannot be reused meanwhile
        self._made[id(message)] = (message, wire)
        return wire

    def clear(self) -> None:
        """The batch ended: forget its messages."""
        self._made.clear()
