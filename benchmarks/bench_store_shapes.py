"""What the SQLite store's table shapes cost a commit, against one blob a commit.

Run from anywhere, with the Python rollbridge is developed with (3.11+)::

    python benchmarks/bench_store_shapes.py
    python benchmarks/bench_store_shapes.py --commits 4096 --batch 17 --repeats 5

Why: the writer thread of ``bench_server.py throughput`` spends ~80–95 µs of CPU a
request, and an earlier throwaway script had put most of that on the schema's
indexes (a log row under its unique ``("table", first)`` index, a reply row under its
primary key and ``replies_by_seq``). This benchmark asks it again with the real
rows: the commits of ``bench_store.py`` (an sr2 attack, a heal by undo, over 8
tables), made into the exact rows :meth:`SQLiteStore.commit_many` writes (its own
``prepare`` and ``_as_stored``), inserted ``--batch`` commits to a transaction
(WAL: one fsync a batch, as the server's group commits), on a connection with the
store's own pragmas (``synchronous=FULL``, foreign keys checked, the statement
journal in memory: :func:`store_pragmas`), into:

* ``schema``: the tables and indexes a fresh :class:`SQLiteStore` makes (read
  from its ``sqlite_master``, so the benchmark follows the code), the foreign keys
  to the tables table with them;
* ``replies without rowid``: the same, the reply table ``WITHOUT ROWID`` (one
  b-tree fewer a reply);
* ``no replies_by_seq``: that, and no ``replies_by_seq`` index (pruning would
  need another way);
* ``replies in the log row``: no reply table at all (the replies packed into
  the log row's blob; the idempotency lookup by key would need another way);
* ``bare`` (the baseline): one blob a commit, as large as its log row's blobs and
  its replies, in a table with no index and no foreign key.

It also times :meth:`SQLiteStore.commit_many` itself on the same prepared
commits (its checks, the comparison with the table's last info and meta, the
snapshot every 128 commits and its pruning; ``prepare`` not included). Each
figure is CPU of this thread a commit (``time.thread_time``: the driver, SQLite,
the kernel's writes and fsyncs), the least of ``--repeats`` runs on fresh files;
the ratio is against ``bare`` of the same run. Figures: docs/performance.md
("The writer's indexes, measured with real rows").
"""

from __future__ import annotations

import argparse
import json
import math
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_store

from rollbridge.stores import SQLiteStore
from rollbridge.stores.sqlite import _as_stored

Row = tuple[tuple[Any, ...], list[tuple[Any, ...]]]


#: The pragmas of a store's connection that change what a write costs, read from a
#: fresh store's (:func:`store_pragmas`) and set on every shape's connection.
PRAGMAS = ("foreign_keys", "synchronous", "temp_store", "journal_size_limit")


def store_pragmas(folder: Path) -> dict[str, Any]:
    """What a fresh :class:`SQLiteStore`'s connection has for :data:`PRAGMAS`: the
    foreign keys checked (a log row's and a reply row's table looked up), the
    statement journal of a multi-row insert kept in memory (past 64 KiB it spilled
    to a temporary file, a write a page), as the store's writes have them."""
    store = SQLiteStore(folder / "pragmas.db")
    try:
        conn = store._conn()
        return {name: conn.execute(f"PRAGMA {name}").fetchone()[0] for name in PRAGMAS}
    finally:
        store.close()


