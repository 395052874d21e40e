"""benchmarks/bench_retry_read.py runs at a tiny size: a repeat after a restart and
later events reads only the events from its own to where the table's redaction
holds, and its event reads as it did live (the times are recorded in
docs/performance.md, never asserted: speed is not a test)."""

from __future__ import annotations

import math


def test_a_repeat_after_a_restart_is_timed(benchmark_script, tmp_path, capsys):
    bench = benchmark_script("bench_retry_read")
    argv = ["--before", "4", "--back", "2", "--after", "6", "--repeats", "2"]
    figures = bench.main([*argv, "--dir", str(tmp_path)])
    assert figures["events_read"] == 3  # seqs 4-6: from its own to the restart's
    assert figures["as_live"] == 1.0
    assert math.isfinite(figures["median_ms"]) and figures["median_ms"] > 0
    assert "ReadRecalled of 3 events" in capsys.readouterr().out  # a ReadEvents
