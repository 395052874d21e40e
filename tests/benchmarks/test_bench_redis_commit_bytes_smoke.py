"""benchmarks/bench_redis_commit_bytes.py runs as docs/performance.md tells ("Scale-out
over Redis", "A commit sends only what changed"): a tiny run counts every phase, and
a roll while requests wait sends no more than one without (bytes counted by Redis;
never time)."""

from __future__ import annotations

import shutil

import pytest

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="no redis-server")


def test_every_phase_is_counted(benchmark_script, capsys):
    figures = benchmark_script("bench_redis_commit_bytes").main(["--requests", "3"])
    assert list(figures) == ["roll", "attack", "waiting roll", "waiting attack", "approve"]
    assert figures["waiting attack"]["median"] > 50_000  # its undo stack changes: the meta is sent
    assert figures["approve"]["requests"] == 8
    assert 0 < figures["roll"]["max"] < 2_000
    assert figures["waiting roll"]["max"] <= figures["roll"]["max"] + 200
    assert figures["approve"]["min"] > 50_000  # the waiting list changes: sent
    assert "waiting roll" in capsys.readouterr().out
