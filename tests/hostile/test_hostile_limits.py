"""The limits an operator sets, against a real ``rollbridge serve`` started with
them: each answered with its documented error or close code, nothing done by a
refused request, and a server that stops in time whatever its clients do
(issue 16, items 3, 4 and 8; docs/operations.md, "Limits")."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import signal
import socket
import time

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from tests.hostile.wire import ask, hello, receive, sockets_of


async def closed_with(ws: ClientConnection, timeout: float = 15) -> int | None:
    """Read until the server closes; its close code."""
    with pytest.raises(ConnectionClosed):
        while True:
            await asyncio.wait_for(ws.recv(), timeout)
    return ws.close_code


async def test_a_connection_without_hello_is_closed_after_the_deadline(serve):
    served = serve("--hello-timeout", "1")
    quiet = await connect(served.url)
    assert await closed_with(quiet) == 1008
    assert "no hello within 1" in (quiet.close_reason or "")
    # a client that says hello in time stays
    ws = await connect(served.url)
    assert (await ask(ws, hello(served, "gm")))["type"] == "welcome"
    await asyncio.sleep(1.5)
    assert (await ask(ws, {"type": "ping", "id": "p"}))["type"] == "pong"
    await ws.close()


async def test_connections_per_address_and_per_token_are_bounded(serve):
    served = serve("--max-connections-per-address", "3", "--max-connections-per-token", "2")
    first = [await connect(served.url) for _ in range(3)]
    fourth = await connect(served.url)
    assert await closed_with(fourth) == 1013  # the fourth from 127.0.0.1: try again later
    assert "too many connections" in (fourth.close_reason or "")
    for ws in first[:2]:
        assert (await ask(ws, hello(served, "player")))["type"] == "welcome"
    refused = await ask(first[2], hello(served, "player"))  # a third with one token
    assert refused["type"] == "error" and refused["code"] == "too_many_connections"
    assert refused["details"] == {"limit": 2}
    assert await closed_with(first[2]) == 1013
    await first[0].close()  # one leaves: the token may join again
    await asyncio.sleep(0.2)
    again = await connect(served.url)
    assert (await ask(again, hello(served, "player")))["type"] == "welcome"
    for ws in (first[1], again):
        await ws.close()


async def test_the_server_holds_at_most_max_connections_and_frees_a_place_when_one_leaves(
    serve,
):
    """All clients together (the per-address limit off, as every client here comes
    from 127.0.0.1): the connection past ``--max-connections`` is closed 1013 (try
    again later) before any hello, and logged; one leaving lets the next in."""
    served = serve("--max-connections", "3", "--max-connections-per-address", "0")
    first = [await connect(served.url) for _ in range(3)]
    assert (await ask(first[0], hello(served, "gm")))["type"] == "welcome"
    fourth = await connect(served.url)
    assert await closed_with(fourth) == 1013
    assert fourth.close_reason == "the server is full; try again later"
    await first[1].close()
    await asyncio.sleep(0.2)
    again = await connect(served.url)
    assert (await ask(again, hello(served, "player")))["type"] == "welcome"
    for ws in (first[0], first[2], again):
        await ws.close()
    assert "refusing connections: 3 open, the limit (--max-connections)" in served.log_text()


async def test_a_table_holds_at_most_max_actors(serve):
    served = serve("--max-actors", "2")
    ws = await connect(served.url)
    assert (await ask(ws, hello(served, "gm")))["type"] == "welcome"
    sheet = {"body": 3}
    made = []
    for n in range(3):
        actor = {"id": f"a{n}", "name": f"A{n}", "sheet": sheet}
        made.append(await ask(ws, {"type": "actor.create", "id": f"c{n}", "actor": actor}))
    assert [m["type"] for m in made[:2]] == ["result", "result"], made
    assert made[2]["type"] == "error" and made[2]["code"] == "limit_exceeded", made[2]
    assert made[2]["details"] == {"limit": 2}
    state = await ask(ws, {"type": "state", "id": "s"})
    assert [a["id"] for a in state["table"]["actors"]] == ["a0", "a1"]
    await ws.close()


async def test_a_connection_over_its_rate_is_refused_with_a_retry_hint_and_nothing_done(serve):
    served = serve("--rate-per-connection", "5", "--rate-per-table", "0")
    ws = await connect(served.url)
    assert (await ask(ws, hello(served, "gm")))["type"] == "welcome"
    await asyncio.sleep(2.2)  # the bucket is full again (the hello took a token)
    before = (await ask(ws, {"type": "state", "id": "before"}))["table"]["seq"]
    for n in range(30):  # sent at once: a burst of 10 is allowed, then 5 a second
        await ws.send(json.dumps({"type": "roll", "id": f"r{n}", "formula": "1d6"}))
    replies = [await receive(ws) for _ in range(30)]
    replies = [r for r in replies if r.get("type") != "event"]
    while len(replies) < 30:
        reply = await receive(ws)
        if reply.get("type") != "event":
            replies.append(reply)
    done = [r for r in replies if r.get("status") == "done"]
    limited = [r for r in replies if r.get("code") == "rate_limited"]
    assert len(done) + len(limited) == 30
    assert 9 <= len(done) <= 12, len(done)  # about the burst (and what refilled meanwhile)
    assert all(r["details"]["scope"] == "connection" for r in limited)
    assert all(0 < r["details"]["retry_after"] <= 1 for r in limited)
    await asyncio.sleep(1)
    after = (await ask(ws, {"type": "state", "id": "after"}))["table"]["seq"]
    assert after == before + len(done), "a refused request changed nothing"
    # a refused id was not used: the same request, later, is done
    retried = await ask(ws, {"type": "roll", "id": limited[0]["id"], "formula": "1d6"})
    assert retried["status"] == "done"
    await ws.close()


async def test_a_table_over_its_rate_refuses_every_client_alike(serve):
    served = serve("--rate-per-table", "2", "--rate-per-connection", "0")
    gm = await connect(served.url)
    player = await connect(served.url)
    assert (await ask(gm, hello(served, "gm")))["type"] == "welcome"
    assert (await ask(player, hello(served, "player")))["type"] == "welcome"
    await asyncio.sleep(2.1)
    answers = []
    for n in range(4):
        answers.append(await ask(gm, {"type": "state", "id": f"g{n}"}))
        answers.append(await ask(player, {"type": "state", "id": f"p{n}"}))
    codes = [a.get("code") for a in answers]
    assert codes[:4] == [None] * 4  # the burst of 4
    assert "rate_limited" in codes[4:]
    scopes = {a["details"]["scope"] for a in answers if a.get("code") == "rate_limited"}
    assert scopes == {"table"}
    # pings are not table requests: never held to the table's rate
    assert (await ask(player, {"type": "ping", "id": "p"}))["type"] == "pong"
    for ws in (gm, player):
        await ws.close()


async def test_an_event_larger_than_the_limit_is_refused_before_the_table_changes(serve):
    served = serve("--max-event-size", "60000", "--rate-per-connection", "0")
    ws = await connect(served.url)
    assert (await ask(ws, hello(served, "gm")))["type"] == "welcome"
    before = (await ask(ws, {"type": "state", "id": "before"}))["table"]
    refused = await ask(ws, {"type": "roll", "id": "huge", "formula": "999d6x>1"})
    assert refused["code"] == "event_too_large", refused
    assert refused["details"]["limit"] == 60000 and refused["details"]["size"] > 60000
    assert (await ask(ws, {"type": "state", "id": "after"}))["table"] == before
    fits = await ask(ws, {"type": "roll", "id": "fits", "formula": "999d6"})
    assert fits["status"] == "done" and fits["seq"] == before["seq"] + 1
    await ws.close()


async def test_a_reader_that_stops_is_cut_off_and_serve_still_stops_in_time(serve):
    served = serve("--rate-per-connection", "0", "--rate-per-table", "0",
                   "--close-timeout", "1", "--drain-timeout", "2")  # fmt: skip
    slow = await connect(served.url, max_size=2**24)
    await slow.send(json.dumps(hello(served, "observer")))
    await asyncio.sleep(0.5)
    slow.transport.pause_reading()  # it stops reading, and never reads again
    gm = await connect(served.url, max_size=2**24)
    assert (await ask(gm, hello(served, "gm")))["type"] == "welcome"
    for n in range(400):  # 26 KiB events: past the 4 MiB a client may owe
        reply = await ask(gm, {"type": "roll", "id": f"big{n}", "formula": "999d6"})
        assert reply["status"] == "done"
        if "fell" in served.log_text():
            break
    deadline = time.monotonic() + 10
    while "did not take its close" not in served.log_text() and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    assert "did not take its close" in served.log_text(), "the cut-off socket was not aborted"
    # a second reader that stops, still connected when the server is told to stop
    stuck = await connect(served.url, max_size=2**24)
    await stuck.send(json.dumps(hello(served, "observer")))
    await asyncio.sleep(0.3)
    stuck.transport.pause_reading()
    for n in range(10):
        await ask(gm, {"type": "roll", "id": f"more{n}", "formula": "999d6"})
    served.process.send_signal(signal.SIGTERM)
    assert served.process.wait(timeout=15) == 0  # within the drain timeout and a margin
    assert "Traceback" not in served.log_text()


async def test_a_port_probe_leaves_no_traceback_in_the_log(served):
    for _ in range(3):  # a load balancer's TCP check: connect, close
        socket.create_connection(("127.0.0.1", served.port), timeout=2).close()
    with socket.create_connection(("127.0.0.1", served.port), timeout=2) as raw:
        raw.sendall(b"GET / HTTP/1.1\r\n\r\n")  # no WebSocket upgrade
        raw.recv(1000)
    await asyncio.sleep(0.3)
    assert served.stop() == 0
    assert "Traceback" not in served.log_text()


async def test_garbage_frames_take_from_the_connections_rate_too(serve):
    served = serve("--rate-per-connection", "2", "--rate-per-table", "0")
    ws = await connect(served.url)
    assert (await ask(ws, hello(served, "gm")))["type"] == "welcome"
    await asyncio.sleep(2.1)
    codes = []
    for _ in range(12):  # not JSON, and a map without an id: answered, but counted
        for frame in ("{nope", json.dumps({"type": "ping"})):
            await ws.send(frame)
            codes.append((await receive(ws))["code"])
    assert codes.count("rate_limited") >= 16, codes
    assert set(codes) <= {"undecodable", "invalid_request", "rate_limited"}
    await ws.close()


def _raw_upgrade(port: int, path: str) -> socket.socket:
    """A WebSocket handshake that then never reads nor answers a close."""
    sock = socket.create_connection(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    return sock


async def test_refused_connections_let_go_of_their_sockets_at_once(serve) -> None:
    """--max-connections 2 and 200 upgrades that never read: each refused connection
    held its socket for the whole --close-timeout (30 s here), uncounted, so a
    client could take the process past the open-file limit the cap was sized for
    (found by review). A refused connection now waits at most 1 s for its close,
    and counts against the cap while it does."""
    served = serve(
        "--max-connections", "2", "--max-connections-per-address", "0", "--close-timeout", "30"
    )
    pid = served.process.pid
    path = f"/tables/{served.table}"
    first = [await connect(served.url) for _ in range(2)]
    base = sockets_of(pid)
    extra = [_raw_upgrade(served.port, path) for _ in range(200)]
    for sock in extra:  # each one answered: the server has taken it (read, never a close)
        assert _answered(sock, within=30), "the server never answered an upgrade"
    # then, within 10 s, they are let go (before: held for the whole 30 s close timeout);
    # polled, not slept: a loaded machine took over the 2 s this once allowed (CI)
    for _ in range(100):
        held = sockets_of(pid)
        if held - base < 10:
            break
        await asyncio.sleep(0.1)
    for s in extra:
        s.close()
    for ws in first:
        await ws.close()
    assert held - base < 10, (base, held)


def _answered(sock: socket.socket, within: float) -> bool:
    """Whether the server wrote the start of an HTTP answer on ``sock`` within
    ``within`` seconds (only read: no close is answered)."""
    sock.settimeout(within)
    try:
        return sock.recv(12).startswith(b"HTTP/1.1")
    except TimeoutError:
        return False


async def test_per_address_refusals_log_one_line_every_10_s(serve) -> None:
    """One address at its limit reconnecting in a loop: a WARNING per refusal
    before (found by review); one every 10 s now."""
    served = serve("--max-connections-per-address", "1")
    first = await connect(served.url)
    for _ in range(50):
        ws = await connect(served.url)
        assert await closed_with(ws) == 1013
    await first.close()
    await asyncio.sleep(0.5)
    lines = served.log_text().count("refused a connection from")
    assert lines <= 1, lines
