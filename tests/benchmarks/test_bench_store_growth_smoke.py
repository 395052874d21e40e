"""benchmarks/bench_store_growth.py runs, and what it counts stops at the bounds
docs/operations.md ("What one table can store") gives: members and rows, never
bytes or time."""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "bench_store_growth.py"
RETAIN = 4

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="no redis-server")


def test_every_structure_stops_at_its_bound():
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--retain", str(RETAIN), "--json"],
        capture_output=True, text=True, timeout=600, cwd=ROOT,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-4000:]
    document = json.loads(result.stdout)
    window = document["reply_window"]
    assert window == 10 * RETAIN
    redis, sqlite = document["redis"], document["sqlite"]
    for name in ("rolls", "large", "actors", "pending", "worst", "verifiable"):
        for sample in redis[name]:
            keys = sample["keys"]
            assert keys["log"]["count"] <= RETAIN
            assert keys["commits"]["count"] <= RETAIN
            assert keys["replies"]["count"] <= window
            assert keys["reply_seqs"]["count"] == keys["replies"]["count"]
            assert keys["actors"]["count"] <= 1000
            assert sample["dbsize"] <= 14
        for sample in sqlite[name]:
            rows = sample["rows"]
            assert rows["log"] <= RETAIN + 128  # pruned at each snapshot (SNAPSHOT_EVERY)
            assert rows["replies"] <= window + 2 * 128
            assert set(sample["log_bytes"]) == {"info", "state", "events"}
    # the rolls went on past the window: the replies stopped at it
    assert redis["rolls"][-1]["requests"] > 2 * window
    assert redis["rolls"][-1]["keys"]["replies"]["count"] == window
    assert redis["actors"][-1]["keys"]["actors"]["count"] == 1000
    assert redis["refused"][0]["actors:limit_exceeded"] == 10
    assert redis["refused"][0]["pending:too_many_pending"] > 0
    assert sqlite["refused"] == redis["refused"]
    # a deleted table leaves nothing behind
    assert document["redis_deleted"]["keys"] == ["rb:counter", "rb:dice_key"]
    rows = document["sqlite_deleted"]["rows"]
    assert rows["tables"] == rows["log"] == rows["replies"] == rows["tokens"] == 0
