"""Real ``rollbridge serve --redis`` processes and real WebSocket clients for the
cluster tests (issue 13, items 2 and 4): no fakes, free ports, waits with timeouts
(never assertions on durations)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

ENV = {**os.environ, "ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"}
#: The lease of the test processes (ms): short, so a takeover comes soon.
LEASE_MS = 1500


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def durable_redis(prefix: str) -> Iterator[str]:
    """A ``redis-server`` on a free port, in a temporary folder (named from
    ``prefix``), durable as docs/redis.md asks (``--appendonly yes --appendfsync
    always``), for the benchmarks: its URL; stopped and its folder removed after.

    :raises SystemExit: ``redis-server`` is not on PATH."""
    import shutil
    import tempfile

    server_bin = shutil.which("redis-server")
    if server_bin is None:
        sys.exit("redis-server is not on PATH")
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    port = free_port()
    server = subprocess.Popen(
        [server_bin, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder),
         "--appendonly", "yes", "--appendfsync", "always", "--save", ""],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait_listening(server, port)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(folder, ignore_errors=True)


def serve_quietly(url: str, *extra: str) -> tuple[subprocess.Popen, int]:
    """``rollbridge serve --redis URL --no-demo`` on a free port, its output thrown
    away (a benchmark's thousands of connections would fill a pipe nobody reads):
    the process and its port, listening."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "rollbridge", "serve", "--port", str(port), "--redis", url,
         "--no-demo", *extra],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV,
    )  # fmt: skip
    wait_listening(process, port)
    return process, port


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rollbridge", *args], capture_output=True,
                          text=True, check=True, timeout=60, env=ENV)  # fmt: skip


def make_table(url: str, ruleset: str = "bandits", settings: dict | None = None) -> dict:
    """A table made by the CLI: ``{"table": id, "tokens": {"gm": …, "player": …, …}}``."""
    args = ["table", "create", "--ruleset", ruleset, "--name", "C", "--redis", url, "--json"]
    if settings:
        args += ["--settings", json.dumps(settings)]
    return json.loads(cli(*args).stdout)


def wait_listening(process: subprocess.Popen, port: int, timeout: float = 30) -> None:
    """Wait until ``process`` listens on ``port``. :raises AssertionError: it exited."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            if process.poll() is not None:
                break
            time.sleep(0.05)
    raise AssertionError("serve did not start: " + (process.stderr.read() or ""))


class Process:
    """``rollbridge serve --redis URL`` on a free port, in a subprocess."""

    def __init__(
        self, url: str, *extra: str, lease_ms: int = LEASE_MS, via_env: bool = False
    ) -> None:
        self.url = url
        self.extra = extra
        #: Name Redis through ``ROLLBRIDGE_REDIS`` instead of ``--redis``.
        self.via_env = via_env
        self.lease_ms = lease_ms
        self.port = free_port()
        self.process: subprocess.Popen | None = None
        self.start()

    def start(self) -> None:
        where = [] if self.via_env else ["--redis", self.url]
        env = {**ENV, "ROLLBRIDGE_REDIS": self.url} if self.via_env else ENV
        self.process = subprocess.Popen(
            [sys.executable, "-m", "rollbridge", "serve", "--port", str(self.port),
             *where, "--no-demo", "--lease-ms", str(self.lease_ms),
             "--log-level", "INFO", *self.extra],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
        )  # fmt: skip
        wait_listening(self.process, self.port)

    def owns(self, table: str) -> bool:
        """Whether this process holds the table's lease (read from Redis)."""
        import redis

        client = redis.Redis.from_url(self.url)
        try:
            owner = client.get(f"rb:{{{table}}}:owner")
        finally:
            client.close()
        return (
            owner is not None
            and self.process is not None
            and owner.decode().split("-")[-2] == str(self.process.pid)
        )

    def subscriptions(self, admin: Any) -> int:
        """How many channels this process is subscribed to, as Redis counts them:
        ``CLIENT LIST``'s connections matched, by their port, to the sockets this
        process holds (Linux's /proc)."""
        assert self.process is not None
        pid = self.process.pid
        inodes = set()
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                target = os.readlink(fd)
                if target.startswith("socket:["):
                    inodes.add(target[len("socket:[") : -1])
        ports = set()
        for table in ("tcp", "tcp6"):
            for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
                fields = line.split()
                if fields[9] in inodes:  # local address, as HEX_IP:HEX_PORT
                    ports.add(int(fields[1].rsplit(":", 1)[1], 16))
        return sum(
            int(client.get("sub", 0)) for client in admin.client_list()
            if int(client["addr"].rsplit(":", 1)[1]) in ports
        )  # fmt: skip

    def signal(self, signum: int) -> None:
        assert self.process is not None
        self.process.send_signal(signum)

    def kill(self) -> None:
        """SIGKILL: no lease given up, nothing flushed."""
        assert self.process is not None
        self.process.kill()
        self.process.wait(timeout=20)
        self.process.stderr.close()
        self.process = None

    def stop(self) -> str:
        if self.process is None:
            return ""
        process, self.process = self.process, None
        if process.poll() is None:
            process.send_signal(signal.SIGCONT)
            process.terminate()
        try:
            _out, err = process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            _out, err = process.communicate(timeout=10)
        return err or ""


