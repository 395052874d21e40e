"""Where the SQLite writer's CPU goes: a group commit taken apart.

Run from anywhere, with the Python rollbridge is developed with (3.11+)::

    python benchmarks/bench_store_writer.py
    python benchmarks/bench_store_writer.py --commits 4096 --groups 2 13 --repeats 3

The commits of ``bench_store.py`` (an sr2 attack, a heal by undo, over 8 tables),
prepared first (:meth:`SQLiteStore.prepare`, not timed), are written by
:meth:`SQLiteStore.commit_many` in groups of each ``--groups`` size (2: the in-process
table of ``bench_server.py throughput``; ~13: its live server's group commits), on a
fresh file each run, and for each size:

* ``cpu`` with ``synchronous=FULL`` (the store's) and ``OFF`` (a variant for this
  benchmark only: no fsync, not durable): CPU of the writing thread per commit
  (``time.thread_time``: Python, SQLite's C and the kernel's work for the thread); the
  difference is what the fsync costs the thread — the kernel's share, and the caches it
  leaves cold — and ``OFF`` alone is what a faster disk could never take away. The
  least of ``--repeats``; the wall time beside it;
* ``snapshot``: of ``OFF``'s CPU, what the snapshots take (one a table every
  ``SNAPSHOT_EVERY`` events: folding the log rows after the last one, writing the new
  one, pruning);
* ``transaction``: an empty write transaction's CPU — the store's checks of its files
  (three ``stat`` calls), ``BEGIN IMMEDIATE`` and ``COMMIT`` — per group;
* ``statements``: the SQL statements a group commit runs, by kind (counted with
  ``set_trace_callback``);
* ``frames``: the WAL frames (4 KiB pages, each a ``pwrite`` of its 24-byte header and
  one of the page) a group commit writes, by the table or index the page belongs to
  (SQLite's ``dbstat``; automatic checkpoints off while they are counted).

Figures: docs/performance.md ("The writer's commit, 7 December (evening)").
"""

from __future__ import annotations

import argparse
import collections
import json
import sqlite3
import struct
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_store

from rollbridge.stores import SQLiteStore
from rollbridge.stores import sqlite as sqlite_module

#: A WAL's header, and each frame's before its page (SQLite's WAL format).
WAL_HEADER, FRAME_HEADER = 32, 24


def fresh_store(folder: Path, tables: list[Any], sync: str = "FULL") -> SQLiteStore:
    """A store on a new file in ``folder`` with ``tables`` made, its writing
    connection (this thread's) at ``synchronous=sync``."""
    store = SQLiteStore(folder / f"writer-{time.perf_counter_ns()}.db")
    for info, tokens in tables:
        store.create_table(info, tokens)
    store._conn().execute(f"PRAGMA synchronous = {sync}")
    return store


def write(store: SQLiteStore, prepared: list[Any], group: int) -> None:
    """Every prepared commit, ``group`` to a :meth:`SQLiteStore.commit_many`."""
    for first in range(0, len(prepared), group):
        store.commit_many(prepared[first : first + group])


def time_groups(
    folder: Path, tables: list[Any], prepared: list[Any], group: int, sync: str
) -> dict[str, float]:
    """CPU and wall time per commit, and the snapshots' CPU, of one run."""
    spent = [0.0]
    snapshot = sqlite_module.SQLiteStore._snapshot

    def timed(self: SQLiteStore, *args: Any) -> int:
        start = time.thread_time()
        try:
            return snapshot(self, *args)
        finally:
            spent[0] += time.thread_time() - start

    store = fresh_store(folder, tables, sync)
    sqlite_module.SQLiteStore._snapshot = timed  # type: ignore[method-assign]
    try:
        cpu, wall = time.thread_time(), time.perf_counter()
        write(store, prepared, group)
        cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
    finally:
        sqlite_module.SQLiteStore._snapshot = snapshot  # type: ignore[method-assign]
        store.close()
    count = len(prepared)
    return {
        "cpu": cpu / count * 1e6,
        "wall": wall / count * 1e6,
        "snapshot": spent[0] / count * 1e6,
    }


def least(repeats: int, run: Callable[[], dict[str, float]]) -> dict[str, float]:
    """Of ``repeats`` runs, the one of least CPU."""
    return min((run() for _ in range(repeats)), key=lambda figures: figures["cpu"])


