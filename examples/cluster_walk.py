"""Three ``rollbridge serve --redis`` processes behind nginx, walked as an operator
would (docs/redis.md, "Several processes, one table"): start them, play a table
through the balancer, restart a process as systemd would, restart Redis under the
three, and read each process's ``/readyz`` and ``/metrics`` at every step.

Run from the repository root, with ``redis-server`` and ``nginx`` on the machine
(Debian: ``apt-get install redis-server nginx``) and rollbridge installed::

    python examples/cluster_walk.py             # each step as it goes, in words
    python examples/cluster_walk.py --json      # one JSON document (the smoke test's)
    python examples/cluster_walk.py --keep      # leave the folder (logs, nginx.conf)

Everything runs on 127.0.0.1 in a temporary folder of its own: one durable
``redis-server`` (``--appendonly yes --appendfsync always``, as docs/redis.md asks),
a table made with ``rollbridge table create --redis``, three processes on ports of
their own (``--no-demo --trusted-proxy 127.0.0.1``, Redis named by
``ROLLBRIDGE_REDIS``), and nginx with docs/redis.md's configuration (hash by table),
listening on plain HTTP. Each process's log is written to its own file in the folder.

The walk, each step checked (the script exits 1 naming the first that did not hold):

1. ``start``: every process answers ``/readyz`` 200.
2. ``play``: a GM and a player join the table through nginx and roll; the process
   nginx hashes the table to holds its lease (``rollbridge_tables_owned`` 1 there,
   0 elsewhere).
3. ``spread``: a player joins another process directly (no balancer) and rolls: the
   change is forwarded to the owner (``rollbridge_forwarded_total{outcome="answered"}``).
4. ``restart``: the owner is stopped (SIGTERM, as ``systemctl restart`` sends) and
   started again on its port; the clients reconnect through nginx, resume, and roll.
5. ``redis``: Redis is stopped: every ``/readyz`` answers 503 and a roll is refused
   ``store_error``; Redis is started again on its folder: every ``/readyz`` answers
   200 again, the roll goes through (sent again with its id), and every
   ``rollbridge_store_failing`` is 0.
6. ``logs``: each process's WARNING and ERROR lines, counted and shown (none is a
   traceback).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

try:  # rollbridge's own dependency: absent, rollbridge is not installed in this Python
    from websockets.asyncio.client import ClientConnection, connect
except ImportError:  # said by main(), as a missing redis-server or nginx is
    ClientConnection = connect = None  # type: ignore[assignment,misc]

#: docs/redis.md's nginx block, for three processes on this machine and plain HTTP.
NGINX_BLOCK = """
map $uri $rollbridge_table {{
    ~^/tables/(?<table>[^/]+)  $table;
    default                    $uri;
}}
upstream rollbridge {{
    hash $rollbridge_table consistent;
    {servers}
}}
server {{
    listen 127.0.0.1:{listen};
    proxy_connect_timeout 2s;
    proxy_http_version 1.1;
    proxy_set_header Upgrade $http_upgrade;
    proxy_set_header Connection "upgrade";
    proxy_set_header Host $host;
    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    proxy_read_timeout 120s;
    location / {{ proxy_pass http://rollbridge; }}
    location = /metrics {{ deny all; }}
}}
"""


class StepFailed(Exception):
    """A step of the walk did not hold: what was expected, and what was seen."""


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_port(port: int, process: subprocess.Popen | None = None, timeout: float = 30) -> None:
    """Wait until something listens on ``port``. :raises StepFailed: it did not."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        if process is not None and process.poll() is not None:
            raise StepFailed(f"the process for port {port} exited ({process.returncode})")
        time.sleep(0.05)
    raise StepFailed(f"nothing listens on port {port} after {timeout:.0f} s")


def http(port: int, path: str) -> tuple[int, str]:
    """``GET path`` of the process (or nginx) on ``port``: its status and body."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read().decode()


def metric(text: str, name: str) -> float:
    """A sample of ``/metrics`` by its name and labels as written (0 when absent)."""
    found = re.search(rf"^{re.escape(name)} (\S+)$", text, re.M)
    return float(found[1]) if found else 0.0


class Redis:
    """A durable ``redis-server`` in ``folder``, stopped and started on it again."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.port = folder, free_port()
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [shutil.which("redis-server") or "redis-server", "--port", str(self.port),
             "--bind", "127.0.0.1", "--dir", str(self.folder), "--appendonly", "yes",
             "--appendfsync", "always", "--save", "", "--logfile", "redis.log"],
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        wait_port(self.port, self.process)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)
        self.process = None


class Serve:
    """One ``rollbridge serve`` on a port of its own, its log in ``folder``."""

    def __init__(self, folder: Path, index: int, env: dict[str, str]) -> None:
        self.log = folder / f"serve-{index}.log"
        self.port, self.env = free_port(), env
        self.process: subprocess.Popen | None = None
        #: The Python that runs it (another's rollbridge: an older release's).
        self.python = sys.executable
        #: More options of ``serve``.
        self.extra: tuple[str, ...] = ()

    def start(self) -> None:
        with self.log.open("a") as log:
            self.process = subprocess.Popen(
                [self.python, "-m", "rollbridge", "serve", "--host", "127.0.0.1",
                 "--port", str(self.port), "--no-demo", "--trusted-proxy", "127.0.0.1",
                 "--log-level", "INFO", *self.extra],
                stdout=log, stderr=subprocess.STDOUT, env=self.env,
            )  # fmt: skip
        wait_port(self.port, self.process)

    def stop(self) -> int | None:
        """SIGTERM, as systemd stops a unit; its exit status."""
        process, self.process = self.process, None
        if process is None:
            return None
        process.send_signal(signal.SIGTERM)
        try:
            return process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            return process.wait(timeout=10)


class Client:
    """A client of the table: its replies by request id, its last event's seq."""

    def __init__(self, port: int, table: str, token: str) -> None:
        self.port, self.table, self.token = port, table, token
        self.ws: ClientConnection | None = None
        self.epoch, self.seq = 0, 0

    async def join(self) -> dict:
        """``hello`` (resuming from the last event seen, after the first)."""
        self.ws = await connect(f"ws://127.0.0.1:{self.port}/tables/{self.table}")
        hello: dict[str, Any] = {"type": "hello", "id": "h", "table": self.table,
                                 "token": self.token}  # fmt: skip
        if self.epoch:
            hello["resume"] = {"epoch": self.epoch, "seq": self.seq}
        welcome = await self.ask(hello)
        if welcome.get("type") != "welcome":
            raise StepFailed(f"hello on port {self.port} was answered {welcome}")
        self.epoch = welcome["epoch"]
        self.seq = max(self.seq, welcome["seq"]) if self.epoch else welcome["seq"]
        return welcome

    async def ask(self, request: dict, timeout: float = 30) -> dict:
        """Send ``request``: its reply (events on the way are noted)."""
        assert self.ws is not None
        await self.ws.send(json.dumps(request))
        async with asyncio.timeout(timeout):
            while True:
                message = json.loads(await self.ws.recv())
                if message.get("type") == "event":
                    self.seq = message["seq"]
                elif message.get("id") == request["id"]:
                    return message

    async def roll(self, ident: str, *, until_done: float = 0) -> dict:
        """A roll; sent again with its id while refused ``store_error`` (for
        ``until_done`` seconds), as a client told to try again does."""
        deadline = time.monotonic() + until_done
        while True:
            reply = await self.ask({"type": "roll", "id": ident, "formula": "1d6"})
            if reply.get("type") == "result" or reply.get("code") != "store_error":
                return reply
            if time.monotonic() >= deadline:
                return reply
            await asyncio.sleep(0.5)

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        self.ws = None


class Walk:
    """The processes, Redis and nginx of the walk, and what each step saw."""

    #: nginx's connections per worker (two a proxied client: the client's and the
    #: process's).
    worker_connections = 64
    #: More options of every ``serve``.
    extra: tuple[str, ...] = ()

    def __init__(self, folder: Path, say: Any) -> None:
        self.folder, self.say = folder, say
        self.redis = Redis(folder)
        self.steps: list[dict[str, Any]] = []
        self.serves: list[Serve] = []
        self.nginx: subprocess.Popen | None = None
        self.listen = 0
        self.table, self.tokens = "", {}

    def check(self, step: str, holds: bool, said: str, **seen: Any) -> None:
        """Record ``step``'s check; :raises StepFailed: it does not hold."""
        self.steps.append({"step": step, "ok": holds, "said": said, **seen})
        self.say(f"[{'ok' if holds else 'FAILED'}] {step}: {said}")
        if not holds:
            raise StepFailed(f"{step}: {said} ({seen})")

    def ready(self) -> list[int]:
        return [http(s.port, "/readyz")[0] for s in self.serves]

    def metrics(self) -> list[str]:
        return [http(s.port, "/metrics")[1] for s in self.serves]

    def owner(self) -> int | None:
        owned = [metric(text, "rollbridge_tables_owned") for text in self.metrics()]
        return owned.index(1.0) if owned.count(1.0) == 1 else None

    def start(self, python: str | None = None) -> None:
        """Redis, the table, the three processes (run by ``python``, else this one)
        and nginx; every ``/readyz`` checked."""
        self.redis.start()
        env = {**os.environ, "ROLLBRIDGE_REDIS": self.redis.url}
        made = subprocess.run(
            [sys.executable, "-m", "rollbridge", "table", "create", "--ruleset", "bandits",
             "--name", "Walk", "--json"],
            capture_output=True, text=True, check=True, env=env, timeout=60,
        )  # fmt: skip
        document = json.loads(made.stdout)
        self.table, self.tokens = document["table"], document["tokens"]
        self.serves = [Serve(self.folder, i, env) for i in range(3)]
        for serve in self.serves:
            serve.python, serve.extra = python or serve.python, self.extra
            serve.start()
        self.listen = free_port()
        servers = " ".join(f"server 127.0.0.1:{s.port} max_fails=0;" for s in self.serves)
        conf = self.folder / "nginx.conf"
        temps = "".join(f"    {k}_temp_path {self.folder / k};\n"
                        for k in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))  # fmt: skip
        conf.write_text(
            f"worker_processes 1;\npid {self.folder / 'nginx.pid'};\n"
            f"error_log {self.folder / 'nginx-error.log'};\n"
            f"events {{ worker_connections {self.worker_connections}; }}\n"
            f"http {{\n    access_log {self.folder / 'nginx-access.log'};\n{temps}"
            + NGINX_BLOCK.format(servers=servers, listen=self.listen)
            + "}\n"
        )
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        self.nginx = subprocess.Popen([nginx, "-c", str(conf), "-g", "daemon off;"],
                                      stderr=subprocess.DEVNULL)  # fmt: skip
        wait_port(self.listen, self.nginx)
        ready = self.ready()
        self.check("start", ready == [200] * 3, f"/readyz of the three: {ready}", ready=ready)

    async def play(self) -> tuple[Client, Client]:
        gm = Client(self.listen, self.table, self.tokens["gm"])
        player = Client(self.listen, self.table, self.tokens["player"])
        await gm.join()
        await player.join()
        reply = await player.roll("p1")
        owner = self.owner()
        self.check("play", reply.get("type") == "result" and owner is not None,
                   f"a roll through nginx: {reply.get('type')}, seq {reply.get('seq')}; "
                   f"the table runs on process {owner}", owner=owner)  # fmt: skip
        return gm, player

    async def spread(self) -> None:
        owner = self.owner()
        assert owner is not None
        other = self.serves[(owner + 1) % 3]
        stray = Client(other.port, self.table, self.tokens["player"])
        await stray.join()
        reply = await stray.roll("s1")
        await stray.close()
        answered = metric(http(other.port, "/metrics")[1],
                          'rollbridge_forwarded_total{outcome="answered"}')  # fmt: skip
        self.check("spread", reply.get("type") == "result" and answered >= 1,
                   f"a roll on another process directly: {reply.get('type')}; forwarded to "
                   f"the owner and answered there: {answered:.0f}", answered=answered)  # fmt: skip

    async def restart(self, clients: tuple[Client, ...]) -> None:
        owner = self.owner()
        assert owner is not None
        code = self.serves[owner].stop()
        self.serves[owner].start()
        for client in clients:
            await client.close()
            await client.join()
        reply = await clients[1].roll("p2", until_done=30)
        ready = self.ready()
        self.check("restart", reply.get("type") == "result" and ready == [200] * 3,
                   f"process {owner} stopped (exit {code}) and started again; the clients "
                   f"resumed through nginx, a roll: {reply.get('type')}; /readyz {ready}",
                   exit=code, ready=ready)  # fmt: skip

    async def redis_restart(self, player: Client) -> None:
        self.redis.stop()
        # /readyz reuses a ping's answer for a tenth of a second (docs/operations.md):
        # polled as a load balancer does, it turns 503 within a few polls
        stopped, deadline = time.monotonic(), time.monotonic() + 5
        while (down := self.ready()) != [503] * 3 and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        noticed = time.monotonic() - stopped
        refused = await player.roll("p3")
        self.check("redis down", down == [503] * 3 and refused.get("code") == "store_error",
                   f"Redis stopped: /readyz {down} after {noticed:.2f} s; a roll: "
                   f"{refused.get('code')}",
                   ready=down, refused=refused.get("code"),
                   noticed_s=round(noticed, 2))  # fmt: skip
        self.redis.start()
        deadline = time.monotonic() + 30
        while (up := self.ready()) != [200] * 3 and time.monotonic() < deadline:
            await asyncio.sleep(0.5)
        reply = await player.roll("p3", until_done=30)
        failing = [metric(t, "rollbridge_store_failing") for t in self.metrics()]
        self.check("redis back", up == [200] * 3 and reply.get("type") == "result"
                   and failing == [0.0] * 3,
                   f"Redis started on its folder: /readyz {up}; the roll sent again: "
                   f"{reply.get('type')}; rollbridge_store_failing {failing}",
                   ready=up, failing=failing)  # fmt: skip

    def logs(self) -> None:
        for index, serve in enumerate(self.serves):
            text = serve.log.read_text(errors="replace") if serve.log.exists() else ""
            lines = [x for x in text.splitlines() if " WARNING " in x or " ERROR " in x]
            self.check(f"log of process {index}", "Traceback" not in text,
                       f"{len(lines)} WARNING/ERROR lines, no traceback",
                       lines=lines)  # fmt: skip

    def stop(self) -> None:
        for serve in self.serves:
            serve.stop()
        if self.nginx is not None and self.nginx.poll() is None:
            self.nginx.terminate()
            self.nginx.wait(timeout=30)
        self.redis.stop()


