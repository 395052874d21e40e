"""A minimal WebSocket client for the server benchmarks' load generator.

``bench_server.py`` drives thousands of connections from one asyncio process
that shares a 2-core machine with the server under test, so the client side
must cost far less than the server side. websockets' own client parses,
validates, unmasks and queues every frame in Python, which is about as much
work as the server does for it; this client does only what the benchmark
needs:

* the opening handshake (RFC 6455 section 4.1), optionally offering
  permessage-deflate (RFC 7692) with ``client_max_window_bits``;
* masked client frames with an all-zero masking key, so the payload goes out
  as is (the key must be sent, and the server unmasks with it; it is only
  meant to be unpredictable, which does not matter on loopback);
* server frames read header by header; a data frame's payload is copied out
  only for connections that asked for it (``on_message``), the others just
  count frames and bytes; pings are answered, a close frame is echoed.

Not a general client: no fragmented messages (websockets never fragments what
the servers under test send), no TLS, no extension but deflate, which is only
*inflated* (the client never compresses what it sends: RFC 7692 lets a sender
leave any message uncompressed).
"""

from __future__ import annotations

import asyncio
import base64
import os
import struct
import zlib
from collections.abc import Callable

__all__ = ["WireClient", "connect"]

_ZERO_MASK = b"\x00\x00\x00\x00"
_SYNC_TAIL = b"\x00\x00\xff\xff"
OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0x1, 0x2, 0x8, 0x9, 0xA

#: ``on_message(opcode, payload)`` for text and binary messages.
OnMessage = Callable[[int, bytes], None]


def frame(opcode: int, payload: bytes) -> bytes:
    """A final, masked client frame (zero masking key)."""
    n = len(payload)
    if n < 126:
        header = bytes((0x80 | opcode, 0x80 | n))
    elif n < 65536:
        header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
    else:
        header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
    return header + _ZERO_MASK + payload


class WireClient(asyncio.Protocol):
    """One client connection; see the module docstring.

    :param on_message: called with each data message (inflated if it was
        compressed); None: messages are only counted.
    """

    def __init__(self, host: str, path: str, deflate: bool) -> None:
        self.host = host
        self.path = path
        self.offer_deflate = deflate
        self.deflate = False  # negotiated
        self.on_message: OnMessage | None = None
        self.transport: asyncio.Transport | None = None
        self.handshake: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.closed: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
        self.close_code: int | None = None
        self._buffer = bytearray()
        self._open = False
        self._inflater: zlib._Decompress | None = None
        self.messages = 0
        self.bytes_in = 0

    # -- asyncio.Protocol -------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [
            f"GET {self.path} HTTP/1.1",
            f"Host: {self.host}",
            "Upgrade: websocket",
            "Connection: Upgrade",
            f"Sec-WebSocket-Key: {key}",
            "Sec-WebSocket-Version: 13",
        ]
        if self.offer_deflate:
            lines.append("Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits")
        self.transport.write(("\r\n".join(lines) + "\r\n\r\n").encode())  # type: ignore[union-attr]

    def data_received(self, data: bytes) -> None:
        buffer = self._buffer
        buffer += data
        self.bytes_in += len(data)
        if not self._open:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(buffer[:end]).decode("latin-1")
            del buffer[: end + 4]
            status = head.split("\r\n", 1)[0]
            if " 101 " not in status + " ":
                self.handshake.set_exception(ConnectionError(f"handshake refused: {status}"))
                self.transport.close()  # type: ignore[union-attr]
                return
            extensions = [
                line.split(":", 1)[1].strip().lower()
                for line in head.split("\r\n")[1:]
                if line.lower().startswith("sec-websocket-extensions:")
            ]
            self.deflate = any(e.startswith("permessage-deflate") for e in extensions)
            if self.deflate:
                self._inflater = zlib.decompressobj(wbits=-15)
            self._open = True
            self.handshake.set_result(None)
        self._frames()

    def _frames(self) -> None:
        buffer = self._buffer
        size = len(buffer)
        pos = 0
        on_message = self.on_message
        while size - pos >= 2:
            b0 = buffer[pos]
            length = buffer[pos + 1] & 0x7F
            start = pos + 2
            if length == 126:
                if size - pos < 4:
                    break
                length = (buffer[pos + 2] << 8) | buffer[pos + 3]
                start = pos + 4
            elif length == 127:
                if size - pos < 10:
                    break
                length = int.from_bytes(buffer[pos + 2 : pos + 10], "big")
                start = pos + 10
            end = start + length
            if end > size:
                break
            opcode = b0 & 0x0F
            if opcode < 8:
                self.messages += 1
                if on_message is not None:
                    payload = bytes(buffer[start:end])
                    if b0 & 0x40:  # RSV1: compressed
                        payload = self._inflater.decompress(payload + _SYNC_TAIL)  # type: ignore[union-attr]
                    on_message(opcode, payload)
                    on_message = self.on_message  # the callback may switch it
            elif opcode == OP_PING:
                self._write(frame(OP_PONG, bytes(buffer[start:end])))
            elif opcode == OP_CLOSE:
                payload = bytes(buffer[start:end])
                self.close_code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else None
                self._write(frame(OP_CLOSE, payload[:2]))
                self.transport.close()  # type: ignore[union-attr]
                pos = end
                break
            pos = end
        if pos:
            del buffer[:pos]

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.handshake.done():
            self.handshake.set_exception(exc or ConnectionError("closed during the handshake"))
        if not self.closed.done():
            self.closed.set_result(self.close_code)

    # -- sending ----------------------------------------------------------------

    def _write(self, data: bytes) -> None:
        transport = self.transport
        if transport is not None and not transport.is_closing():
            transport.write(data)

    def send_binary(self, payload: bytes) -> None:
        self._write(frame(OP_BINARY, payload))

    def send_text(self, payload: str) -> None:
        self._write(frame(OP_TEXT, payload.encode()))

    async def close(self, timeout: float = 2.0) -> None:
        """Send a close frame (1000), wait for the server's, then drop the socket."""
        if self.transport is None or self.closed.done():
            return
        self._write(frame(OP_CLOSE, (1000).to_bytes(2, "big")))
        try:
            await asyncio.wait_for(asyncio.shield(self.closed), timeout)
        except TimeoutError:
            self.transport.close()


async def connect(host: str, port: int, *, path: str = "/", deflate: bool = False) -> WireClient:
    """Open a connection and finish the opening handshake."""
    loop = asyncio.get_running_loop()
    _, client = await loop.create_connection(
        lambda: WireClient(f"{host}:{port}", path, deflate), host, port
    )
    await client.handshake
    return client
