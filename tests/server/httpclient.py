"""Plain HTTP requests to a test server's port (its metrics, admin and export
routes), and the DEBUG log those tests read."""

from __future__ import annotations

import asyncio
import io
import logging
import socket
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from rollbridge.server.logs import configure

__all__ = ["debug_log", "exchange", "fetch", "get", "raw_answer"]


def fetch(
    server: Any, path: str, method: str = "GET", headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    """One plain HTTP request to the server's port (blocking: run it in a thread)."""
    url = f"http://{server.address}:{server.port}{path}"
    request = urllib.request.Request(url, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def exchange(port: int, request: bytes) -> bytes:
    """Send ``request`` and read all the server sends until it closes."""
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.settimeout(60)  # a hang fails the test rather than the run
        sock.sendall(request)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    return data


def raw_answer(port: int, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """``request`` sent as it is (no client re-encodes its target, nor reads the
    answer to a HEAD as having no body): the answer's status, headers (lower-case
    names) and all that follows its head."""
    data = exchange(port, request)
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split()[1]), headers, body


async def get(
    server: Any, path: str, *, token: str | None = None, **options: Any
) -> tuple[int, dict[str, str], bytes]:
    """:func:`fetch` from a thread; ``token`` goes in ``Authorization: Bearer``."""
    if token is not None:
        options["headers"] = {**(options.get("headers") or {}), "Authorization": f"Bearer {token}"}
    return await asyncio.to_thread(fetch, server, path, **options)


def served_log(form: str) -> Iterator[io.StringIO]:
    """The root logger at DEBUG as ``rollbridge serve --log-format FORM`` sets it up,
    writing to the stream yielded; restored after."""
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    stream = io.StringIO()
    configure("DEBUG", form, stream=stream)
    yield stream
    for handler in root.handlers[:]:
        root.removeHandler(handler)
    for handler in saved[0]:
        root.addHandler(handler)
    root.setLevel(saved[1])


@pytest.fixture
def debug_log() -> Iterator[io.StringIO]:
    """The root logger at DEBUG as ``rollbridge serve`` sets it up (JSON lines),
    restored after."""
    yield from served_log("json")
