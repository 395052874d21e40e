"""What one player's reads of a log full of large events do to another table.

Run from anywhere, with the Python rollbridge is developed with (3.11+)::

    python benchmarks/bench_large_reads.py
    python benchmarks/bench_large_reads.py --read stats --rolls 1100 --seconds 8

A real ``rollbridge serve`` (SQLite, a real port) with two sr2 tables. A player of
the first fills its log with ``--rolls`` rolls of ~128 KiB (2,997 dice each, the
largest event ``--max-event-size`` lets in), on a server without request rates;
then the server is started again on the file with its default limits. A witness at
the second table rolls ``1d6`` every 50 ms for ``--seconds``, alone (the baseline),
then while eight connections of the first table's player ask ``--read`` (``state``
at the seq 870 events before the last, or ``stats``) as fast as the rates let them.
Printed: the witness's answers and its slowest round trip, each time, and how the
attacker's requests were answered. A measure, not a test: the machine's load moves
it (docs/operations.md, "Hostile input", has runs of the code before and after).

With ``--read stats``, before the server starts again, the store's read of the
retained log and the counting of it (``stats_counter``) are timed on the file, in
this process's CPU time, and their ratio printed (hostile29: the counting of a log of
d1,000,000 rolls stops where its reply is too large). ``--faces 6`` fills the log
with rolls of d6 instead, whose statistics fit in a reply.

Before the server starts again, the store's own read for ``state`` at that seq is
timed on the file, in this process's CPU time: ``events_after`` (every event whole)
against ``changes_after`` (their changes alone, what ``state`` reads since hostile28),
and the ratio — both in the same run. A rollbridge without ``changes_after`` (an
older checkout on ``PYTHONPATH``) prints the first alone.

With ``--collector-log`` the server runs at ``--log-level DEBUG`` and the collector
manager's full passes it logged while the witness and the reads ran are printed at
the end (``full collection: … ms``): the stall a pass over a read's events made.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

#: A roll whose event is nearly ``--max-event-size`` (128 KiB); ``--faces`` changes
#: its dice (``--faces 6``: a log whose statistics fit in a reply, every face counted).
BIG = "999d1000000+999d1000000+999d1000000"
ENV = {**os.environ, "ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def create(db: Path, name: str) -> dict[str, Any]:
    """``rollbridge table create --json`` of an sr2 table in ``db``: what it printed."""
    made = subprocess.run(
        [sys.executable, "-m", "rollbridge", "table", "create", "--ruleset", "sr2",
         "--name", name, "--json", "--db", str(db)],
        capture_output=True, text=True, check=True, env=ENV,
    )  # fmt: skip
    return json.loads(made.stdout)


def serve(db: Path, log: Path, *options: str) -> tuple[subprocess.Popen, int]:
    """``rollbridge serve`` on ``db``, once it listens: the process and its port."""
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "rollbridge", "serve", "--port", str(port), "--db", str(db),
         "--no-demo", *options],
        stdout=log.open("w"), stderr=subprocess.STDOUT, env=ENV,
    )  # fmt: skip
    while "listening on" not in log.read_text():
        if process.poll() is not None:
            raise SystemExit(log.read_text())
        time.sleep(0.05)
    return process, port


async def join(port: int, table: dict[str, Any], role: str) -> ClientConnection:
    """A connection said ``hello`` to ``table`` with its ``role`` token."""
    ws = await connect(f"ws://127.0.0.1:{port}/tables/{table['table']}", max_size=None)
    hello = {"type": "hello", "id": "h", "table": table["table"], "token": table["tokens"][role]}
    await ask(ws, hello)
    return ws


async def ask(ws: ClientConnection, message: dict[str, Any]) -> dict[str, Any]:
    """Send ``message``; its answer (events skipped)."""
    await ws.send(json.dumps(message))
    while True:
        answer = json.loads(await asyncio.wait_for(ws.recv(), 300))
        if answer.get("type") != "event":
            return answer


async def fill(port: int, table: dict[str, Any], rolls: int, formula: str = BIG) -> None:
    """The player's ``rolls`` large rolls (``formula``), 20 at a time."""
    ws = await join(port, table, "player")
    for start in range(0, rolls, 20):
        for n in range(start, min(start + 20, rolls)):
            await ws.send(json.dumps({"type": "roll", "id": f"b{n}", "formula": formula}))
        answered = 0
        while answered < min(20, rolls - start):
            answer = json.loads(await asyncio.wait_for(ws.recv(), 300))
            answered += answer.get("type") in ("result", "error")
    await ws.close()


async def witness(port: int, table: dict[str, Any], seconds: float) -> tuple[int, float]:
    """A roll every 50 ms for ``seconds``: how many were answered, the slowest."""
    ws = await join(port, table, "player")
    answered, slowest, end = 0, 0.0, time.monotonic() + seconds
    while time.monotonic() < end:
        sent = time.monotonic()
        await ask(ws, {"type": "roll", "id": f"w{answered}", "formula": "1d6"})
        slowest = max(slowest, time.monotonic() - sent)
        answered += 1
        await asyncio.sleep(0.05)
    await ws.close()
    return answered, slowest