def connect(path: Path, pragmas: dict[str, Any]) -> sqlite3.Connection:
    """A connection to ``path`` in WAL with ``pragmas`` (:func:`store_pragmas`)."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    for name, value in pragmas.items():
        conn.execute(f"PRAGMA {name} = {int(value)}")
    return conn


def store_schema(folder: Path) -> list[str]:
    """The ``CREATE`` statements of the tables table (the foreign keys' target), the
    log and reply tables and their indexes, as a fresh store makes them."""
    store = SQLiteStore(folder / "schema.db")
    store.close()
    conn = sqlite3.connect(folder / "schema.db")
    found = conn.execute(
        "SELECT sql FROM sqlite_master WHERE tbl_name IN ('tables', 'log', 'replies')"
        " AND sql IS NOT NULL ORDER BY tbl_name != 'tables', type DESC"
    ).fetchall()
    conn.close()
    return [sql for (sql,) in found]


def shapes(folder: Path) -> dict[str, list[str] | None]:
    """Each shape's statements (None: the bare baseline's)."""
    schema = store_schema(folder)
    without_rowid = [
        s + " WITHOUT ROWID" if s.startswith("CREATE TABLE replies") else s for s in schema
    ]
    return {
        "schema": schema,
        "replies without rowid": without_rowid,
        "no replies_by_seq": [s for s in without_rowid if "replies_by_seq" not in s],
        "replies in the log row": [s for s in schema if "replies" not in s],
        "bare": None,
    }


def make_rows(folder: Path, count: int) -> tuple[list[Any], list[tuple[str, Any]], list[Row]]:
    """The tables, the prepared commits, and the rows ``commit_many`` writes for them
    (a log row and its reply rows each)."""
    tables, commits = bench_store.make_commits(count)
    store = SQLiteStore(folder / "rows.db")
    prepared = [(table_id, store.prepare(commit)) for table_id, commit in commits]
    store.close()
    heads: dict[str, list[Any]] = {}
    rows: list[Row] = []
    for table_id, p in prepared:
        head = heads.setdefault(table_id, [p.epoch, p.seq, None, None, None])
        info, state = _as_stored(head, p)
        log_row = (table_id, p.seqs[0], p.seqs[-1], p.epoch, info, p.events, state)
        rows.append((log_row, [(table_id, key, reply, p.seq) for key, reply in p.replies]))
    return tables, prepared, rows


def _values(count: int, width: int) -> str:
    return ", ".join(["(" + ", ".join("?" * width) + ")"] * count)


def time_shape(
    path: Path, statements: list[str] | None, rows: list[Row], batch: int, pragmas: dict[str, Any]
) -> float:
    """CPU of this thread per commit, writing ``rows`` in transactions of ``batch``
    on a connection with the store's ``pragmas``; the tables' rows the foreign keys
    point to are written first, not timed."""
    conn = connect(path, pragmas)
    for statement in statements or ["CREATE TABLE bare (data BLOB NOT NULL)"]:
        conn.execute(statement)
    if statements is not None:
        conn.executemany(
            "INSERT INTO tables (id, name, ruleset, ruleset_version, settings, epoch, seq,"
            " meta, created) VALUES (?, '', '', '', x'', 1, 0, x'', 0)",
            [(table_id,) for table_id in dict.fromkeys(log[0] for log, _ in rows)],
        )
    with_replies = statements is not None and any("TABLE replies" in s for s in statements)
    start = time.thread_time()
    for first in range(0, len(rows), batch):
        chunk = rows[first : first + batch]
        conn.execute("BEGIN IMMEDIATE")
        if statements is None:
            blobs = [
                (log[4] or b"") + log[5] + log[6] + b"".join(r[2] for r in replies)
                for log, replies in chunk
            ]
            conn.execute(f"INSERT INTO bare VALUES {_values(len(blobs), 1)}", blobs)
        else:
            logs = [log for log, _ in chunk]
            if not with_replies:  # the replies' bytes ride in the log row's events blob
                logs = [
                    (*log[:5], log[5] + b"".join(r[2] for r in rs), log[6]) for log, rs in chunk
                ]
            conn.execute(
                f'INSERT INTO log ("table", first, last, epoch, info, events, state) VALUES'
                f" {_values(len(logs), 7)}",
                [v for r in logs for v in r],
            )
            replies = [r for _, rs in chunk for r in rs]
            if with_replies and replies:
                conn.execute(
                    f'INSERT OR REPLACE INTO replies ("table", key, reply, seq) VALUES'
                    f" {_values(len(replies), 4)}",
                    [v for r in replies for v in r],
                )
        conn.execute("COMMIT")
    spent = time.thread_time() - start
    conn.close()
    return spent / len(rows) * 1e6


def time_store(folder: Path, tables: list[Any], prepared: list[Any], batch: int) -> float:
    """CPU of this thread per commit of :meth:`SQLiteStore.commit_many` itself."""
    store = SQLiteStore(folder / f"store-{time.perf_counter_ns()}.db")
    for info, tokens in tables:
        store.create_table(info, tokens)
    start = time.thread_time()
    for first in range(0, len(prepared), batch):
        store.commit_many(prepared[first : first + batch])
    spent = time.thread_time() - start
    store.close()
    return spent / len(prepared) * 1e6


def least(repeats: int, run: Callable[[], float]) -> float:
    """The least of ``repeats`` runs."""
    return min(run() for _ in range(repeats))


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run, print the table; the figures: ``{"cpu_us": {shape: µs}, "ratio": {...}}``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=2048, help="commits per run")
    parser.add_argument("--batch", type=int, default=17, help="commits per transaction")
    parser.add_argument("--repeats", type=int, default=3, help="runs; the least is reported")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="rollbridge-shapes-") as tmp:
        folder = Path(tmp)
        tables, prepared, rows = make_rows(folder, args.commits)
        pragmas = store_pragmas(folder)
        cpu: dict[str, float] = {}
        for name, statements in shapes(folder).items():
            cpu[name] = least(
                args.repeats,
                lambda s=statements: time_shape(
                    folder / f"shape-{time.perf_counter_ns()}.db", s, rows, args.batch, pragmas
                ),
            )
        cpu["commit_many"] = least(
            args.repeats, lambda: time_store(folder, tables, prepared, args.batch)
        )
    ratio = {name: value / cpu["bare"] for name, value in cpu.items()}
    figures = {"commits": len(rows), "batch": args.batch, "cpu_us": cpu, "ratio": ratio}
    if args.json:
        print(json.dumps(figures))
        return figures
    print(f"{len(rows)} commits, {args.batch} a transaction, synchronous=FULL, WAL; "
          f"least of {args.repeats}; CPU of this thread per commit")  # fmt: skip
    print(f"{'shape':<24}{'µs':>8}{'/ bare':>9}")
    for name, value in cpu.items():
        print(f"{name:<24}{value:>8.1f}{ratio[name]:>9.2f}")
    if not all(math.isfinite(v) for v in cpu.values()):  # pragma: no cover
        raise SystemExit("a figure is not finite")
    return figures


if __name__ == "__main__":
    main()
