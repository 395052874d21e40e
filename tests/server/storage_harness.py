"""A real ``rollbridge serve`` whose storage fails under it, and seats at its table.

:class:`Serve` runs ``rollbridge serve`` in a subprocess on a free port, on a SQLite
file (``--db``, optionally under a file-size limit: ``RLIMIT_FSIZE`` set in the child,
where CPython ignores ``SIGXFSZ``, so a write past it fails with ``EFBIG`` as on a full
disk) or on a Redis (``--redis``), logging JSON lines to a file. :class:`Seat` is a
client at its table that reads every frame in the background: the events it was
shown, the replies by id. Every wait has a timeout; :meth:`Serve.stop` ends the
process (SIGTERM, then SIGKILL).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from tests.conftest import stop_process

ENV = {**os.environ, "ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def stored_seqs(store: Any, table: str) -> list[int]:
    """The seq of every event ``store`` holds for ``table`` (read after the server
    stopped, or beside it); the store is closed."""
    try:
        return [event.seq for event in store.events_after(table, 0) or []]
    finally:
        store.close()


def make_table(*where: str) -> tuple[str, dict[str, str]]:
    """An sr2 table made by the CLI on ``--db FILE`` or ``--redis URL``: its id and
    its tokens by role."""
    made = subprocess.run(
        [sys.executable, "-m", "rollbridge", "table", "create", "--ruleset", "sr2",
         "--name", "Game night", "--json", *where],
        capture_output=True, text=True, check=True, env=ENV, timeout=60,
    )  # fmt: skip
    created = json.loads(made.stdout)
    return created["table"], created["tokens"]


class Serve:
    """``rollbridge serve`` on ``where`` (``--db FILE`` or ``--redis URL``).

    :param file_size: bytes past which the process may not write to a file.
    """

    def __init__(self, log: Path, *where: str, file_size: int | None = None) -> None:
        self.port = free_port()
        self.log = log

        def limit() -> None:  # in the child, before exec
            if file_size is not None:
                resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, resource.RLIM_INFINITY))

        with log.open("a") as sink:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "rollbridge", "serve", "--port", str(self.port),
                 "--no-demo", "--log-format", "json", "--rate-per-connection", "0",
                 "--rate-per-table", "0", *where],
                stdout=subprocess.DEVNULL, stderr=sink, env=ENV, preexec_fn=limit,
            )  # fmt: skip
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise AssertionError("serve did not start:\n" + log.read_text()) from None
                time.sleep(0.05)

    def lift_file_size_limit(self) -> None:
        """The disk has room again (the running process may write past any size)."""
        unlimited = (resource.RLIM_INFINITY, resource.RLIM_INFINITY)
        resource.prlimit(self.process.pid, resource.RLIMIT_FSIZE, unlimited)

    def metric(self, name: str) -> float:
        """One unlabelled sample of ``/metrics``."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=10) as got:
            text = got.read().decode()
        (value,) = [line.split()[1] for line in text.splitlines() if line.split()[:1] == [name]]
        return float(value)

    def lines(self) -> list[dict[str, Any]]:
        """The log's JSON lines so far."""
        found = []
        for line in self.log.read_text(errors="replace").splitlines():
            with contextlib.suppress(ValueError):
                found.append(json.loads(line))
        return found

    def stop(self) -> int | None:
        """SIGTERM (SIGKILL after 20 s); the exit status."""
        return stop_process(self.process)


class Seat:
    """A client at the table: every event shown to it, every reply by id."""

    def __init__(self, connection: ClientConnection) -> None:
        self.connection = connection
        self.events: list[dict[str, Any]] = []
        self.replies: dict[str, dict[str, Any]] = {}
        self._arrived = asyncio.Event()
        self._count = 0
        self._reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def take(cls, port: int, table: str, token: str) -> tuple[Seat, dict[str, Any]]:
        seat = cls(await connect(f"ws://127.0.0.1:{port}/", max_size=2**22))
        welcome = await seat.ask({"type": "hello", "table": table, "token": token})
        assert welcome["type"] == "welcome", welcome
        return seat, welcome

    async def _read(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for frame in self.connection:
                message = json.loads(frame)
                if message.get("type") == "event":
                    self.events.append(message)
                else:
                    self.replies[message.get("id")] = message
                self._arrived.set()
        self._arrived.set()

    async def ask(self, message: dict[str, Any], timeout: float = 30) -> dict[str, Any]:
        """Send ``message`` (an id of its own added) and wait for its reply."""
        self._count += 1
        request_id = f"{id(self)}-{self._count}"
        await self.connection.send(json.dumps({**message, "id": request_id}))

        async def reply() -> dict[str, Any]:
            while request_id not in self.replies:
                assert not self._reader.done(), "the connection closed before the reply"
                self._arrived.clear()
                await self._arrived.wait()
            return self.replies.pop(request_id)

        return await asyncio.wait_for(reply(), timeout)

    async def quiet(self, seconds: float = 0.3) -> None:
        """Let the frames under way arrive."""
        await asyncio.sleep(seconds)

    async def close(self) -> None:
        await self.connection.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._reader, 5)
