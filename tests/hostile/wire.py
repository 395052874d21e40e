"""What the hostile tests say to a served table over JSON frames: a reply read, a
request asked, a ``hello``; and how many sockets the server holds."""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

from websockets.asyncio.client import ClientConnection

__all__ = ["ask", "flood", "hello", "http_get", "http_status", "receive", "sockets_of"]


async def receive(ws: ClientConnection, timeout: float = 10) -> dict[str, Any]:
    """The next frame, as JSON."""
    return json.loads(await asyncio.wait_for(ws.recv(), timeout))


async def ask(ws: ClientConnection, message: dict[str, Any], timeout: float = 10) -> dict[str, Any]:
    """Send a request and return its reply (events are skipped)."""
    await ws.send(json.dumps(message))
    while True:
        reply = await receive(ws, timeout)
        if reply.get("type") != "event":
            return reply


def hello(served: Any, role: str) -> dict[str, Any]:
    """A ``hello`` to the served table with its ``role`` token."""
    return {"type": "hello", "id": "h", "table": served.table, "token": served.tokens[role]}


async def http_status(port: int, path: str, token: str) -> int:
    """The status of a ``GET path`` with ``token`` as its bearer token."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\r\n".encode()
    )
    await writer.drain()
    answer = await reader.read()
    writer.close()
    return int(answer.split()[1])


async def http_get(
    port: int, path: str, headers: dict[str, str] | None = None, method: str = "GET"
) -> tuple[int, dict[str, str], bytes]:
    """A request's status, headers (names in lower case) and body."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    lines = "".join(f"{name}: {value}\r\n" for name, value in (headers or {}).items())
    writer.write(f"{method} {path} HTTP/1.1\r\nHost: x\r\n{lines}\r\n".encode())
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(), 30)
    writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    status, *fields = head.decode("latin-1").split("\r\n")
    found = {}
    for field in fields:
        name, _, value = field.partition(":")
        found[name.strip().lower()] = value.strip()
    return int(status.split()[1]), found, body


async def flood(port: int, address: str, most: int = 1000) -> list[int]:
    """``GET /healthz`` for the client ``address`` (through a proxy on 127.0.0.1),
    50 at once, until one is refused (or ``most`` were sent): their statuses."""
    statuses: list[int] = []
    while 429 not in statuses and len(statuses) < most:
        batch = await asyncio.gather(
            *(http_get(port, "/healthz", {"X-Forwarded-For": address}) for _ in range(50))
        )
        statuses += [status for status, _, _ in batch]
    return statuses


def sockets_of(pid: int) -> int:
    """The sockets process ``pid`` holds open. One it closes between the listing and
    its reading is not counted (it raised FileNotFoundError: a test polling this while
    the server let refused connections go, CI)."""
    fd = f"/proc/{pid}/fd"
    count = 0
    for name in os.listdir(fd):
        try:
            count += os.readlink(f"{fd}/{name}").startswith("socket:")
        except FileNotFoundError:  # closed meanwhile
            continue
    return count
