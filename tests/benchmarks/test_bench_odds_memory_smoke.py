"""benchmarks/bench_odds_memory.py runs at a tiny size against a real ``rollbridge
serve``: every distinct formula is answered (refused, too large for a reply) and the
server's memory is read (the figures are in docs/performance.md, never asserted:
the memory of a process is not a test; tests/server/test_server_odds.py asserts what
the caches keep)."""

from __future__ import annotations


def test_distinct_formulas_are_asked_and_the_servers_memory_read(benchmark_script, tmp_path):
    bench = benchmark_script("bench_odds_memory")
    figures = bench.main(["--cycles", "4", "--idle", "0", "--dir", str(tmp_path)])
    assert figures["replies"] == {"dice_limit": 4}  # 8d2500 … 8d2497
    assert figures["rss_before_mb"] > 0 and figures["rss_after_0s_mb"] > 0
    assert list(tmp_path.iterdir()) == []  # nothing left behind in --dir
