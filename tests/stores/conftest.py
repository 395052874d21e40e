"""A real ``redis-server`` for the store tests (issue 13, item 4): never a fake.

:class:`RedisServer` starts Debian's ``/usr/bin/redis-server`` on a free port of
127.0.0.1, in a temporary folder, with ``--appendonly yes --appendfsync always
--save ""`` (durable at every acknowledgement, no RDB snapshots), and stops it.
``redis_server`` is one server for the whole session (each test uses its own key
prefix, see ``redis_url``/``redis_prefix``); tests that stop, kill or misconfigure
a server start their own with ``redis_factory``. Every server is stopped by a
finaliser, even when a test fails; without ``redis-server`` the tests skip.
"""

from __future__ import annotations

import itertools
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"
#: At most this many servers run at once (the machine is shared).
MAX_SERVERS = 4
_prefixes = itertools.count(1)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class RedisServer:
    """One ``redis-server`` process in its own folder; :meth:`start` again after
    :meth:`stop` or :meth:`kill` restarts it on the same folder (and AOF)."""

    def __init__(self, folder: Path, *extra: str) -> None:
        self.folder = folder
        self.extra = extra
        self.port = _free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        assert self.process is None, "already running"
        self.folder.mkdir(parents=True, exist_ok=True)
        command = [
            REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1",
            "--dir", str(self.folder), "--appendonly", "yes", "--appendfsync", "always",
            "--save", "", "--protected-mode", "yes", "--daemonize", "no",
            "--logfile", str(self.folder / "redis.log"), *self.extra,
        ]  # fmt: skip
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                log = (self.folder / "redis.log").read_text(errors="replace")
                self.process = None
                raise RuntimeError(f"redis-server exited at start:\n{log}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(64).startswith(b"+PONG"):
                        return self
            except OSError:
                pass
            time.sleep(0.02)
        self.stop()
        raise RuntimeError("redis-server did not answer within 10 s")

    def _end(self, sig: int) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        # Redis refuses a SIGTERM that comes while it writes its first AOF (a replica
        # just promoted does: "Writing initial AOF, can't exit") and goes on serving;
        # the signal is sent again until it exits, as an operator would, not waited
        # out for 10 s.
        deadline = time.monotonic() + 10
        while process.poll() is None and time.monotonic() < deadline:
            process.send_signal(sig)
            try:
                process.wait(timeout=0.25)
            except subprocess.TimeoutExpired:
                continue
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)

    def stop(self) -> None:
        """SIGTERM: Redis finishes (and fsyncs) and exits."""
        self._end(signal.SIGTERM)

    def kill(self) -> None:
        """SIGKILL: no goodbye; only what was fsynced survives."""
        self._end(signal.SIGKILL)


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """One durable redis-server for the session's tests (distinct key prefixes)."""
    if not Path(REDIS_SERVER).exists():
        pytest.skip("redis-server is not installed (Debian: apt-get install redis-server)")
    server = RedisServer(tmp_path_factory.mktemp("redis")).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def redis_prefix() -> str:
    """A key prefix of this test's own on the shared server."""
    return f"rbt{next(_prefixes)}:"


@pytest.fixture
def redis_factory(tmp_path: Path) -> Iterator[Any]:
    """Start servers of the test's own (``redis_factory(*extra_args)``), stopped after."""
    if not Path(REDIS_SERVER).exists():
        pytest.skip("redis-server is not installed (Debian: apt-get install redis-server)")
    started: list[RedisServer] = []

    def make(*extra: str) -> RedisServer:
        assert len(started) < MAX_SERVERS, "too many redis-server processes for one test"
        server = RedisServer(tmp_path / f"redis{len(started)}", *extra)
        started.append(server)
        return server.start()

    try:
        yield make
    finally:
        for server in started:
            server.stop()
