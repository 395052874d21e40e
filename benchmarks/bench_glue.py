"""The live server's instructions per request, counted by callgrind over real sockets.

``bench_instructions.py`` counts a request's in-process work (decode, parse,
idempotency, execute and stage, frames, the commit prepared) with no socket.
This one counts what the server process spends around it: a real
:class:`~rollbridge.server.Server` on a real SQLite file (WAL,
``synchronous=FULL``) runs under ``valgrind --tool=callgrind
--separate-threads=yes`` in a child process, and a raw load client in this one
(:mod:`bench_server_wire`) joins six connections to one sr2 table, as
``bench_server.py throughput`` does (the player who asks, the GM who heals, four
players who only receive), and sends ``--pairs`` attack + roll pairs (and the
heals they call for), one request in flight: each request is read, executed,
committed alone (a group commit of one) and its result and six events written
before the next is sent, so the same code runs the same instructions every time.
The dice are seeded (one ``SeededDice`` per request, as ``bench_instructions.py``),
pings are off (a timer, not a request's work), and ``PYTHONHASHSEED=0``.

Each server is run twice, once with ``--warmup`` pairs (start, six joins, the
first requests' one-time work — a shape's texts made, lazy imports —, stop: the
fixed cost) and once with ``--warmup`` + ``--pairs``; the difference divided by
the pairs is what a pair costs, split by thread: the event loop's (thread 1 in callgrind's files)
and the others' (the commit writer; the reader threads do the joins' loads,
which are in the fixed cost). The bare baseline server of ``bench_server.py``
(websockets + msgpack, the same frames broadcast to the same six clients) is
counted the same way, so the loop's glue shows as instructions against the
baseline's: the loop's count per pair less ``bench_instructions.py``'s
in-process count is the reading, scheduling, hand-over and writing around the
request, and the baseline's count per pair is all of that for a server that
does nothing else.

Run from the repository root (needs valgrind; a few minutes)::

    python benchmarks/bench_glue.py --pairs 50
    python benchmarks/bench_glue.py --pairs 50 --server rollbridge   # only one
    python benchmarks/bench_glue.py --pairs 50 --json

``--run`` runs the same load against the same servers without valgrind (the
test suite's smoke test). Figures and how to read them: docs/performance.md
("The loop's glue, counted").
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import msgpack

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_server import (
    ADDRESS,
    LOAD_TEST_LIMITS,
    LoadTable,
    Recorder,
    _baseline_server,
    baseline_replies,
    capture_frames,
    heal_request,
    join_tables,
    leave_tables,
    make_host,
    seed_sqlite,
)

__all__ = ["SERVERS", "count", "main", "run_load"]

JSON = dict[str, Any]
#: The servers counted: rollbridge, and the bare baseline.
SERVERS = ("rollbridge", "baseline")
#: Pairs sent in both runs of a server: the first requests' one-time work (a
#: shape's texts made, lazy imports) is not a pair's.
WARMUP = 5


# -- the child: a server that stops when told ----------------------------------------


async def serve(kind: str, path: Path) -> None:
    """Run a ``kind`` server (on the SQLite file, or the baseline's frames at
    ``path``), print ``{"port": ...}``, stop at the first line on stdin."""
    loop = asyncio.get_running_loop()
    if kind == "rollbridge":
        from rollbridge.dice import SeededDice
        from rollbridge.server import Server
        from rollbridge.stores import SQLiteStore

        seeds = itertools.count(1)
        server = Server(SQLiteStore(path), make_host(), address=ADDRESS, port=0,
                        dice=lambda: SeededDice(next(seeds)), ping_interval=None,
                        manage_gc=True, limits=LOAD_TEST_LIMITS)  # fmt: skip
        await server.start()
        port = server.port
    else:
        baseline, _ = await _baseline_server(msgpack.unpackb(path.read_bytes()), None, None)
        port = baseline.sockets[0].getsockname()[1]
    print(json.dumps({"port": port}), flush=True)
    await loop.run_in_executor(None, sys.stdin.readline)
    if kind == "rollbridge":
        await server.stop()
    else:
        baseline.close()
        await baseline.wait_closed()


# -- the load --------------------------------------------------------------------------


async def send_pairs(table: LoadTable, pairs: int) -> int:
    """Send ``pairs`` attack + roll pairs (and the heals they call for) one at a
    time, each after the last one's result; the requests sent."""
    finished = asyncio.get_running_loop().create_future()
    left = [pairs * 2]

    def next_request(table: LoadTable) -> None:
        if left[0] == 0:
            if not finished.done():
                finished.set_result(None)
            return
        if not table.need_heal:
            left[0] -= 1
        table.request()

    table.next_request = next_request
    next_request(table)
    await finished
    table.next_request = None
    return table.recorder.sent


