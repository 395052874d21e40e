"""docs/operations.md's nginx example, run as written with a real nginx in front of
a server started as it says (``--trusted-proxy 127.0.0.1``): players join through
it, the per-address limit counts each player's address (not nginx's), ``/healthz``
answers and ``/metrics`` is refused to another address. Skipped where nginx is not
installed (``.ci/run`` installs Debian's nginx)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import shutil
import socket
import subprocess
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from rollbridge.server import Server
from rollbridge.server.addresses import parse_network
from rollbridge.server.limits import Limits
from rollbridge.stores.sqlite import SQLiteStore
from tests.server.conftest import make_host, seed_tables

NGINX = shutil.which("nginx") or next(
    (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if Path(p).is_file()), None
)
pytestmark = pytest.mark.skipif(NGINX is None, reason="nginx is not installed")
DOCS = Path(__file__).resolve().parents[2] / "docs" / "operations.md"


def documented_block() -> str:
    """The nginx block of docs/operations.md's "An nginx example", as written."""
    text = DOCS.read_text(encoding="utf-8")
    start = text.index("**An nginx example.**")
    match = re.search(r"```nginx\n(.*?)```", text[start:], re.S)
    assert match is not None
    return match.group(1)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wrap(folder: Path, block: str) -> Path:
    """An nginx.conf holding ``block`` in its ``http`` block, with every file nginx
    writes in ``folder`` (so that it runs as any user, beside any other nginx)."""
    temp = "\n".join(
        f"    {kind}_temp_path {folder / kind};" for kind in ("client_body", "proxy",
                                                          "fastcgi", "uwsgi", "scgi")
    )  # fmt: skip
    conf = folder / "nginx.conf"
    conf.write_text(
        f"worker_processes 1;\npid {folder / 'nginx.pid'};\n"
        f"error_log {folder / 'error.log'} info;\nevents {{ worker_connections 64; }}\n"
        f"http {{\n    access_log {folder / 'access.log'};\n{temp}\n{block}}}\n",
        encoding="utf-8",
    )
    return conf


def nginx_conf(folder: Path, server_port: int, listen: int) -> Path:
    block = documented_block()
    assert "127.0.0.1:8765" in block and "listen 127.0.0.1:8080;" in block
    block = block.replace("127.0.0.1:8765", f"127.0.0.1:{server_port}")
    return wrap(folder, block.replace("listen 127.0.0.1:8080;", f"listen 127.0.0.1:{listen};"))


def get(url: str, source: str = "127.0.0.1") -> tuple[int, str]:
    """A GET from the address ``source`` (a loopback address of this machine)."""
    host, port = url.split("/")[2].split(":")
    with socket.create_connection((host, int(port)), source_address=(source, 0)) as sock:
        path = "/" + url.split("/", 3)[3]
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), body.decode("utf-8", "replace")


async def wait_listening(port: int, process: subprocess.Popen) -> None:
    """Until nginx accepts on ``port`` (a readiness wait: it fails only if nginx exits)."""
    while True:
        assert process.poll() is None, "nginx exited"
        try:
            _reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.05)
            continue
        writer.close()
        await writer.wait_closed()
        return


async def join(port: int, source: str, token: str) -> dict:
    """A player's connection through nginx from ``source``; its first answer (or
    the close it got instead)."""
    ws = await connect(f"ws://127.0.0.1:{port}/tables/sr2", local_addr=(source, 0))
    try:
        await ws.send(json.dumps({"type": "hello", "id": 1, "table": "sr2", "token": token}))
        answer = json.loads(await ws.recv())
    except ConnectionClosed as closed:
        return {"closed": closed.rcvd.code if closed.rcvd else None,
                "reason": closed.rcvd.reason if closed.rcvd else ""}  # fmt: skip
    answer["ws"] = ws
    return answer


