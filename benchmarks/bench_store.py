"""Commit throughput of the SQLite store, against bare sqlite3 in the same run (and,
with ``--redis URL``, of the Redis store against the SQLite store).

Run from anywhere, with the Python rollbridge is developed with (3.11+)::

    python benchmarks/bench_store.py
    python benchmarks/bench_store.py --commits 1024 --repeats 5 --dir /var/tmp

What is measured: commits per second of :class:`~rollbridge.stores.SQLiteStore`
with ``synchronous=FULL`` (every transaction fsyncs its WAL), writing real
commits of the table engine — an sr2 table where Tukan shoots a guard with a
Hackler (every die recorded, the guard's record before and after) and the GM
undoes each hit, in turn, on 8 tables. The commits are made first, with the real
engine on a memory store, and then written, timed, in two ways:

* ``commit``: one :meth:`SQLiteStore.commit` per commit — one transaction, one
  fsync each; serialising the commit is included;
* ``batch N``: :meth:`SQLiteStore.commit_many` of N commits at a time (group
  commit: one transaction and one fsync for N commits).

The baseline is bare ``sqlite3`` on the same disk with the same pragmas:
``INSERT`` of one blob as large as a commit's serialised payload, then
``COMMIT`` (for ``batch N``: N inserts, one ``COMMIT``). The ratio is the store's
commits per second over the baseline's: what the schema, the several rows of a
commit, the checks and the serialisation cost on top of the fsync. The CPU each
costs per commit is printed too (``time.process_time`` of this process:
serialising, the driver, SQLite itself, the kernel's writes), and its ratio.

With ``--redis URL`` each batch size also runs on :class:`RedisStore`: its commits
per second against the SQLite store's, the CPU of this process (the Redis client)
and the Redis server's (``INFO cpu``, its fsyncs included: give the benchmark a
server of its own).

``--codec`` also times msgpack against JSON on the same commits, in their stored
form: the reference packages (``msgpack``, the standard library's ``json``) and
what the store and the wire use (:mod:`rollbridge.plain`: ``ormsgpack`` and
``orjson``, the same bytes and text). Each figure is the best of
``--repeats`` runs, each on a fresh database file.
"""

from __future__ import annotations

import argparse
import copy
import gc
import itertools
import json
import math
import os
import platform
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack

from rollbridge.dice import SeededDice
from rollbridge.engine import Commit, Principal, TableInfo
from rollbridge.offline import TableService
from rollbridge.plain import dumps_json, loads_json, pack, unpack
from rollbridge.plugins.sr2 import SR2Ruleset
from rollbridge.stores import DEFAULT_RETAIN, MemoryStore, SQLiteStore
from rollbridge.testing import host_with
from rollbridge.text import stored_data
from rollbridge.tokens import TokenRecord

GM = Principal("gm", "gm", "gm-token")
TABLES = 8
BATCHES = (1, 8, 32, 128)


class RecordingStore(MemoryStore):
    """A memory store that keeps a copy of every table and commit it is given
    (a copy: a commit shares its ``info`` with the live table)."""

    def __init__(self) -> None:
        super().__init__()
        self.created: list[tuple[TableInfo, list[TokenRecord]]] = []
        self.commits: list[tuple[str, Commit]] = []

    def create_table(self, info: TableInfo, tokens: list[TokenRecord]) -> None:
        super().create_table(info, tokens)
        self.created.append(copy.deepcopy((info, tokens)))

    def commit(self, table_id: str, commit: Commit) -> None:
        super().commit(table_id, commit)
        self.commits.append((table_id, copy.deepcopy(commit)))