async def run_load(port: int, tokens: dict[str, dict[str, str]], heal: JSON, pairs: int) -> JSON:
    """Join the table's six clients to the server at ``port``, send the pairs, leave."""
    recorder = Recorder()
    recorder.start, recorder.end = float("-inf"), float("inf")
    [(table_id, table_tokens)] = tokens.items()
    table = LoadTable(table_id, table_tokens, recorder, heal)
    table.prefix = "glue"  # the same request ids every run
    await join_tables(port, [table])
    sent = await send_pairs(table, pairs) if pairs else 0
    await leave_tables([table])
    return {"requests": sent, "errors": dict(recorder.errors)}


# -- counting ------------------------------------------------------------------------


async def run_server(
    kind: str,
    path: Path,
    tokens: JSON,
    heal: JSON,
    pairs: int,
    prefix: list[str],
    out: Path,
    keep: Path | None = None,
) -> tuple[JSON, dict[int, int]]:
    """One server under ``prefix`` (valgrind's command line, or none) with ``pairs``
    pairs sent; the load's figures and the instructions of each thread (callgrind's
    thread number: 1 is the event loop's), none without valgrind. ``keep``: a folder
    callgrind's files are moved to (for ``callgrind_annotate``), not removed."""
    command = [*prefix, sys.executable, str(Path(__file__).resolve()), "_serve", kind, str(path)]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    pipe = asyncio.subprocess.PIPE
    child = await asyncio.create_subprocess_exec(
        *command, stdin=pipe, stdout=pipe, stderr=pipe, env=env
    )
    assert child.stdin is not None and child.stdout is not None and child.stderr is not None
    line = await child.stdout.readline()
    if not line:
        raise SystemExit(f"the {kind} server did not start:\n{(await child.stderr.read())[-2000:]}")
    figures = await run_load(json.loads(line)["port"], tokens, heal, pairs)
    child.stdin.write(b"stop\n")
    await child.stdin.drain()
    _, stderr = await child.communicate()
    if child.returncode != 0:
        raise SystemExit(f"the {kind} server failed ({child.returncode}):\n{stderr[-2000:]}")
    return figures, _thread_counts(out, keep) if prefix else {}


def _thread_counts(out: Path, keep: Path | None = None) -> dict[int, int]:
    """Instructions per thread from callgrind's files ``out-NN`` (one per thread),
    then removed (``keep``: moved into that folder)."""
    counts = {}
    for part in out.parent.glob(f"{out.name}-*"):
        found = re.search(r"^(?:summary|totals):\s*(\d+)", part.read_text(), re.MULTILINE)
        if found is not None:
            counts[int(part.name.rsplit("-", 1)[1])] = int(found.group(1))
        if keep is None:
            part.unlink()
        else:
            shutil.move(part, keep / part.name)
    if not counts:
        raise SystemExit(f"callgrind wrote no counts at {out}-*")
    return counts


