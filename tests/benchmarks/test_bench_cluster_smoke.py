"""benchmarks/bench_cluster.py runs: a tiny run of every configuration ends well
and prints well-formed figures. Nothing here asserts on speed (docs/performance.md:
tests never assert on time)."""

from __future__ import annotations

import json
import math
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "bench_cluster.py"

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="no redis-server")


def positive(value: float) -> bool:
    return isinstance(value, int | float) and not math.isnan(value) and value > 0


def test_every_configuration_runs_and_reports_cpu_per_request():
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--tables", "2", "--warmup", "0.2", "--duration", "0.6",
         "--rounds", "1", "--json", "--no-pin"],
        capture_output=True, text=True, timeout=240, cwd=ROOT,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-4000:]
    document = json.loads(result.stdout)
    assert document["mode"] == "cluster"
    assert document["machine"]["cpus"] >= 1
    configs = ["sqlite", "sqlite-2", "redis-1", "redis-2-affinity", "redis-2-spread", "baseline"]
    assert [r["config"] for r in document["runs"]] == configs
    for run in document["runs"]:
        assert run["requests"] > 0
        assert run["errors"] == {}
        assert run["p50_ms"] <= run["p99_ms"]
        assert set(run["mix"]) <= {"attack", "roll", "heal"}
        assert positive(run["cpu_us_per_request"])
        processes = {k for k in run if k.startswith("server_cpu_")}
        if run["config"].startswith("redis"):
            assert "server_cpu_redis" in processes
            assert run["redis_calls_per_request"]["evalsha"] > 0  # the commit script ran
        two = run["config"].startswith("redis-2") or run["config"] == "sqlite-2"
        assert run["processes"] == (2 if two else 1)
    servers = document["summary"]["servers"]
    assert set(servers) == set(configs)
    for config in configs[1:5]:
        assert positive(servers[config]["cpu_per_request_vs_sqlite"])
        assert positive(servers[config]["throughput_vs_baseline"])
    goals = document["summary"]["goals"]
    assert isinstance(goals["cpu_redis-1"]["met"], bool)
    # two Redis processes are also compared with two SQLite processes (tables split)
    assert positive(servers["redis-2-affinity"]["cpu_per_request_vs_sqlite_2"])
    assert isinstance(goals["cpu_redis-2-affinity_vs_sqlite-2"]["met"], bool)
