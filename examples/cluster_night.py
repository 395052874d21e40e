"""An operator's night with three ``rollbridge serve --redis`` processes behind nginx
(docs/operations.md, "An operator's night, measured"): tables played under a bounded
load while each process is restarted in turn (SIGTERM, as ``systemctl restart``
sends) and Redis is restarted under them; what the players met, and what each
process's ``/metrics`` and log say after.

Run from the repository root, with ``redis-server`` and ``nginx`` on the machine and
rollbridge installed (as examples/cluster_walk.py, whose processes it reuses)::

    python examples/cluster_night.py                    # 30 tables of 6 clients
    python examples/cluster_night.py --tables 5 --json  # smaller, one JSON document

Each table has one GM and five players, each a WebSocket through nginx; every
``--every`` seconds one of a table's clients rolls (in turn), a roll refused
``store_error`` or cut off by a restart being sent again with its id (after a
reconnect that resumes from the last event seen) until it is answered, as a client
told to try again does. Phases: ``steady``, ``rolling restart`` (each process
stopped and started again on its port, the next once every ``/readyz`` says 200),
``redis restart`` (stopped, 3 s, started on its folder), ``after``. Checked at the
end: every roll answered once, each table's seq the count of its rolls, no
traceback in any log; reported: each phase's rolls, their time to an answer (the
re-sends included) and the refusals by code, each process's ``forwarded`` counts and
``rollbridge_store_failing``, the WARNING and ERROR lines by their first words.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from cluster_walk import Walk, connect, metric

#: Seconds a roll is sent again for (after that the night failed).
ROLL_PATIENCE = 60.0


class Seat:
    """One client of one table through nginx: a reader task that notes events and
    hands replies to their waiters; joined again (resuming) when cut off."""

    def __init__(self, port: int, table: str, token: str) -> None:
        self.port, self.table, self.token = port, table, token
        self.ws: Any = None
        self.epoch = self.seq = 0
        self.waiting: dict[str, asyncio.Future[dict]] = {}
        self.reader: asyncio.Task[None] | None = None
        self.joins = 0

    async def join(self) -> None:
        """Connect and ``hello`` (resuming from the last event after the first)."""
        self.ws = await connect(f"ws://127.0.0.1:{self.port}/tables/{self.table}")
        hello: dict[str, Any] = {"type": "hello", "id": "h", "table": self.table,
                                 "token": self.token}  # fmt: skip
        if self.epoch:
            hello["resume"] = {"epoch": self.epoch, "seq": self.seq}
        await self.ws.send(json.dumps(hello))
        while True:
            message = json.loads(await self.ws.recv())
            if message.get("id") == "h":
                break
        if message.get("type") != "welcome":
            await self.close()
            raise ConnectionError(f"hello answered {message}")
        self.epoch, self.seq = message["epoch"], max(self.seq, message["seq"])
        self.joins += 1
        self.reader = asyncio.get_running_loop().create_task(self._read(self.ws))

    async def _read(self, ws: Any) -> None:
        with contextlib.suppress(Exception):
            async for raw in ws:
                message = json.loads(raw)
                if message.get("type") == "event":
                    self.seq = max(self.seq, message["seq"])
                waiter = self.waiting.pop(str(message.get("id")), None)
                if waiter is not None and not waiter.done():
                    waiter.set_result(message)
        for waiter in self.waiting.values():
            if not waiter.done():
                waiter.set_result({"type": "cut off"})
        self.waiting.clear()

    async def ask(self, request: dict, timeout: float = 20) -> dict:
        """``request``'s reply. :raises ConnectionError: cut off meanwhile."""
        if self.ws is None or self.reader is None or self.reader.done():
            await self.close()
            await self.join()
        future: asyncio.Future[dict] = asyncio.get_running_loop().create_future()
        self.waiting[request["id"]] = future
        await self.ws.send(json.dumps(request))
        reply = await asyncio.wait_for(future, timeout)
        if reply.get("type") == "cut off":
            raise ConnectionError("cut off")
        return reply

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        if self.reader is not None:
            with contextlib.suppress(BaseException):
                await self.reader
        self.ws = self.reader = None


