"""What one client can take from everyone else on a real ``rollbridge serve``: the
store-reading threads every table's joins need, the server's memory, the export's
one place, the operator's log (a red-team pass; docs/operations.md, "Limits")."""

from __future__ import annotations

import asyncio
import base64
import collections
import contextlib
import json
import os
import re
import signal
import socket
import struct
import threading
import time
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from tests.hostile.wire import ask, hello, http_status, receive, sockets_of
from tests.server.conftest import make_tables  # noqa: F401  (a fixture)
from tests.server.httpclient import debug_log  # noqa: F401  (a fixture)


async def joined(served, role: str) -> ClientConnection:
    ws = await connect(served.url, max_size=2**24)
    welcome = await ask(ws, hello(served, role), 30)
    assert welcome["type"] == "welcome", welcome
    return ws


async def replies(ws: ClientConnection, count: int) -> list[dict[str, Any]]:
    """The next ``count`` replies (events skipped)."""
    got: list[dict[str, Any]] = []
    while len(got) < count:
        reply = await receive(ws, 30)
        if reply.get("type") != "event":
            got.append(reply)
    return got


async def rolled(ws: ClientConnection, count: int) -> None:
    """``count`` rolls of 999 dice (26 KiB events), sent 20 at a time."""
    for first in range(0, count, 20):
        for n in range(first, min(first + 20, count)):
            await ws.send(json.dumps({"type": "roll", "id": f"r{n}", "formula": "999d6"}))
        got = await replies(ws, min(20, count - first))
        assert all(r.get("status") == "done" for r in got), got


async def test_reads_of_the_log_a_table_asks_for_are_one_at_a_time(serve):
    """An observer sending ``state`` at earlier seqs (each reads the log back from
    that seq on the server's two store-reading threads): every one was queued, so 10 s
    of them, within the rates, kept the server from answering any table's ``hello``
    for minutes (found by red-teaming: 600 reads of a 1,200-event log queued, a
    ``hello`` at another table still unanswered 4 minutes later, ``serve`` not
    stopping on SIGTERM). One read per table is out at once now, and at most eight
    more wait their turn; the others are refused with ``busy`` and change nothing."""
    served = serve("--rate-per-connection", "0", "--rate-per-table", "0")
    gm = await joined(served, "gm")
    await rolled(gm, 120)
    observer = await joined(served, "observer")
    for n in range(30):
        await observer.send(json.dumps({"type": "state", "id": f"s{n}", "at": 1 + n}))
    await observer.send(json.dumps({"type": "stats", "id": "stats"}))
    # another client joins while they are out and queued: answered (hang guard 60 s,
    # where 5 s of the wall clock failed at load), whether or not they are done
    late = await connect(served.url, max_size=2**24)
    assert (await ask(late, hello(served, "player"), 60))["type"] == "welcome"
    answers = await replies(observer, 31)
    busy = [a for a in answers if a.get("code") == "busy"]
    done = [a for a in answers if a["type"] == "result"]
    assert len(busy) + len(done) == 31, answers
    assert busy and len(done) < 31, "every read was queued"
    assert all(b["details"] == {"reading": 9, "limit": 9} for b in busy), busy[0]
    assert "9 reads of this table's log are under way or waiting" in busy[0]["message"]
    # refused, not used: the same id is answered once the read before it is back
    again = await ask(observer, {"type": "state", "id": busy[0]["id"], "at": 5})
    assert again["type"] == "result" and again["table"]["seq"] == 5
    for ws in (gm, observer, late):
        await ws.close()


async def test_players_asking_for_the_log_at_once_are_each_answered_in_turn(serve):
    """Three players pressing the web view's "Count the dice" (``stats``) while the GM
    looks at an earlier ``state``: one read of the log at a time was all a table was
    let have, and the three others got ``busy`` — in normal play, from clients that
    do not send it again. They wait their turn now, and each is answered."""
    served = serve()
    gm = await joined(served, "gm")
    await rolled(gm, 40)
    players = [await joined(served, "player") for _ in range(3)]
    asked = [ask(p, {"type": "stats", "id": f"s{k}"}) for k, p in enumerate(players)]
    answers = await asyncio.gather(*asked, ask(gm, {"type": "state", "id": "st", "at": 10}))
    assert [a["type"] for a in answers] == ["result"] * 4, answers
    assert answers[-1]["table"]["seq"] == 10
    for ws in (gm, *players):
        await ws.close()


def _rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