async def test_the_documented_nginx_block_counts_each_player(tmp_path, tally):
    host = make_host(tally)
    path = tmp_path / "rollbridge.db"
    with SQLiteStore(path) as seed:
        tokens = seed_tables(seed, host)
    limits = Limits(trusted_proxies=(parse_network("127.0.0.1"),), per_address=2,
                    rate_per_connection=None, rate_per_table=None, per_token=None)  # fmt: skip
    server = Server(SQLiteStore(path), host, port=0, limits=limits)
    await server.start()
    listen = free_port()
    conf = nginx_conf(tmp_path, server.port, listen)
    nginx = subprocess.Popen([NGINX, "-c", str(conf), "-g", "daemon off;"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    opened = []
    try:
        await wait_listening(listen, nginx)
        player = tokens["sr2"]["player"]
        for source in ("127.0.0.20", "127.0.0.20", "127.0.0.21", "127.0.0.21"):
            answer = await join(listen, source, player)
            assert answer["type"] == "welcome", answer
            opened.append(answer["ws"])
        # a third from one player's address is refused; the other player's are theirs
        refused = await join(listen, "127.0.0.20", player)
        assert refused.get("closed") == 1013, refused
        assert refused["reason"] == "too many connections from this address"
        # a roll reaches every player through the proxy
        await opened[0].send(json.dumps({"type": "roll", "id": "r", "formula": "2d6"}))
        for ws in opened:
            while (event := json.loads(await ws.recv())).get("type") != "event":
                pass
            assert event["kind"] == "roll"
        base = f"http://127.0.0.1:{listen}"
        assert await asyncio.to_thread(get, base + "/healthz", "127.0.0.30") == (200, "ok\n")
        status, body = await asyncio.to_thread(get, base + "/metrics")
        assert status == 200 and "rollbridge_connections 4.0" in body
        status, _ = await asyncio.to_thread(get, base + "/metrics", "127.0.0.30")
        assert status == 403
        status, _ = await asyncio.to_thread(get, base + "/admin/tables", "127.0.0.30")
        assert status == 403
    finally:
        for ws in opened:
            await ws.close()
        nginx.terminate()
        nginx.wait()
        await server.stop()


def test_the_documented_balancer_is_a_valid_nginx_configuration(tmp_path):
    """docs/redis.md's nginx example for several processes (its TLS lines aside, which
    need a certificate): ``nginx -t`` takes it."""
    text = (DOCS.parent / "redis.md").read_text(encoding="utf-8")
    start = text.index("**One port per process, behind a load balancer**")
    match = re.search(r"```nginx\n(.*?)```", text[start:], re.S)
    assert match is not None
    block = match.group(1).replace("listen 443 ssl;", f"listen 127.0.0.1:{free_port()};")
    conf = wrap(tmp_path, block)
    checked = subprocess.run([NGINX, "-t", "-c", str(conf)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr


def raw(port: int, request: bytes) -> tuple[int, bytes]:
    """Send ``request`` as it is; the answer's status and body, read to its
    Content-Length as an HTTP client does (0: the connection closed unanswered)."""
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.settimeout(60)  # a hang fails the test rather than the run
        sock.sendall(request)
        data = b""
        with contextlib.suppress(ConnectionResetError):
            while b"\r\n\r\n" not in data and (chunk := sock.recv(65536)):
                data += chunk
            if not data:
                return 0, b""
            head, _, body = data.partition(b"\r\n\r\n")
            length = re.search(rb"(?im)^content-length: *(\d+)", head)
            while length is not None and len(body) < int(length[1]):
                chunk = sock.recv(65536)
                if not chunk:
                    break
                body += chunk
    return int(head.split()[1]), body


BODY_POST = (
    b"POST /admin/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/"
    b"x-www-form-urlencoded\r\nContent-Length: 20\r\n\r\nruleset=sr2&name=abc"
)


async def test_a_request_with_a_body_is_answered_and_takes_no_process_out_of_nginx(tmp_path, tally):
    """websockets reads no request bodies: a POST with one was closed without a word,
    which nginx counts as the process failing. Two such requests, from anyone, took
    both processes of a balancer out of its rotation (``no live upstreams``, 502 for
    every player). Now each is answered 400, saying to use the query string."""
    host = make_host(tally)
    servers = []
    for index in range(2):
        path = tmp_path / f"rollbridge-{index}.db"
        with SQLiteStore(path) as seed:
            seed_tables(seed, host)
        server = Server(SQLiteStore(path), host, port=0, limits=Limits())
        await server.start()
        servers.append(server)
    chunked = (b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
               b"3\r\nabc\r\n0\r\n\r\n")  # fmt: skip
    for request in (BODY_POST, chunked):  # the server itself answers
        status, body = await asyncio.to_thread(raw, servers[0].port, request)
        assert status == 400, body
        answer = json.loads(body)
        assert answer["code"] == "invalid_request"
        assert answer["details"] == {"reason": "request_body"}
        assert "query string" in answer["message"]
    status, body = await asyncio.to_thread(raw, servers[0].port, b"BREW\r\n\r\n")
    assert status == 400 and json.loads(body)["details"] == {"reason": "invalid_http"}
    listen = free_port()
    upstream = " ".join(f"server 127.0.0.1:{s.port};" for s in servers)
    conf = wrap(
        tmp_path,
        f"""    upstream rollbridge {{ {upstream} }}
    server {{
        listen 127.0.0.1:{listen};
        location / {{ proxy_pass http://rollbridge; proxy_http_version 1.1; }}
    }}
""",
    )
    nginx = subprocess.Popen([NGINX, "-c", str(conf), "-g", "daemon off;"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        await wait_listening(listen, nginx)
        for _ in range(4):  # round robin: each process gets two
            status, _ = await asyncio.to_thread(raw, listen, BODY_POST)
            assert status == 400
        assert await asyncio.to_thread(get, f"http://127.0.0.1:{listen}/healthz") == (200, "ok\n")
        error_log = (tmp_path / "error.log").read_text()
        assert "upstream server temporarily disabled" not in error_log
    finally:
        nginx.terminate()
        nginx.wait()
        for server in servers:
            await server.stop()