async def count(
    pairs: int,
    servers: tuple[str, ...] = SERVERS,
    valgrind: str | None = "valgrind",
    warmup: int = WARMUP,
    keep: Path | None = None,
) -> JSON:
    """Count each server with ``warmup`` pairs and with ``warmup + pairs`` (``valgrind``
    None: run without it); per server the instructions per pair (loop thread, others).
    ``keep``: a folder callgrind's per-thread files are kept in."""
    host = make_host()
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
    result: JSON = {"pairs": pairs, "warmup": warmup}
    with tempfile.TemporaryDirectory(prefix="bench-glue-") as folder:
        work = Path(folder)
        tokens, _ = seed_sqlite(work / "seeded.db", 1, host)
        heal = heal_request(host)
        if "baseline" in servers:
            frames = work / "baseline.msgpack"
            frames.write_bytes(msgpack.packb(baseline_replies(await capture_frames(host, 8))))
        for kind in servers:
            runs = {}
            for n in (warmup, warmup + pairs):
                out = work / f"callgrind-{kind}-{n}"
                prefix = [] if valgrind is None else [
                    valgrind, "--tool=callgrind", "--separate-threads=yes",
                    f"--callgrind-out-file={out}"]  # fmt: skip
                path = frames if kind == "baseline" else work / f"{kind}-{n}.db"
                if kind == "rollbridge":
                    shutil.copyfile(work / "seeded.db", path)
                runs[n] = await run_server(kind, path, tokens, heal, n, prefix, out, keep)
            (before, empty), (figures, threads) = runs[warmup], runs[warmup + pairs]
            requests = figures["requests"] - before["requests"]
            entry: JSON = {"requests": requests, "requests_per_pair": round(requests / pairs, 3),
                           "errors": {**before["errors"], **figures["errors"]}}  # fmt: skip
            if valgrind is not None:
                loop = threads.get(1, 0) - empty.get(1, 0)
                others = sum(threads.values()) - threads.get(1, 0)
                others -= sum(empty.values()) - empty.get(1, 0)
                entry["fixed_m"] = round(sum(empty.values()) / 1e6, 1)
                entry["loop_m_per_pair"] = round(loop / pairs / 1e6, 4)
                entry["others_m_per_pair"] = round(others / pairs / 1e6, 4)
                entry["loop_k_per_request"] = round(loop / requests / 1e3, 1)
                entry["threads_m"] = {
                    str(n): [round(empty.get(n, 0) / 1e6, 2), round(threads.get(n, 0) / 1e6, 2)]
                    for n in sorted(set(empty) | set(threads))
                }
            result[kind] = entry
    return result


def main(argv: list[str] | None = None) -> int:
    """Count (or, with ``--run``, only run) and print the figures."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["_serve"]:
        asyncio.run(serve(argv[1], Path(argv[2])))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=50, help="attack + roll pairs (default 50)")
    parser.add_argument(
        "--warmup",
        type=int,
        default=WARMUP,
        help=f"pairs sent in both runs, not counted (default {WARMUP})",
    )
    parser.add_argument("--server", choices=SERVERS, action="append", help="only this server")
    parser.add_argument("--valgrind", default="valgrind", help="the valgrind binary")
    parser.add_argument("--run", action="store_true", help="no valgrind: run the load only")
    parser.add_argument(
        "--keep",
        type=Path,
        help="keep callgrind's per-thread files in this folder (callgrind_annotate)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args(argv)
    if args.pairs < 1:
        parser.error("--pairs must be at least 1")
    valgrind = None if args.run else args.valgrind
    if valgrind is not None and shutil.which(valgrind) is None:
        raise SystemExit("valgrind is not installed (Debian: apt-get install valgrind)")
    servers = tuple(args.server or SERVERS)
    result = asyncio.run(count(args.pairs, servers, valgrind, args.warmup, args.keep))
    if args.json or valgrind is None:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{args.pairs} attack + roll pairs, one request in flight (callgrind, M instructions)")
    for kind in servers:
        entry = result[kind]
        print(f"  {kind:10s} loop thread {entry['loop_m_per_pair']:.3f} per pair "
              f"({entry['loop_k_per_request']:.0f} k per request, "
              f"{entry['requests_per_pair']} requests a pair); other threads "
              f"{entry['others_m_per_pair']:.3f} per pair; the run of {args.warmup} "
              f"warm-up pairs {entry['fixed_m']}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