def _ping_frame() -> bytes:
    """A client's (masked) WebSocket ping with the most a ping may carry, 125 bytes."""
    mask = os.urandom(4)
    payload = bytes(b ^ mask[i % 4] for i, b in enumerate(b"p" * 125))
    return bytes([0x89, 0x80 | 125]) + mask + payload


def _upgrade(sock: socket.socket, port: int) -> None:
    """A WebSocket handshake on ``sock``, reading its answer and nothing more."""
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head


def test_a_client_that_pings_and_never_reads_is_cut_off_without_growing_the_server(serve):
    """WebSocket pings, never a read, no ``hello``: websockets writes a pong for each
    whatever the client reads, and the server held them all (found by red-teaming:
    ~270 MB in 15 s from one connection; with ``--hello-timeout 0``, or after a
    ``hello``, without end). Now the pongs are held to the 4 MiB a client may owe:
    past it the connection reads no more and is cut off (1013, then aborted)."""
    served = serve("--log-level", "INFO", "--hello-timeout", "0", "--close-timeout", "1")
    pid = served.process.pid
    before = _rss_kib(pid)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", served.port))
    _upgrade(sock, served.port)
    burst = _ping_frame() * 1000
    sock.settimeout(1.0)
    grown, cut, started = 0, False, time.monotonic()
    try:
        while time.monotonic() - started < 12:
            with contextlib.suppress(TimeoutError):  # it reads no more: its cut-off comes
                sock.sendall(burst)
            grown = max(grown, _rss_kib(pid) - before)
    except OSError:  # reset: the server dropped the connection
        cut = True
    finally:
        sock.close()
    assert cut, f"still connected after 12 s; the server grew by {grown} KiB"
    assert grown < 48 * 1024, grown
    assert "fell" in served.log_text() and "bytes behind; disconnecting" in served.log_text()


async def test_wrong_tokens_take_no_place_of_a_token_holders_export(serve):
    """Strangers asking for a table's export (its id is in every URL of its web view)
    with a made-up token: each took the one export place while the server loaded the
    whole table to tell 401 from 404, so the token holders' own exports were refused
    ``busy`` (found by red-teaming: 45 of 51 refused while four such loops ran). The
    token is looked up first now, and the table's existence told from its tokens."""
    served = serve("--rate-per-connection", "0", "--rate-per-table", "0")
    gm = await joined(served, "gm")
    await rolled(gm, 40)
    path = f"/tables/{served.table}/export?format=jsonl"
    stop = asyncio.Event()
    strangers: dict[int, int] = {}

    async def stranger() -> None:
        while not stop.is_set():
            status = await http_status(served.port, path, "rbt_made-up")
            strangers[status] = strangers.get(status, 0) + 1

    loops = [asyncio.create_task(stranger()) for _ in range(4)]
    holders = []
    for _ in range(12):
        holders.append(await http_status(served.port, path, served.tokens["player"]))
    stop.set()
    await asyncio.gather(*loops)
    assert holders == [200] * 12, holders
    assert set(strangers) == {401}, strangers
    unknown = "/tables/no-such-table/export?format=jsonl"
    assert await http_status(served.port, unknown, "rbt_made-up") == 404
    await gm.close()


def test_a_burst_of_pings_then_a_reset_writes_no_warning_per_pong(serve):
    """2,000 pings in one burst, then a reset, from connections without a ``hello``:
    websockets wrote each pong with a write of its own, and asyncio logged a WARNING
    for every write after the one that failed (found by red-teaming: 10,127 lines
    from 20 connections). What websockets sends is written in one write now."""
    served = serve("--log-level", "INFO")
    burst = _ping_frame() * 2000
    for _ in range(20):
        sock = socket.create_connection(("127.0.0.1", served.port))
        _upgrade(sock, served.port)
        sock.sendall(burst)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        time.sleep(0.002)
        sock.close()  # a reset, with pongs still being written
    time.sleep(1)
    assert served.log_text().count("socket.send() raised exception") == 0