class Night:
    """The tables, their seats, and what the players met, by phase."""

    def __init__(self, the: Walk, tables: int, every: float) -> None:
        self.the, self.every = the, every
        self.count = tables
        self.seats: dict[str, list[Seat]] = {}
        self.phase = "steady"
        self.rolls: dict[str, list[float]] = collections.defaultdict(list)
        self.refused: dict[str, collections.Counter[str]] = collections.defaultdict(
            collections.Counter
        )
        self.acked: collections.Counter[str] = collections.Counter()
        self.failed: list[str] = []
        self.running = True

    def make_tables(self, env: dict[str, str] | None = None) -> None:
        """The tables (in the walk's Redis, unless ``env`` names another store)."""
        env = env or {**os.environ, "ROLLBRIDGE_REDIS": self.the.redis.url}
        for n in range(self.count):
            made = subprocess.run(
                [sys.executable, "-m", "rollbridge", "table", "create", "--ruleset",
                 "bandits", "--name", f"Night {n}", "--json"],
                capture_output=True, text=True, check=True, env=env, timeout=60,
            )  # fmt: skip
            document = json.loads(made.stdout)
            tokens = document["tokens"]
            self.seats[document["table"]] = [
                Seat(self.the.listen, document["table"], tokens["gm" if i == 0 else "player"])
                for i in range(6)
            ]

    async def join_all(self) -> None:
        for seats in self.seats.values():
            for seat in seats:
                await seat.join()

    async def play(self, table: str, offset: float) -> None:
        """One roll every ``every`` seconds at ``table``, its seats in turn."""
        await asyncio.sleep(offset)
        n = 0
        while self.running:
            seat = self.seats[table][n % 6]
            n += 1
            started = time.monotonic()
            await self.roll(seat, f"{table}-{n}", started)
            await asyncio.sleep(max(0.0, self.every - (time.monotonic() - started)))

    async def roll(self, seat: Seat, ident: str, started: float) -> None:
        phase = self.phase  # counted in the phase it began in
        while time.monotonic() - started < ROLL_PATIENCE:
            try:
                reply = await seat.ask({"type": "roll", "id": ident, "formula": "1d6"})
            except Exception as exc:  # cut off: websockets' ConnectionClosed, a timeout
                self.refused[phase][f"cut off ({type(exc).__name__})"] += 1
                await seat.close()
                await asyncio.sleep(0.5)
                continue
            if reply.get("type") == "result":
                self.rolls[phase].append(time.monotonic() - started)
                self.acked[seat.table] += 1
                return
            self.refused[phase][str(reply.get("code"))] += 1
            await asyncio.sleep(0.5)
        self.failed.append(ident)

    def start(self) -> list[asyncio.Task[None]]:
        """Every table's play, their first rolls spread over ``every`` seconds."""
        return [
            asyncio.get_running_loop().create_task(self.play(t, i * self.every / self.count))
            for i, t in enumerate(self.seats)
        ]

    async def until_ready(self, timeout: float = 60) -> list[int]:
        deadline = time.monotonic() + timeout
        while (ready := self.the.ready()) != [200] * 3 and time.monotonic() < deadline:
            await asyncio.sleep(0.5)
        return ready

    async def night(self, steady: float) -> dict[str, Any]:
        """The phases; what each process said after."""
        the = self.the
        players = self.start()
        restarts = []
        try:
            await asyncio.sleep(steady)
            self.phase = "rolling restart"
            for index, serve in enumerate(the.serves):
                began = time.monotonic()
                code = await asyncio.to_thread(serve.stop)
                stopped = time.monotonic()
                serve.python = sys.executable  # an upgrade: this checkout's rollbridge
                await asyncio.to_thread(serve.start)
                ready = await self.until_ready()
                restarts.append({"process": index, "exit": code, "ready": ready,
                                 "stop_s": round(stopped - began, 2),
                                 "start_s": round(time.monotonic() - stopped, 2)})  # fmt: skip
                await asyncio.sleep(5)
            self.phase = "redis restart"
            await asyncio.to_thread(the.redis.stop)
            await asyncio.sleep(3)
            await asyncio.to_thread(the.redis.start)
            ready = await self.until_ready()
            restarts.append({"redis": True, "ready": ready})
            await asyncio.sleep(5)
            self.phase = "after"
            await asyncio.sleep(steady / 2)
        finally:
            self.running = False
            await asyncio.gather(*players, return_exceptions=True)
        return {"restarts": restarts}

    async def seqs(self) -> dict[str, int]:
        """Each table's seq, as a new GM's welcome says it."""
        found = {}
        for table, seats in self.seats.items():
            probe = Seat(self.the.listen, table, seats[0].token)
            await probe.join()
            found[table] = probe.seq
            await probe.close()
        return found

    def report(self, *, with_metrics: bool = True) -> dict[str, Any]:
        """Each phase's rolls (time to an answer, refusals), each process's counts."""
        phases = {}
        for phase, times in self.rolls.items():
            ordered = sorted(times)
            phases[phase] = {
                "rolls": len(times),
                "median_s": round(statistics.median(ordered), 3),
                "p99_s": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 3),
                "max_s": round(ordered[-1], 3),
                "refused": dict(self.refused[phase]),
            }
        processes = []
        for text in self.the.metrics() if with_metrics else []:
            processes.append({
                outcome: metric(text, f'rollbridge_forwarded_total{{outcome="{outcome}"}}')
                for outcome in ("answered", "loaded", "taken_over", "refused")
            } | {"store_failing": metric(text, "rollbridge_store_failing"),
                 "tables_owned": metric(text, "rollbridge_tables_owned")})  # fmt: skip
        return {"phases": phases, "processes": processes,
                "joins": sum(s.joins for seats in self.seats.values() for s in seats)}  # fmt: skip


