"""benchmarks/bench_sr2.py runs at a tiny size and reports the attack, both
baselines and their ratio (the figures themselves are recorded in
docs/performance.md, never asserted: speed is not a test)."""

from __future__ import annotations

import math


def test_an_attack_is_measured_against_its_dice(benchmark_script, capsys):
    bench = benchmark_script("bench_sr2")
    figures = bench.main(["--attacks", "40", "--repeats", "1"])
    for key in ("attack_us", "baseline_us", "draws_us", "ratio"):
        assert math.isfinite(figures[key]) and figures[key] > 0, key
    assert math.isclose(figures["ratio"], figures["attack_us"] / figures["baseline_us"])
    out = capsys.readouterr().out
    assert "sr2 attack resolve" in out and "hit rate" in out