class Player:
    """A client of one table on one process: every event it is sent, in order, and
    the replies by request id."""

    def __init__(self, port: int, table: str, token: str) -> None:
        self.port, self.table, self.token = port, table, token
        self.ws: ClientConnection | None = None
        self.events: list[dict] = []
        self.replies: dict[Any, dict] = {}
        self.welcome: dict | None = None
        self.epoch: int | None = None
        self.seq = 0
        self._reader: asyncio.Task | None = None
        self._changed = asyncio.Event()

    async def join(self, resume: bool = False, timeout: float = 30, **hello_fields: Any) -> dict:
        self.ws = await connect(f"ws://127.0.0.1:{self.port}/", open_timeout=timeout)
        hello: dict = {"type": "hello", "id": "h", "table": self.table, "token": self.token,
                       **hello_fields}  # fmt: skip
        if resume and self.epoch is not None:
            hello["resume"] = {"epoch": self.epoch, "seq": self.seq}
        await self.ws.send(json.dumps(hello))
        welcome = json.loads(await asyncio.wait_for(self.ws.recv(), timeout))
        assert welcome["type"] == "welcome", welcome
        self.welcome = welcome
        if not (resume and welcome.get("resume", {}).get("recovered")):
            self.seq = welcome["seq"]  # a snapshot: events from here on
        self.epoch = welcome["epoch"]
        self._reader = asyncio.get_running_loop().create_task(self._read())
        return welcome

    async def _read(self) -> None:
        assert self.ws is not None
        with contextlib.suppress(Exception):
            async for frame in self.ws:
                message = json.loads(frame)
                if message.get("type") == "event":
                    self.events.append(message)
                    self.seq = message["seq"]
                elif "id" in message:
                    self.replies[message["id"]] = message
                self._changed.set()
        self._changed.set()

    async def until(self, check: Any, timeout: float = 30, what: str = "") -> None:
        deadline = time.monotonic() + timeout
        while not check():
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out waiting for {what or check}")
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), min(left, 0.5))

    async def ask(self, request: dict, timeout: float = 30) -> dict:
        """Send a request; its reply (a result or an error)."""
        assert self.ws is not None
        self.replies.pop(request["id"], None)
        await self.ws.send(json.dumps(request))
        await self.until(lambda: request["id"] in self.replies, timeout, f"reply {request}")
        return self.replies[request["id"]]

    async def ask_until_done(self, request: dict, timeout: float = 60) -> dict:
        """Send a request again (same id) until it is not refused with store_error
        or rate_limited: what a client does when the server says "try again"."""
        deadline = time.monotonic() + timeout
        while True:
            reply = await self.ask(request, max(1.0, deadline - time.monotonic()))
            code = reply.get("code")
            if reply.get("type") == "result" or code not in ("store_error", "rate_limited"):
                return reply
            if time.monotonic() > deadline:
                raise AssertionError(f"still refused: {reply}")
            await asyncio.sleep(reply.get("details", {}).get("retry_after", 0.2))

    def seqs(self) -> list[int]:
        return [e["seq"] for e in self.events]

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        if self._reader is not None:
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(self._reader, 5)
        self.ws = None


