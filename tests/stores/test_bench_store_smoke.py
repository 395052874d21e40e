"""benchmarks/bench_store.py runs as docs/performance.md tells ("SQLite store: commits
per second", "Redis store"): a tiny run of each documented command ends well and
reports a figure for every mode. It lives beside the store tests for their real
``redis-server``. Nothing here asserts on speed (tests never assert on time)."""

from __future__ import annotations

import math

import pytest

MODES = ["commit", "batch 1", "batch 8", "batch 32", "batch 128"]


@pytest.fixture(scope="module")
def bench(benchmark_script):
    return benchmark_script("bench_store")


def positive(value: float) -> bool:
    return isinstance(value, int | float) and math.isfinite(value) and value > 0


def test_every_mode_and_codec_is_measured(bench, tmp_path, capsys):
    """The first command of docs/performance.md, small: ``--codec`` packs the
    commits' stored form (texts as data), which both codecs can write."""
    figures = bench.main(["--commits", "16", "--repeats", "1", "--codec", "--dir", str(tmp_path)])
    assert list(figures["modes"]) == MODES
    for row in figures["modes"].values():
        for key in ("store", "bare", "store_cpu_us", "bare_cpu_us"):
            assert positive(row[key]), (key, row)
    codec = figures["codec"]
    for name in ("msgpack pack", "json dumps", "plain pack", "plain dumps_json",
                 "msgpack unpack", "json loads", "plain unpack", "plain loads_json"):  # fmt: skip
        assert positive(codec[name]), name
    assert 0 < codec["msgpack bytes"] < codec["json bytes"]
    out = capsys.readouterr().out
    assert "store/bare" in out and "CPU ratio" in out
    assert list(tmp_path.iterdir()) == []  # nothing left behind in --dir


def test_a_pruned_log_is_measured(bench, tmp_path, monkeypatch):
    """``--retain`` below the commits: a snapshot prunes the log to what is retained.
    (A table is snapshotted every ``SNAPSHOT_EVERY`` events, 128: more than a tiny
    run gives a table, so the test snapshots every 4.)"""
    from rollbridge.stores import sqlite

    monkeypatch.setattr(sqlite, "SNAPSHOT_EVERY", 4)
    kept: list[int] = []
    snapshot = sqlite.SQLiteStore._snapshot

    def counting(store, conn, table_id, extra):
        seq = snapshot(store, conn, table_id, extra)
        rows = conn.execute('SELECT count(*) FROM log WHERE "table" = ?', (table_id,))
        kept.append(rows.fetchone()[0])
        return seq

    monkeypatch.setattr(sqlite.SQLiteStore, "_snapshot", counting)
    figures = bench.main(["--commits", "48", "--repeats", "1", "--retain", "2",
                          "--dir", str(tmp_path)])  # fmt: skip
    assert all(positive(row["store"]) for row in figures["modes"].values())
    assert kept and max(kept) <= 2  # each snapshot left at most the two retained rows


def test_the_redis_store_is_measured_against_sqlite(bench, tmp_path, redis_server):
    figures = bench.main(["--commits", "16", "--repeats", "1", "--dir", str(tmp_path),
                          "--redis", redis_server.url])  # fmt: skip
    assert list(figures["modes"]) == MODES
    for row in figures["modes"].values():
        assert positive(row["redis"])
        assert positive(row["redis_client_cpu_us"])
        assert row["redis_server_cpu_us"] >= 0