def make_commits(count: int) -> tuple[list[Any], list[tuple[str, Commit]]]:
    """The tables (info, tokens) and ``count`` real commits, interleaved over
    :data:`TABLES` tables (the actor creations first)."""
    recorder = RecordingStore()
    seeds = itertools.count()
    service = TableService(recorder, host_with(SR2Ruleset()), dice=lambda: SeededDice(next(seeds)))
    tukan = {"body": 5, "combat_pool": 6, "weapons": [{"name": "Hackler", "code": "7M",
                                                      "skill": 6}]}  # fmt: skip
    guard = {"body": 4, "combat_pool": 4, "armor": {"ballistic": 4, "impact": 2}}
    ids = [f"table-{n}" for n in range(TABLES)]
    for table_id in ids:
        service.create_table(f"Bench {table_id}", "sr2", table_id=table_id)
        for actor_id, sheet in (("tukan", tukan), ("guard", guard)):
            message = {
                "type": "actor.create",
                "id": f"c-{actor_id}",
                "actor": {"id": actor_id, "name": actor_id.title(), "sheet": sheet},
            }
            service.handle(table_id, message, GM)  # fmt: skip
    attack = {"type": "resolve", "action": "attack", "actor": "tukan", "targets": ["guard"],
              "params": {"weapon": "Hackler", "rounds": 3, "range": "medium"}}  # fmt: skip
    n = 0
    while len(recorder.commits) < count + 2 * TABLES:
        n += 1
        for table_id in ids:
            reply = service.handle(table_id, {**attack, "id": f"a{n}"}, GM)
            if service.table(table_id).undo_stack[-1:] == [reply["seq"]]:  # a hit: heal it
                service.handle(table_id, {"type": "undo", "id": f"u{n}"}, GM)
    return recorder.created, recorder.commits[: count + 2 * TABLES]


def payload_size(commit: Commit) -> int:
    """Bytes a commit serialises to: events, actors, replies, settings, meta."""
    packed = [e.packed() for e in commit.events] + [a.packed() for a in commit.actors]
    parts = [commit.info.settings, commit.meta, *commit.replies.values()]
    return sum(map(len, packed)) + sum(len(pack(p)) for p in parts)


def time_store(
    folder: Path,
    tables: list[Any],
    commits: list[Any],
    batch: int,
    retain: int = DEFAULT_RETAIN,
    redis_url: str | None = None,
    cpu: dict[str, float] | None = None,
) -> float:
    """Commits per second of the store (SQLite, or with ``redis_url`` a RedisStore
    under a fresh key prefix); batch 0 is one commit() per commit.

    ``cpu``, when given, gets the CPU per commit in µs: ``client``, this process's
    (``time.process_time``: serialising, the driver, SQLite itself), and with Redis
    ``redis``, the server's (``INFO cpu``: ``used_cpu_user`` + ``used_cpu_sys``, its
    fsyncs included), kept at the least of the runs."""
    path = folder / f"store-{batch}-{time.perf_counter_ns()}.db"
    if redis_url:
        from rollbridge.stores.redis import RedisStore

        store: Any = RedisStore(redis_url, retain=retain, prefix=f"bench{time.time_ns()}:")
    else:
        store = SQLiteStore(path, retain=retain)
    try:
        for info, tokens in tables:
            store.create_table(info, tokens)
        setup, timed = commits[: 2 * TABLES], commits[2 * TABLES :]
        store.commit_many(setup)
        server_before = _redis_cpu(store) if redis_url else 0.0
        client_before = time.process_time()
        start = time.perf_counter()
        if batch == 0:
            for table_id, commit in timed:
                store.commit(table_id, commit)
        else:
            for i in range(0, len(timed), batch):
                store.commit_many(timed[i : i + batch])
        elapsed = time.perf_counter() - start
        if cpu is not None:
            spent = {"client": time.process_time() - client_before}
            if redis_url:
                spent["redis"] = _redis_cpu(store) - server_before
            for name, seconds in spent.items():
                cpu[name] = min(cpu.get(name, math.inf), seconds / len(timed) * 1e6)
    finally:
        store.close()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
    return len(timed) / elapsed