def empty_transaction(folder: Path, tables: list[Any], count: int = 2000) -> float:
    """CPU of one empty write transaction of the store (its checks, BEGIN, COMMIT)."""
    store = fresh_store(folder, tables)
    try:
        start = time.thread_time()
        for _ in range(count):
            with store._transaction(write=True):
                pass
        return (time.thread_time() - start) / count * 1e6
    finally:
        store.close()


def statements(
    folder: Path, tables: list[Any], prepared: list[Any], group: int
) -> dict[str, float]:
    """The statements a group commit runs, by their first words, per group."""
    found: collections.Counter[str] = collections.Counter()
    store = fresh_store(folder, tables, "OFF")
    try:
        store._conn().set_trace_callback(lambda sql: found.update([" ".join(sql.split()[:2])]))
        write(store, prepared, group)
    finally:
        store.close()
    groups = -(-len(prepared) // group)
    return {kind: round(n / groups, 2) for kind, n in found.most_common()}


def frames(folder: Path, tables: list[Any], prepared: list[Any], group: int) -> dict[str, float]:
    """WAL frames per group commit, by what their page holds (after the first half
    of the commits, so that the log has grown and snapshots have pruned)."""
    store = fresh_store(folder, tables, "OFF")
    try:
        conn = store._conn()
        conn.execute("PRAGMA wal_autocheckpoint = 0")
        half = len(prepared) // 2 // group * group
        write(store, prepared[:half], group)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        write(store, prepared[half:], group)
        wal = Path(f"{store._file}-wal").read_bytes()
        try:
            owner = dict(conn.execute("SELECT pageno, name FROM dbstat"))
        except sqlite3.OperationalError:  # a SQLite built without dbstat
            owner = {}
    finally:
        store.close()
    found: collections.Counter[str] = collections.Counter()
    step = FRAME_HEADER + 4096
    for offset in range(WAL_HEADER, len(wal) - step + 1, step):
        page = struct.unpack_from(">I", wal, offset)[0]
        found[
            "page 1 (the file's header)" if page == 1 else owner.get(page, "page without owner")
        ] += 1
    groups = -(-(len(prepared) - half) // group)
    return {name: round(n / groups, 2) for name, n in found.most_common()}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run, print the figures; return them (``{"groups": {size: {...}}, ...}``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=4096, help="commits per run")
    parser.add_argument("--groups", type=int, nargs="+", default=[2, 13],
                        help="commits per group commit")  # fmt: skip
    parser.add_argument("--repeats", type=int, default=3, help="runs; the least is reported")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    tables, commits = bench_store.make_commits(args.commits)
    figures: dict[str, Any] = {"commits": len(commits), "groups": {}}
    with tempfile.TemporaryDirectory(prefix="rollbridge-writer-") as tmp:
        folder = Path(tmp)
        store = fresh_store(folder, [])
        prepared = [(table_id, store.prepare(commit)) for table_id, commit in commits]
        store.close()
        figures["transaction_us"] = empty_transaction(folder, tables)
        for group in args.groups:
            full, off = (
                least(args.repeats,
                      lambda s=sync, g=group: time_groups(folder, tables, prepared, g, s))
                for sync in ("FULL", "OFF")
            )  # fmt: skip
            figures["groups"][group] = {
                "cpu_us": {"FULL": full["cpu"], "OFF": off["cpu"]},
                "wall_us": {"FULL": full["wall"], "OFF": off["wall"]},
                "snapshot_us": off["snapshot"],
                "statements": statements(folder, tables, prepared, group),
                "frames": frames(folder, tables, prepared, group),
            }
    if args.json:
        print(json.dumps(figures))
        return figures
    print(f"{figures['commits']} commits; an empty write transaction "
          f"{figures['transaction_us']:.1f} µs of CPU")  # fmt: skip
    for group, row in figures["groups"].items():
        cpu, wall, fsync = (
            row["cpu_us"],
            row["wall_us"],
            row["cpu_us"]["FULL"] - row["cpu_us"]["OFF"],
        )
        print(f"groups of {group}: CPU per commit {cpu['FULL']:.1f} µs (wall {wall['FULL']:.0f}),"
              f" synchronous=OFF {cpu['OFF']:.1f} (wall {wall['OFF']:.0f}), of it snapshots"
              f" {row['snapshot_us']:.1f}; the fsync's share {fsync:.1f}")  # fmt: skip
        for name in ("statements", "frames"):
            counted = ", ".join(f"{k} {v}" for k, v in row[name].items())
            print(f"  {'WAL frames' if name == 'frames' else name} a group: {counted}")
    return figures


if __name__ == "__main__":
    main()