def said_lines(the: Walk) -> dict[str, int]:
    """Every process's WARNING and ERROR lines, by their first six words."""
    counted: collections.Counter[str] = collections.Counter()
    for serve in the.serves:
        for line in serve.log.read_text(errors="replace").splitlines():
            for level in ("WARNING", "ERROR"):
                if f" {level} " in line:
                    words = line.split(f" {level} ", 1)[1].split()[:7]
                    counted[f"{level} {' '.join(words)}"] += 1
    return dict(counted.most_common())


async def run(
    the: Walk, tables: int, every: float, steady: float, old: str | None
) -> dict[str, Any]:
    night = Night(the, tables, every)
    the.start(old)  # Redis, three processes, nginx; the walk's own table
    night.make_tables()
    await night.join_all()
    done = await night.night(steady)
    seqs = await night.seqs()
    for seats in night.seats.values():
        for seat in seats:
            await seat.close()
    report = night.report() | done
    wrong = {t: (seqs[t], night.acked[t]) for t in seqs if seqs[t] != night.acked[t]}
    report["checks"] = {
        "rolls not answered": night.failed,
        "tables whose seq is not their rolls": wrong,
        "ready at the end": the.ready(),
    }
    ready = report["checks"]["ready at the end"]
    report["ok"] = not night.failed and not wrong and ready == [200] * 3
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=30, help="tables of 6 clients (30)")
    parser.add_argument("--every", type=float, default=1.0, help="seconds between a table's rolls")
    parser.add_argument("--steady", type=float, default=20.0, help="seconds of steady play")
    parser.add_argument(
        "--old",
        metavar="PYTHON",
        help="start the processes with this Python "
        "(an older release's), restarting each with this one: an upgrade",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument("--keep", action="store_true", help="keep the folder (logs, conf)")
    args = parser.parse_args(argv)
    if connect is None:
        print("rollbridge is not installed in this Python", file=sys.stderr)
        return 2
    folder = Path(tempfile.mkdtemp(prefix="rollbridge-night-"))
    the = Walk(folder, (lambda line: None) if args.json else print)
    the.worker_connections = 4 * 6 * (args.tables + 1) + 64
    # every client comes from nginx on 127.0.0.1: one address (64 by default)
    the.extra = ("--max-connections-per-address", str(8 * 6 * (args.tables + 1)))
    report: dict[str, Any] = {"ok": False}
    try:
        report = asyncio.run(run(the, args.tables, args.every, args.steady, args.old))
    finally:
        the.stop()
        report["log lines"] = said_lines(the)
        report["tracebacks"] = sum(
            "Traceback" in s.log.read_text(errors="replace") for s in the.serves if s.log.exists()
        )
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    report["ok"] = report["ok"] and not report["tracebacks"]
    print(json.dumps(report, indent=None if args.json else 2))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