def _redis_cpu(store: Any) -> float:
    """Seconds of CPU the Redis server has used (user + system, every thread)."""
    info = store.client.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def time_bare(
    folder: Path, size: int, count: int, batch: int, cpu: dict[str, float] | None = None
) -> float:
    """Commits per second of bare sqlite3: ``batch`` INSERTs of ``size`` bytes, COMMIT.
    ``cpu``, when given, gets the least CPU per commit in µs (``client``), as
    :func:`time_store` does."""
    path = folder / f"bare-{batch}-{time.perf_counter_ns()}.db"
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, data BLOB NOT NULL)")
        blob = os.urandom(size)
        client_before = time.process_time()
        start = time.perf_counter()
        for first in range(0, count, batch):  # the last batch may be short, as the store's
            conn.execute("BEGIN IMMEDIATE")
            for _ in range(min(batch, count - first)):
                conn.execute("INSERT INTO t (data) VALUES (?)", (blob,))
            conn.execute("COMMIT")
        elapsed = time.perf_counter() - start
        if cpu is not None:
            spent = (time.process_time() - client_before) / count * 1e6
            cpu["client"] = min(cpu.get("client", math.inf), spent)
    finally:
        conn.close()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
    return count / elapsed


def _ratio(mine: float, baseline: float) -> float:
    """``mine / baseline``; NaN where the baseline measured nothing (a coarse clock)."""
    return mine / baseline if baseline > 0 else math.nan


def best(repeats: int, run: Callable[[], float]) -> float:
    return max(run() for _ in range(repeats))


