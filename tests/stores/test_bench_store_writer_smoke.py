"""benchmarks/bench_store_writer.py runs as docs/performance.md tells ("The writer's
commit, 7 December (evening)"): a tiny run reports every figure, and what it counts
of a group commit is what the store does — five statements a group (``BEGIN
IMMEDIATE``, ``PRAGMA data_version``, one multi-row ``INSERT`` into the log and one
into the replies, ``COMMIT``), and WAL frames of the log's pages among others.
Nothing here asserts on speed (tests never assert on time)."""

from __future__ import annotations

import math

import pytest


@pytest.fixture(scope="module")
def bench(benchmark_script):
    return benchmark_script("bench_store_writer")


def positive(value: float) -> bool:
    return isinstance(value, int | float) and math.isfinite(value) and value > 0


def test_every_figure_is_reported(bench, capsys):
    figures = bench.main(["--commits", "16", "--groups", "2", "3", "--repeats", "1"])
    assert positive(figures["transaction_us"])
    assert list(figures["groups"]) == [2, 3]
    for row in figures["groups"].values():
        for sync in ("FULL", "OFF"):
            assert positive(row["cpu_us"][sync]) and positive(row["wall_us"][sync])
        assert row["snapshot_us"] >= 0
        assert row["frames"]["log"] > 0 and row["frames"]["page 1 (the file's header)"] > 0
    for size in (2, 3):  # one statement of each kind of row, whatever the group's size
        per_group = figures["groups"][size]["statements"]
        for kind in ("BEGIN IMMEDIATE", "PRAGMA data_version", "INSERT INTO", "INSERT OR",
                     "COMMIT"):  # fmt: skip
            assert per_group[kind] == 1.0, (size, kind, per_group)
    out = capsys.readouterr().out
    assert "groups of 2:" in out and "WAL frames a group" in out
