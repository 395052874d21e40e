"""A real ``rollbridge serve`` for hostile clients: a subprocess on a free port, its
SQLite file made with the table CLI, its log in a file the tests read (issue 16,
item 8)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import created_table, stop_process


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Served:
    """A running server with one sr2 table and its gm/player/observer tokens."""

    process: subprocess.Popen
    port: int
    table: str
    tokens: dict[str, str]
    log: Path

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/tables/{self.table}"

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def stop(self) -> int:
        """SIGTERM (SIGKILL after 20 s); the exit status."""
        return stop_process(self.process)


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., Served]]:
    """A factory: ``serve("--rate-per-table", "5")`` starts ``rollbridge serve
    --no-demo`` with those options on a fresh file holding one sr2 table; every
    server it started is stopped after the test, and its log must then hold no
    traceback, whatever the test sent."""
    started: list[Served] = []

    def start(*options: str) -> Served:
        folder = tmp_path / f"serve-{len(started)}"
        folder.mkdir()
        db = folder / "hostile.db"
        env = {**os.environ, "ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"}
        created = created_table(db, "sr2", "Hostile", env)
        port = _free_port()
        log = folder / "serve.log"
        with log.open("w") as sink:
            process = subprocess.Popen(
                [sys.executable, "-m", "rollbridge", "serve", "--port", str(port),
                 "--db", str(db), "--no-demo", "--log-level", "DEBUG", *options],
                stdout=sink, stderr=subprocess.STDOUT, env=env,
            )  # fmt: skip
        server = Served(process, port, created["table"], created["tokens"], log)
        started.append(server)
        deadline = time.monotonic() + 20
        while "listening on" not in server.log_text():
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError("server did not start:\n" + server.log_text())
            time.sleep(0.05)
        return server

    yield start
    for server in started:
        server.stop()
    for server in started:  # whatever a test sent, the log holds no traceback
        assert "Traceback" not in server.log_text(), server.log_text()[-4000:]


@pytest.fixture
def served(serve: Callable[..., Served]) -> Served:
    """``rollbridge serve`` with its default limits."""
    return serve()