async def walk(the: Walk) -> None:
    """Run every step of ``the`` walk (each recorded in its steps)."""
    try:
        the.start()
        gm, player = await the.play()
        await the.spread()
        await the.restart((gm, player))
        await the.redis_restart(player)
        for client in (gm, player):
            await client.close()
    finally:
        the.stop()
    the.logs()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument("--keep", action="store_true", help="keep the folder (logs, conf)")
    args = parser.parse_args(argv)
    if connect is None or importlib.util.find_spec("rollbridge") is None:
        print(f"rollbridge is not installed in this Python ({sys.executable}): in the "
              "checkout, pip install -e . (in a virtualenv), then run this script with "
              "that Python", file=sys.stderr)  # fmt: skip
        return 2
    for tool in ("redis-server", "nginx"):
        if shutil.which(tool) is None and not Path(f"/usr/sbin/{tool}").exists():
            print(f"{tool} is not installed (Debian: apt-get install {tool})", file=sys.stderr)
            return 2
    folder = Path(tempfile.mkdtemp(prefix="rollbridge-walk-"))
    say = (lambda line: None) if args.json else print
    the = Walk(folder, say)
    failed = ""
    try:
        asyncio.run(walk(the))
    except (StepFailed, subprocess.CalledProcessError, OSError, TimeoutError) as exc:
        failed = f"{type(exc).__name__}: {exc}"
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    if args.json:
        print(json.dumps({"ok": not failed, "failed": failed, "folder": str(folder),
                          "steps": the.steps}, indent=2))  # fmt: skip
    elif failed:
        print(f"the walk stopped: {failed}" + (f" (logs in {folder})" if args.keep else ""))
    else:
        print("every step held" + (f"; logs in {folder}" if args.keep else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
