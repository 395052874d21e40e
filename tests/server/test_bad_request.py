"""The 400 answer to a request websockets cannot read (core/server/bad_request.py)
answers nothing twice, and bytes pipelined after a request log no traceback."""

from __future__ import annotations

import asyncio
import logging

from rollbridge.server import Server
from rollbridge.server.limits import Limits
from rollbridge.stores.sqlite import SQLiteStore
from tests.server.conftest import make_host, seed_tables
from tests.server.httpclient import exchange

UPGRADE = (b"Host: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           b"Sec-WebSocket-Version: 13\r\n")  # fmt: skip


async def serve(tmp_path, tally) -> Server:
    host = make_host(tally)
    path = tmp_path / "rollbridge.db"
    with SQLiteStore(path) as seed:
        seed_tables(seed, host)
    server = Server(SQLiteStore(path), host, port=0, limits=Limits())
    await server.start()
    return server


async def test_a_handshake_websockets_refuses_gets_one_answer(tmp_path, tally):
    """A Sec-WebSocket-Key that is no base64 is refused by websockets' accept() with its
    own 400; its error has a cause, which the answering protocol took for a request it
    could not read and sent a second 400 after the first on the same connection."""
    server = await serve(tmp_path, tally)
    try:
        request = b"GET / HTTP/1.1\r\n" + UPGRADE + b"Sec-WebSocket-Key: !!!\r\n\r\n"
        data = await asyncio.to_thread(exchange, server.port, request)
    finally:
        await server.stop()
    assert data.startswith(b"HTTP/1.1 400 ")
    assert data.count(b"HTTP/1.1 ") == 1, data


async def test_bytes_pipelined_after_a_request_log_no_traceback(tmp_path, tally, caplog):
    """websockets reads what follows a request as frames while the request is still
    handled: the connection fails (EOF sent), then the answer's own EOF hit websockets'
    ``assert not self.eof_sent`` and logged "unexpected internal error" with a
    traceback, for any client that pipelines (a log flood for anyone)."""
    caplog.set_level(logging.INFO)
    server = await serve(tmp_path, tally)
    healthz = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
    try:
        for request in (healthz * 3, healthz + b"POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc"):
            await asyncio.to_thread(exchange, server.port, request)
        # one normal request still answered as before
        assert (await asyncio.to_thread(exchange, server.port, healthz)).startswith(b"HTTP/1.1 200")
    finally:
        await server.stop()
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert errors == [], [r.getMessage() for r in errors]


async def test_a_line_ended_by_a_bare_lf_is_answered_not_dropped(tmp_path, tally):
    """websockets reads a line that ends in LF without CR as the stream ending
    (EOFError), which the answering protocol took for a client gone: garbage or a TLS
    ClientHello holding a 0x0a byte, or a hand-made request, got the silent close
    this answer was made to end, though its client was still there."""
    server = await serve(tmp_path, tally)
    hello = bytes.fromhex("16030100c4010000c00303") + bytes(range(32)) + b"\n" + bytes(20)
    try:
        for request in (b"GET /healthz HTTP/1.1\nHost: x\n\n", hello):
            data = await asyncio.to_thread(exchange, server.port, request)
            assert data.startswith(b"HTTP/1.1 400 "), data
            assert b'"reason": "invalid_http"' in data and data.count(b"HTTP/1.1 ") == 1
    finally:
        await server.stop()


async def test_a_head_with_a_body_is_refused_with_a_head_only(tmp_path, tally):
    """A ``HEAD`` with a body (``Content-Length``), which websockets does not read, was
    answered 400 ``request_body`` with the JSON after the head — the one answer of the
    port to a HEAD with content (found by the HTTP fuzzer, seed 7). Now its head only,
    the Content-Length of the refusal a GET gets; a GET still gets the refusal whole."""
    server = await serve(tmp_path, tally)
    sent = b" /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
    try:
        head = await asyncio.to_thread(exchange, server.port, b"HEAD" + sent)
        get = await asyncio.to_thread(exchange, server.port, b"GET" + sent)
    finally:
        await server.stop()
    head_fields, _, head_body = head.partition(b"\r\n\r\n")
    get_fields, _, get_body = get.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 ") and b"request_body" in get_body
    assert head_body == b"" and f"Content-Length: {len(get_body)}".encode() in head_fields
    assert get_fields.startswith(b"HTTP/1.1 400 ")


async def test_a_head_websockets_refuses_as_too_long_gets_its_head_only(tmp_path, tally):
    """A ``HEAD`` whose request line or header passes websockets' limits is refused by
    websockets itself (414, 431), an answer no route's ``process_response`` sees: it
    carried its plain-text body after the head, where docs/operations.md says no
    answer to a HEAD of the port has one (websockets' own refusals neither)."""
    server = await serve(tmp_path, tally)
    long_line = b" /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n"
    long_header = b" /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 9000 + b"\r\n\r\n"
    answers = {}
    try:
        for name, rest in (("line", long_line), ("header", long_header)):
            for method in (b"HEAD", b"GET"):
                answers[name, method] = await asyncio.to_thread(
                    exchange, server.port, method + rest
                )
    finally:
        await server.stop()
    for name, status in (("line", b"414"), ("header", b"431")):
        head_fields, _, head_body = answers[name, b"HEAD"].partition(b"\r\n\r\n")
        _, _, get_body = answers[name, b"GET"].partition(b"\r\n\r\n")
        assert head_fields.startswith(b"HTTP/1.1 " + status + b" "), head_fields
        assert head_body == b"" and get_body  # a GET still gets the refusal whole
        assert f"Content-Length: {len(get_body)}".encode() in head_fields
