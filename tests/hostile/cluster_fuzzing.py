"""The wire-protocol fuzzer (tests/hostile/fuzzing.py) against two ``rollbridge serve
--redis`` processes sharing one real ``redis-server``.

:func:`start_cluster` starts a redis-server of its own (tests/stores/conftest.py's
:class:`RedisServer`: durable, on a free port), makes the tables in it with the CLI,
and starts two ``serve --redis`` processes, A and B. :class:`ClusterWorld` is a
:class:`~tests.hostile.fuzzing.World` whose clients connect to the side the test
chose for each request (:attr:`ClusterWorld.side`): the requests of one table reach
both processes, so that one of them owns the table and the other forwards its changes
and follows its events. The same properties are asserted, on both processes:

- exactly one answer, a result or a documented error (never ``internal``);
- a refused request changes nothing: the GM's ``state`` is the same after it as
  before, and the same on A as on B (each read once both have the same seq);
- no traceback and no ERROR line in either server's log;
- the witness's roll at another table is still answered (on each side in turn).

tests/hostile/test_fuzz_cluster.py runs it; ``ROLLBRIDGE_FUZZ_EXAMPLES`` sets how
many examples (docs/operations.md, "Hostile input").
"""

from __future__ import annotations

import contextlib
import re
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.hostile.fuzzing import (
    Client,
    World,
    documented_codes,
    example_sheets,
    fuzz_env,
    make_tables,
    populated,
    serve,
)
from tests.stores.conftest import RedisServer

#: How long both processes may take to show the same seq of a table (a guard
#: against a table that never converges, not a measured time).
CONVERGE = 30.0


@dataclass(repr=False)
class ClusterWorld(World):
    """Two processes on one Redis; :attr:`side` says which one new clients join."""

    redis: RedisServer | None = None
    #: process B, its port and its log (A is the World's own)
    other: tuple[Any, int, Path] | None = None
    side: int = 0
    other_read: int = 0
    witnesses: dict[int, Client] = field(default_factory=dict)
    #: changes forwarded from one process to the other while a fuzzed request was
    #: checked (the witness's rolls, forwarded too, are not counted)
    fuzz_forwarded: int = 0
    #: the processes fuzzed requests were sent to (0: A, 1: B)
    sides_fuzzed: set[int] = field(default_factory=set)

    def __repr__(self) -> str:
        assert self.other is not None
        return f"ClusterWorld(ports={self.port}, {self.other[1]}; logs={self.log}, {self.other[2]})"

    @property
    def url(self) -> str:
        """The WebSocket URL of the side chosen."""
        assert self.other is not None
        return f"ws://127.0.0.1:{self.port if self.side == 0 else self.other[1]}/"

    def client(self, table: str, role: str, kind: str) -> Client:
        """The joined client of ``table``, ``role`` and ``kind`` on the side chosen."""
        key = (table, role, f"{kind}@{self.side}")
        found = self.clients.get(key)
        if found is None or found.ws.close_code is not None:
            found = self.clients[key] = Client(self, table, role, kind)
        return found

    def state(self, table: str) -> dict[str, Any]:
        """The table as its GM sees it on A, once B shows the same seq; asserts that
        B shows the same table."""
        chosen = self.side
        try:
            deadline = time.monotonic() + CONVERGE
            while True:
                states = []
                for side in (0, 1):
                    self.side = side
                    states.append(super().state(table))
                if states[0]["seq"] == states[1]["seq"]:
                    break
                assert time.monotonic() < deadline, f"A and B differ for good: {states!r}"
                time.sleep(0.02)
        finally:
            self.side = chosen
        assert states[0] == states[1], f"A and B show {table} differently: {states!r}"
        return states[0]

    def check(self, table: str, who: str, message: Any, kind: str) -> dict[str, Any]:
        """:meth:`World.check`, counting the changes forwarded meanwhile."""
        before = sum(self.forwarded().values())
        self.sides_fuzzed.add(self.side)
        try:
            return super().check(table, who, message, kind)
        finally:
            self.fuzz_forwarded += sum(self.forwarded().values()) - before

    def new_log(self) -> str:
        """What both servers logged since the last call."""
        assert self.other is not None
        with self.other[2].open("rb") as source:
            source.seek(self.other_read)
            text = source.read()
        self.other_read += len(text)
        return super().new_log() + text.decode("utf-8", "replace")

    def check_witness(self) -> None:
        """A plain roll at the witness's table is answered on A and on B."""
        chosen = self.side
        try:
            for side in (0, 1):
                self.side = side
                self.witness = self.witnesses.get(side)
                super().check_witness()
                self.witnesses[side] = self.witness  # type: ignore[assignment]
        finally:
            self.side = chosen
            self.witness = None

    def forwarded(self) -> dict[str, int]:
        """``rollbridge_forwarded_total`` of A and B together, by outcome (from their
        ``/metrics``): the changes one process sent to the other."""
        assert self.other is not None
        found: dict[str, int] = {}
        for port in (self.port, self.other[1]):
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as got:
                text = got.read().decode()
            for outcome, count in re.findall(
                r'^rollbridge_forwarded_total\{outcome="([^"]+)"\} (\S+)$', text, re.M
            ):
                found[outcome] = found.get(outcome, 0) + int(float(count))
        return found

    def stop(self) -> None:
        """Close every client, stop both servers and Redis."""
        from tests.conftest import stop_process

        for client in self.witnesses.values():
            with contextlib.suppress(Exception):
                client.close()
        super().stop()
        if self.other is not None:
            stop_process(self.other[0])
        if self.redis is not None:
            self.redis.stop()


def start_cluster(folder: Path, options: tuple[str, ...] = ()) -> ClusterWorld:
    """A redis-server, the tables in it, and two ``serve --redis`` processes
    (``options`` go to both after the fuzzer's own)."""
    redis = RedisServer(folder / "redis").start()
    started: list[Any] = []
    try:
        env = fuzz_env(folder)
        store = ["--redis", redis.url]
        tables, tokens = make_tables(env, store)
        # the fuzzer's clients of both processes count together
        unlimited = ("--max-connections-per-address", "0", *options)
        a, port_a = serve(folder / "serve-a.log", env, store, unlimited)
        started.append(a)
        b, port_b = serve(folder / "serve-b.log", env, store, unlimited)
        started.append(b)
    except BaseException:
        from tests.conftest import stop_process

        for process in started:
            stop_process(process)
        redis.stop()
        raise
    return populated(ClusterWorld(
        a, port_a, folder / "serve-a.log", tables, tokens, example_sheets(), documented_codes(),
        redis=redis, other=(b, port_b, folder / "serve-b.log"),
    ))  # fmt: skip