async def store_reads(port: int) -> dict[str, float]:
    """``rollbridge_store_reads_total`` from ``GET /metrics``, by outcome."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    text = (await reader.read()).decode()
    writer.close()
    found = re.findall(r'^rollbridge_store_reads_total\{outcome="(\w+)"\} (\S+)$', text, re.M)
    return {outcome: float(value) for outcome, value in found}


async def abandon_resumes(served, loops: int, times: int) -> None:
    """``loops`` clients at once, each ``times`` over: a ``hello`` resuming from seq
    1, and the connection dropped 30 ms later, before its welcome."""
    resume = {**hello(served, "observer"), "resume": {"epoch": 1, "seq": 1}}

    async def abandon() -> None:
        for _ in range(times):
            ws = await connect(served.url)
            await ws.send(json.dumps(resume))
            await asyncio.sleep(0.03)
            ws.transport.abort()

    await asyncio.gather(*(abandon() for _ in range(loops)))


async def test_a_resume_abandoned_before_its_turn_reads_nothing(serve):
    """Resumes from long ago, each dropped as soon as it was sent: the missed events
    of each were still read, one after another, for nobody, and every table's joins
    waited behind them (found by red-teaming: 16 such loops kept another table's
    ``hello`` waiting 1 to 5 s). A read whose client left before its turn is skipped:
    counted by the server's ``rollbridge_store_reads_total`` (not timed; the
    protocol's side is counted in tests/engine/test_redaction.py)."""
    served = serve("--rate-per-connection", "0", "--rate-per-table", "0", "--log-level",
                   "INFO", "--max-connections-per-address", "0",
                   "--max-connections-per-token", "0")  # fmt: skip
    gm = await joined(served, "gm")
    await rolled(gm, 200)
    await abandon_resumes(served, 60, 10)
    late = await joined(served, "player")
    for ws in (gm, late):
        await ws.close()
    reads = await store_reads(served.port)
    assert reads.get("skipped", 0) > 0 and reads.get("failed", 0) == 0, reads


async def test_serve_stops_with_reads_of_the_log_still_queued(serve):
    """Resumes from long ago, each abandoned as soon as it was sent, leave reads of the
    log queued for the store-reading threads after their clients are gone: on SIGTERM
    ``serve`` waited for every one of them, past its drain timeout (found by
    red-teaming: it did not stop in 18 s). Reads not yet begun are dropped now (counted
    in :func:`test_a_stop_drops_the_reads_not_yet_begun`); here ``serve`` stops, with
    a hang guard of 60 s (a bound of 5 s of the wall clock failed at load)."""
    served = serve("--rate-per-connection", "0", "--rate-per-table", "0", "--drain-timeout",
                   "1", "--log-level", "INFO", "--max-connections-per-address", "0",
                   "--max-connections-per-token", "0")  # fmt: skip
    gm = await joined(served, "gm")
    await rolled(gm, 200)
    await abandon_resumes(served, 60, 20)
    served.process.send_signal(signal.SIGTERM)
    assert await asyncio.to_thread(served.process.wait, 60) == 0


async def test_a_stop_drops_the_reads_not_yet_begun(make_tables, monkeypatch):  # noqa: F811
    """Twenty ``hello``s whose token look-ups queue behind two held on the two reader
    threads: the server's stop ran every queued one before it could end. Counted, not
    timed: the look-ups the store was asked for when the reader threads were shut
    down, and after (a server in this process, on a real port and a real file)."""
    world = await make_tables()
    server = world.server
    gate, looked = threading.Event(), []
    find = world.store.find_token

    def held(table_id: str, token_hash: str) -> Any:
        looked.append(token_hash)
        gate.wait(60)  # a hang guard: set when the stop shuts the reader threads down
        return find(table_id, token_hash)

    monkeypatch.setattr(world.store, "find_token", held)
    clients = [await connect(server.url) for _ in range(20)]
    for ws in clients:
        await ws.send(json.dumps({"type": "hello", "id": "h", "table": "tally",
                                  "token": world.tokens["tally"]["player"]}))  # fmt: skip
    for _ in range(6000):  # a hang guard: each look-up begun or queued, as they arrive
        if len(server._running) == 20 and len(looked) == 2:
            break
        await asyncio.sleep(0.01)
    assert len(server._running) == 20 and len(looked) == 2, (len(server._running), looked)
    reader, at_shutdown = server._reader, []
    shutdown = reader.shutdown

    def shutting(wait: bool = True, *, cancel_futures: bool = False) -> None:
        at_shutdown.append(len(looked))
        # what the stop asked for, before the two held look-ups end (each thread
        # then takes the next queued one, if any is left), then as it asked
        shutdown(wait=False, cancel_futures=cancel_futures)
        gate.set()
        shutdown(wait=wait, cancel_futures=cancel_futures)

    monkeypatch.setattr(reader, "shutdown", shutting)
    await server.stop()
    assert at_shutdown == [2]
    assert len(looked) == 2, len(looked)  # the 18 queued were dropped, not looked up
    for ws in clients:
        await ws.close()


