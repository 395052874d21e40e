"""benchmarks/bench_shared_limits.py runs at a tiny size and reports every figure
(the times are recorded in docs/performance.md, never asserted: speed is not a
test)."""

from __future__ import annotations

import shutil

import pytest

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="no redis-server")


def test_joins_requests_and_scripts_are_timed(benchmark_script, capsys):
    bench = benchmark_script("bench_shared_limits")
    figures = bench.main(["--rounds", "1", "--count", "3", "--json"])
    assert figures["count"] == 3 and len(figures["rounds"]) == 1
    (round_,) = figures["rounds"]
    for name in ("join_off", "join_shared", "http_off", "http_shared",
                 "connections_script", "http_script", "ping"):  # fmt: skip
        assert round_[name]["p50_us"] > 0 and round_[name]["p90_us"] >= round_[name]["p50_us"]
    assert isinstance(round_["join_extra_p50_us"], int)
    assert '"rounds"' in capsys.readouterr().out