def time_codecs(commits: list[tuple[str, Commit]], repeats: int) -> dict[str, float]:
    """µs per commit to serialise and deserialise its parts, msgpack vs JSON: each
    part in its stored form (texts as ``{"id", "args"}``), the plain data both
    codecs can write."""
    parts = []
    for _, commit in commits:
        items = [e.to_dict() for e in commit.events] + [a.to_dict() for a in commit.actors]
        raw = [commit.info.settings, commit.meta, *items, *commit.replies.values()]
        parts.append([stored_data(p) for p in raw])
    packed = [[msgpack.packb(p) for p in ps] for ps in parts]
    dumped = [[json.dumps(p, separators=(",", ":")) for p in ps] for ps in parts]

    def per_commit(fn: Callable[[], object]) -> float:
        runs = []
        gc.disable()  # as timeit does: the results pile up, collections would dominate
        try:
            for _ in range(repeats):
                start = time.perf_counter()
                fn()
                runs.append(time.perf_counter() - start)
        finally:
            gc.enable()
        return min(runs) / len(parts) * 1e6

    return {
        "msgpack pack": per_commit(lambda: [[msgpack.packb(p) for p in ps] for ps in parts]),
        "json dumps": per_commit(
            lambda: [[json.dumps(p, separators=(",", ":")) for p in ps] for ps in parts]
        ),
        "msgpack unpack": per_commit(
            lambda: [[msgpack.unpackb(b, strict_map_key=False) for b in bs] for bs in packed]
        ),
        "json loads": per_commit(lambda: [[json.loads(s) for s in ss] for ss in dumped]),
        # What the store and the wire use (rollbridge.plain: ormsgpack and orjson
        # when installed, the same bytes and text as the two above).
        "plain pack": per_commit(lambda: [[pack(p) for p in ps] for ps in parts]),
        "plain dumps_json": per_commit(lambda: [[dumps_json(p) for p in ps] for ps in parts]),
        "plain unpack": per_commit(lambda: [[unpack(b) for b in bs] for bs in packed]),
        "plain loads_json": per_commit(lambda: [[loads_json(s) for s in ss] for ss in dumped]),
        "msgpack bytes": sum(len(b) for bs in packed for b in bs) / len(parts),
        "json bytes": sum(len(s.encode()) for ss in dumped for s in ss) / len(parts),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run, print the table; the figures: ``{"modes": {label: {...}}, "codec": {...}}``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=512, help="commits per run")
    parser.add_argument("--repeats", type=int, default=3, help="runs; the best is reported")
    parser.add_argument("--dir", type=Path, default=None, help="where the files go")
    parser.add_argument("--codec", action="store_true", help="also time msgpack vs JSON")
    parser.add_argument(
        "--retain", type=int, default=DEFAULT_RETAIN, help="events kept per table (pruning)"
    )
    parser.add_argument(
        "--redis",
        metavar="URL",
        help="also time RedisStore on this server (run it with --appendonly yes "
        "--appendfsync always); its column is against the SQLite store of the same run",
    )
    args = parser.parse_args(argv)

    tables, commits = make_commits(args.commits)
    timed = commits[2 * TABLES :]
    size = round(sum(payload_size(c) for _, c in timed) / len(timed))
    events = sum(len(c.events) for _, c in timed)
    print(f"Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}, "
          f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.system()}")  # fmt: skip
    print(f"{len(timed)} commits ({events} events) over {TABLES} tables, "
          f"{size} bytes serialised per commit on average; retain {args.retain}; "
          f"best of {args.repeats}")  # fmt: skip
    folder = args.dir or Path(tempfile.gettempdir())
    figures: dict[str, Any] = {"modes": {}, "codec": {}}
    with tempfile.TemporaryDirectory(dir=folder, prefix="rollbridge-bench-") as tmp:
        print(f"files in {tmp}; synchronous=FULL, WAL\n")
        extra = (
            f"{'redis commits/s':>17}{'redis/store':>12}{'redis client CPU':>18}"
            f"{'redis server CPU':>18}"
            if args.redis
            else ""
        )
        print(f"{'mode':<11}{'store commits/s':>17}{'bare commits/s':>16}{'store/bare':>12}"
              f"{'store CPU':>11}{'bare CPU':>10}{'CPU ratio':>11}{extra}")  # fmt: skip
        for batch in (0, *BATCHES):
            label = "commit" if batch == 0 else f"batch {batch}"
            store_cpu: dict[str, float] = {}
            bare_cpu: dict[str, float] = {}
            store = best(
                args.repeats,
                lambda b=batch, c=store_cpu: time_store(
                    Path(tmp), tables, commits, b, args.retain, cpu=c
                ),
            )
            bare = best(
                args.repeats,
                lambda b=batch, c=bare_cpu: time_bare(
                    Path(tmp), size, len(timed), max(1, b), cpu=c
                ),
            )
            row = figures["modes"][label] = {
                "store": store,
                "bare": bare,
                "store_cpu_us": store_cpu["client"],
                "bare_cpu_us": bare_cpu["client"],
            }
            tail = ""
            if args.redis:
                redis_cpu: dict[str, float] = {}
                redis = best(args.repeats, lambda b=batch, c=redis_cpu: time_store(
                    Path(tmp), tables, commits, b, args.retain, args.redis,
                    cpu=c))  # fmt: skip
                row.update(
                    redis=redis,
                    redis_client_cpu_us=redis_cpu["client"],
                    redis_server_cpu_us=redis_cpu["redis"],
                )
                tail = (
                    f"{redis:>17,.0f}{redis / store:>12.2f}"
                    f"{redis_cpu['client']:>18.0f}{redis_cpu['redis']:>18.0f}"
                )
            print(f"{label:<11}{store:>17,.0f}{bare:>16,.0f}{store / bare:>12.2f}"
                  f"{row['store_cpu_us']:>11.0f}{row['bare_cpu_us']:>10.0f}"
                  f"{_ratio(row['store_cpu_us'], row['bare_cpu_us']):>11.2f}{tail}")  # fmt: skip
            sys.stdout.flush()
    if args.codec:
        print()
        figures["codec"] = time_codecs(timed, max(args.repeats, 5))
        for name, value in figures["codec"].items():
            unit = "bytes" if "bytes" in name else "µs/commit"
            print(f"{name:<16}{value:>10.1f} {unit}")
    return figures


if __name__ == "__main__":
    main()
