"""benchmarks/bench_attack.py runs at a tiny size: it times an sr2 attack and a 3d6
roll through the table's execute and prints the profile it is asked for (the times
are recorded in docs/performance.md, never asserted: speed is not a test)."""

from __future__ import annotations

import math


def test_an_attack_and_a_roll_are_timed_and_profiled(benchmark_script, capsys):
    bench = benchmark_script("bench_attack")
    figures = bench.main(["--requests", "4", "--warmup", "2", "--profile", "cumulative"])
    assert set(figures) == {
        "attack_execute_us",
        "attack_frames_commit_us",
        "roll_execute_us",
        "roll_frames_commit_us",
    }
    assert all(math.isfinite(value) and value >= 0 for value in figures.values())
    out = capsys.readouterr().out
    assert "sr2 attack" in out and "3d6 roll" in out
    assert "resolve_attack" in out  # the profile reached sr2's rules