async def attacker(
    port: int, table: dict[str, Any], read: dict[str, Any], stop: asyncio.Event,
    answers: dict[str, int],
) -> None:  # fmt: skip
    """``read`` again and again until ``stop``, waiting what a refusal says."""
    ws = await join(port, table, "player")
    n = 0
    while not stop.is_set():
        n += 1
        answer = await ask(ws, {**read, "id": f"x{n}"})
        code = answer.get("code") or answer["type"]
        answers[code] = answers.get(code, 0) + 1
        if code == "rate_limited":
            await asyncio.sleep(answer["details"]["retry_after"])
    await ws.close()


def store_reads(db: Path, table: dict[str, Any], at: int) -> None:
    """The store's read of the events after ``at``, whole and for their changes alone:
    the CPU seconds of each (best of three) and their ratio."""
    from rollbridge.stores.sqlite import SQLiteStore

    def best(read: Any) -> float:
        spent = []
        for _ in range(3):
            started = time.thread_time()
            read(table["table"], at)
            spent.append(time.thread_time() - started)
        return min(spent)

    store = SQLiteStore(db)
    try:
        whole = best(store.events_after)
        print(f"store: events_after({at}) {whole:.3f} s CPU", end="")
        alone = getattr(store, "changes_after", None)
        if alone is None:
            print()
            return
        changes = best(alone)
        print(f", changes_after({at}) {changes:.3f} s CPU: {whole / changes:.1f} times less")
    finally:
        store.close()


def stats_cpu(db: Path, table: dict[str, Any]) -> None:
    """What a player's ``stats`` takes of a reader thread on the file, in this process's
    CPU time (best of three, the collector off as the server's quiet holds it): the
    store's read of the retained log, then the counting (every event's view, the
    counts, the reply or its refusal), and their ratio — both in the same run."""
    import gc

    from rollbridge.export import read_log
    from rollbridge.host import PluginHost
    from rollbridge.stats import Scope, stats_counter
    from rollbridge.stores.sqlite import SQLiteStore

    store = SQLiteStore(db)
    try:
        log = read_log(store, table["table"], PluginHost().rulesets)
        start = log.events[0].seq - 1
        read, count, answer = [], [], ""
        gc.disable()
        for _ in range(3):
            started = time.thread_time()
            events = store.events_after(table["table"], start)
            read.append(time.thread_time() - started)
            started = time.thread_time()
            try:
                stats_counter(log.table, events, audience="player", scope=Scope())()
                answer = "result"
            except Exception as exc:  # the refusal of a reply too large: counted too
                answer = getattr(exc, "code", type(exc).__name__)
            count.append(time.thread_time() - started)
            del events
    finally:
        gc.enable()
        store.close()
    print(f"stats on a reader thread: read {min(read):.3f} s CPU, count {min(count):.3f} s "
          f"CPU ({answer}): the count {min(count) / min(read):.3f} of the read")  # fmt: skip


async def measure(port: int, tables: list[dict[str, Any]], read: dict[str, Any],
                  seconds: float) -> None:  # fmt: skip
    alone, slowest = await witness(port, tables[1], seconds)
    print(f"witness alone: {alone} answers, the slowest {slowest:.3f} s")
    stop, answers = asyncio.Event(), {}
    print("the reads begin:", time.strftime("%H:%M:%S"))  # the passes' times say when
    attackers = [
        asyncio.create_task(attacker(port, tables[0], read, stop, answers)) for _ in range(8)
    ]
    await asyncio.sleep(1)
    under, slowest = await witness(port, tables[1], seconds)
    print(f"witness under the reads: {under} answers, the slowest {slowest:.3f} s")
    print("the reads answered:", answers, "- they end:", time.strftime("%H:%M:%S"))
    stop.set()
    for task in attackers:  # a stats still out may take minutes: not waited for
        task.cancel()
    await asyncio.gather(*attackers, return_exceptions=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rolls", type=int, default=1100)
    parser.add_argument("--read", choices=["state", "stats"], default="state")
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--faces", type=int, default=1000000,
                        help="the faces of the rolls' 2,997 dice")  # fmt: skip
    parser.add_argument("--collector-log", action="store_true",
                        help="serve at DEBUG; print the collector's full passes")  # fmt: skip
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "reads.db"
        tables = [create(db, f"T{n}") for n in range(2)]
        process, port = serve(db, Path(folder) / "fill.log", "--rate-per-table", "0",
                              "--rate-per-connection", "0")  # fmt: skip
        formula = "+".join([f"999d{args.faces}"] * 3)
        asyncio.run(fill(port, tables[0], args.rolls, formula))
        process.terminate()
        process.wait()
        read = {"type": "stats"} if args.read == "stats" else {
            "type": "state", "at": max(1, args.rolls - 870)}  # fmt: skip
        if args.read == "state":
            store_reads(db, tables[0], read["at"])
        else:
            stats_cpu(db, tables[0])
        log = Path(folder) / "serve.log"
        process, port = serve(db, log, *(["--log-level", "DEBUG"] * args.collector_log))
        try:
            asyncio.run(measure(port, tables, read, args.seconds))
        finally:
            process.terminate()
            process.wait()
        if args.collector_log:
            said = log.read_text().splitlines()
            passes = [line for line in said if "full collection: " in line]
            print(f"the collector's full passes: {len(passes)}")
            for line in passes:
                print("  ", line)


if __name__ == "__main__":
    main()
