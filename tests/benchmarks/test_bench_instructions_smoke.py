"""benchmarks/bench_instructions.py: the request mix it counts is deterministic — the
same pairs give the same frames and commits, byte for byte — and it exercises the
whole in-process path (a different number of pairs gives different bytes). The
instruction counts themselves need valgrind and are recorded in
docs/performance.md, never asserted: speed is not a test."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def bench(benchmark_script):
    return benchmark_script("bench_instructions")


def test_the_mix_makes_the_same_bytes_every_run(bench):
    first = bench.run_mix(3)
    assert first == bench.run_mix(3)
    assert len(first) == 64


def test_more_pairs_make_other_bytes(bench):
    assert bench.run_mix(3) != bench.run_mix(4)


def test_the_run_mode_prints_the_digest(bench, capsys):
    assert bench.main(["--run", "2"]) == 0
    assert capsys.readouterr().out.strip() == bench.run_mix(2)


def test_writing_the_commits_leaves_the_bytes_as_they_were(bench):
    """``--commit N`` writes each group commit for real (a refused commit would
    raise): the frames and commits are those of the mix without writing."""
    assert bench.run_mix(5, group=4) == bench.run_mix(5)


def test_the_mix_spread_over_tables_writes_each_table_s_own_log(bench):
    spread = bench.run_mix(6, group=5, tables=3)
    assert spread == bench.run_mix(6, tables=3)
    assert spread != bench.run_mix(6)  # three tables' mixes, not one table's
    assert bench.main(["--run", "6", "--commit", "5", "--tables", "3"]) == 0