class Cluster:
    """``count`` processes on one Redis and one table made by the CLI: :meth:`run`
    plays a coroutine against them, then stops every process (whatever happened) and
    checks that none logged a traceback; :attr:`logs` holds each one's stderr."""

    def __init__(
        self, url: str, count: int, settings: dict | None = None, extra: tuple[str, ...] = ()
    ) -> None:
        made = make_table(url, settings=settings)
        self.url = url
        self.table: str = made["table"]
        self.tokens: dict[str, str] = made["tokens"]
        # every other process finds Redis through the environment variable
        self.processes = [Process(url, *extra, via_env=i % 2 == 1) for i in range(count)]
        self.logs: list[str] = []

    def player(self, index: int, role: str = "gm") -> Player:
        """A client of the table on process ``index`` (not joined yet)."""
        return Player(self.processes[index].port, self.table, self.tokens[role])

    async def joined(self, *indexes: int, role: str = "gm") -> list[Player]:
        """A joined client on each process named."""
        players = [self.player(i, role) for i in indexes]
        for player in players:
            await player.join()
        return players

    def owner(self) -> Process:
        """The process holding the table's lease."""
        return next(p for p in self.processes if p.owns(self.table))

    def subscribers(self, admin: Any) -> int:
        """How many connections are subscribed to the table's event channel
        (``PUBSUB NUMSUB``; ``admin``: a redis-py client of the same Redis)."""
        channel = f"rb:{{{self.table}}}:events"
        return int(dict(admin.pubsub_numsub(channel))[channel.encode()])

    def run(self, play: Any) -> str:
        """Run ``play()``; stop every process; every log, joined."""
        try:
            asyncio.run(play())
        finally:
            self.logs = [p.stop() for p in self.processes]
        errors = "".join(self.logs)
        assert "Traceback" not in errors, errors
        return errors


class Proxy:
    """A TCP proxy in front of a Redis server. :meth:`black_hole_next_subscriber` makes
    the next connection that sends SUBSCRIBE go silent both ways — bytes are dropped,
    its sockets stay open, nobody is told: a black-holed connection."""

    def __init__(self, upstream_port: int) -> None:
        import threading

        self.upstream_port = upstream_port
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.lock = threading.Lock()
        self.armed = 0
        #: Connections that subscribed, and those black-holed.
        self.subscribers = 0
        self.holed = 0
        self.sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def switch(self, port: int) -> None:
        """Send every new connection to the Redis on ``port`` and cut the open ones —
        a stand-in for a failover by Sentinel, a virtual IP or DNS: the processes
        reconnect to the address they know and reach the promoted server."""
        with self.lock:
            self.upstream_port = port
            cut, self.sockets = self.sockets, []
        for sock in cut:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                sock.close()

    def black_hole_next_subscriber(self) -> None:
        with self.lock:
            self.armed += 1

    def _accept(self) -> None:
        import threading

        while True:
            try:
                client, _ = self.listener.accept()
                upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
            except OSError:
                return
            with self.lock:
                self.sockets += [client, upstream]
            state = {"hole": False}
            for args in ((client, upstream, True), (upstream, client, False)):
                threading.Thread(target=self._pump, args=(*args, state), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, outbound: bool, state: dict) -> None:
        with contextlib.suppress(OSError):
            while data := src.recv(65536):
                if outbound and b"SUBSCRIBE" in data and not state.get("subscribed"):
                    with self.lock:
                        state["subscribed"] = True
                        self.subscribers += 1
                        if self.armed:
                            self.armed -= 1
                            self.holed += 1
                            state["hole"] = True
                if not state["hole"]:
                    dst.sendall(data)
        for sock in (src, dst):
            with contextlib.suppress(OSError):
                sock.close()

    def close(self) -> None:
        for sock in [self.listener, *self.sockets]:
            with contextlib.suppress(OSError):
                sock.close()


#: What :func:`run_by_a_seen_from_b` plays: ``(a, b, on_a, on_b, made)``.
TwoPlay = Callable[["Process", "Process", "Player", "Player", dict], Awaitable[None]]


def run_by_a_seen_from_b(url: str, play: TwoPlay, *, lease_ms: int = LEASE_MS) -> str:
    """A table made on the Redis at ``url``; two processes A and B (leases of
    ``lease_ms``), a GM's client of the table on each; A runs it (a roll from A's
    client) and B has seen it run there (a roll from B's, forwarded to A); then
    ``play(a, b, on_a, on_b, made)``. The clients are closed and both processes
    stopped after: their logs, joined, holding no traceback."""
    made = make_table(url)
    a, b = Process(url, lease_ms=lease_ms), Process(url, lease_ms=lease_ms)

    async def run() -> None:
        on_a = Player(a.port, made["table"], made["tokens"]["gm"])
        on_b = Player(b.port, made["table"], made["tokens"]["gm"])
        await on_a.join()
        await on_b.join()
        await on_a.ask_until_done({"type": "roll", "id": "own", "formula": "1d6"})
        await on_b.ask_until_done({"type": "roll", "id": "ask", "formula": "1d6"})
        assert a.owns(made["table"])
        await play(a, b, on_a, on_b, made)
        for player in (on_a, on_b):
            await player.close()

    try:
        asyncio.run(run())
    finally:
        logs = [a.stop(), b.stop()]
    said = "".join(logs)
    assert "Traceback" not in said, said
    return said