async def test_requests_that_keep_the_loop_busy_take_more_of_the_rate(serve):
    """A player rolling ``999d6x>1`` (every die exploding: ~50 ms of the event loop
    each, refused as too large) from three connections, within the rates: the loop
    every table shares could not keep up, and another client's ``ping`` waited 1.5 s,
    then 14 s and more (found by red-teaming). A request that keeps the loop busy
    now takes one more request from its rates for every 5 ms of its thread's CPU
    time, so the flood is refused ``rate_limited`` though it is sent no faster than
    the plain rate allows (2 a second each, here). Counted, not timed: the refusals
    are what keeps the loop for the others.

    The rate is 2 a second, not the default 20: the charge is CPU time, the bucket
    refills by the wall clock, so a server given less CPU than the rate lets a client
    spend (20 a second: 100 ms of the loop a second per connection, 300 ms for three)
    handles the flood more slowly than the bucket refills and refuses none. On a
    machine at load 10 and more, with 2 cores, it got less; at 2 a second 10 ms a
    second per connection is enough."""
    served = serve("--log-level", "INFO", "--rate-per-connection", "2")
    players = [await joined(served, "player") for _ in range(3)]
    other = await joined(served, "observer")
    stop = asyncio.Event()
    codes: list[collections.Counter[str]] = [collections.Counter() for _ in players]

    async def flood(ws: ClientConnection, k: int) -> None:
        n = 0
        while not stop.is_set():
            roll = {"type": "roll", "id": f"f{k}-{n}", "formula": "999d6x>1"}
            await ws.send(json.dumps(roll))
            n += 1
            await asyncio.sleep(0.5)

    async def drain(ws: ClientConnection, k: int) -> None:
        with contextlib.suppress(Exception):
            while True:
                message = json.loads(await ws.recv())
                codes[k][message.get("code") or message.get("type")] += 1

    tasks = [asyncio.create_task(flood(ws, k)) for k, ws in enumerate(players)]
    tasks += [asyncio.create_task(drain(ws, k)) for k, ws in enumerate(players)]
    for n in range(8):
        await asyncio.sleep(0.5)
        assert (await ask(other, {"type": "ping", "id": f"p{n}"}, 60))["type"] == "pong"
    stop.set()
    for task in tasks:
        task.cancel()
    for ws in (*players, other):
        await ws.close()
    for counted in codes:
        # sent at most 2 a second (each after a 500 ms pause), within the plain rate
        # of 2 a second and its burst of 4: uncharged, every roll was handled
        # (event_too_large) and none refused (0 against 142 at 20 a second on the code
        # before the charge); charged for their time, some are refused before they
        # take the loop
        assert counted["rate_limited"] > 0, codes


async def test_sockets_that_never_finish_their_handshake_are_held_to_the_per_address_limit(serve):
    """One address opening sockets that never finish their request line (a
    slowloris): each held a file descriptor for websockets' 10 s open timeout,
    counted nowhere, so one stranger took the process to its open-file limit: every
    other client was refused and asyncio logged a traceback per refused accept (found
    by red-teaming: 350 such sockets at a limit of 300 files, 3,929 tracebacks). Now
    at most --max-connections-per-address of them from one address are kept; the
    rest are dropped when accepted, and another address is served as ever."""
    served = serve("--log-level", "INFO", "--max-connections-per-address", "20")
    pid = served.process.pid
    base = sockets_of(pid)
    held = []
    for _ in range(200):
        sock = socket.create_connection(("127.0.0.1", served.port), source_address=("127.0.0.3", 0))
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")  # and never the rest
        held.append(sock)
    await asyncio.sleep(1)
    kept = sockets_of(pid) - base
    other = await connect(served.url, local_addr=("127.0.0.2", 0))
    assert (await ask(other, hello(served, "player")))["type"] == "welcome"
    await other.close()
    for sock in held:
        sock.close()
    assert kept <= 20 + 2, kept
    assert "20 still in their opening handshake" in served.log_text()


async def test_a_trusted_proxys_sockets_in_their_handshake_are_not_held_to_it(serve):
    """A reverse proxy named with --trusted-proxy carries every client's handshake
    from its one address: those are not counted as one address's."""
    served = serve("--log-level", "INFO", "--max-connections-per-address", "20",
                   "--trusted-proxy", "127.0.0.3/32")  # fmt: skip
    base = sockets_of(served.process.pid)
    held = []
    for _ in range(40):
        sock = socket.create_connection(("127.0.0.1", served.port), source_address=("127.0.0.3", 0))
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
        held.append(sock)
    await asyncio.sleep(1)
    kept = sockets_of(served.process.pid) - base
    for sock in held:
        sock.close()
    assert kept >= 40, kept
    assert "still in their opening handshake" not in served.log_text()
