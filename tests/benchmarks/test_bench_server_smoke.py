"""benchmarks/bench_server.py runs: each mode, at a tiny size, ends well and
prints well-formed figures. Nothing here asserts on speed (docs/performance.md:
tests never assert on time)."""

from __future__ import annotations

import json
import math
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "bench_server.py"


def run(*args: str) -> dict:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), *args, "--json", "--no-pin"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    document = json.loads(result.stdout)
    assert document["machine"]["cpus"] >= 1
    return document


def positive(value: float) -> bool:
    return isinstance(value, int | float) and not math.isnan(value) and value > 0


def test_throughput_mode():
    document = run(
        "throughput", "--tables", "1", "--warmup", "0.3", "--duration", "0.7", "--rounds", "1",
        "--cost-requests", "20",
    )  # fmt: skip
    assert document["mode"] == "throughput"
    assert [r["server"] for r in document["runs"]] == ["baseline", "rollbridge"]
    for run_figures in document["runs"]:
        assert run_figures["requests"] > 0
        assert run_figures["errors"] == {}
        assert run_figures["p50_ms"] <= run_figures["p99_ms"]
        assert {"attack", "roll"} <= set(run_figures["mix"]) <= {"attack", "roll", "heal"}
    summary = document["summary"]
    assert positive(summary["ratio"])
    assert isinstance(summary["goal_met"], bool)
    mine = summary["servers"]["rollbridge"]
    assert positive(mine["cpu_us_per_request"])
    # issue 12's goal, judged from the run's own figures
    assert summary["goal_pipeline"] == {"us_per_request": 300, "ratio": 0.30}
    assert summary["goal_pipeline_met"] == (
        mine["cpu_us_per_request"] <= 300 and summary["ratio"] >= 0.30
    )
    costs = document["inprocess_us_per_request"]
    assert set(costs) == {"rollbridge"}
    assert all(positive(steps["total"]) for steps in costs.values())


def test_throughput_roll_mix_sends_only_rolls():
    """``--mix roll``: the pipeline's floor, 3d6 rolls and nothing else, to both servers."""
    document = run(
        "throughput", "--tables", "1", "--warmup", "0.3", "--duration", "0.5", "--rounds", "1",
        "--cost-requests", "10", "--mix", "roll",
    )  # fmt: skip
    assert document["config"]["mix"] == "roll"
    for run_figures in document["runs"]:
        assert set(run_figures["mix"]) == {"roll"}
        assert run_figures["errors"] == {}
    assert positive(document["summary"]["servers"]["rollbridge"]["cpu_us_per_request"])


def test_every_variant_runs_and_serves_without_errors(benchmark_script):
    """Each benchmark-only variant still applies to the server as it is now (a variant
    that patches a name the server no longer has fails here, not in a measurement).
    The loop variants need packages rollbridge does not depend on (uvloop)."""
    variants = benchmark_script("bench_server_variants")
    names = [name for name in variants.VARIANTS if name not in variants.LOOP_VARIANTS]
    document = run(
        "throughput", "--tables", "1", "--warmup", "0.2", "--duration", "0.3", "--rounds", "1",
        "--cost-requests", "5", "--variants", *names,
    )  # fmt: skip
    runs = {r["server"]: r for r in document["runs"]}
    assert set(runs) == {"baseline", "rollbridge", *(f"rollbridge+{n}" for n in names)}
    for name, figures in runs.items():
        assert figures["requests"] > 0 and figures["errors"] == {}, name


def test_scale_mode():
    document = run(
        "scale", "--tables", "2", "--rate", "20", "--warmup", "0.2", "--duration", "0.8",
        "--breakdown", "6", "--variants", "sync-off",
    )  # fmt: skip
    assert document["mode"] == "scale"
    servers = document["servers"]
    assert set(servers) == {"rollbridge", "rollbridge+sync-off"}
    for entry in servers.values():
        assert entry["memory"]["connections"] == 12
        assert entry["memory"]["sessions"] == 2
        assert isinstance(entry["memory"]["kb_per_connection"], int | float)
        (steady,) = entry["steady"]
        assert steady["requests"] > 0
        assert steady["errors"] == {}
    breakdown = servers["rollbridge"]["breakdown"]
    assert breakdown["connections"] == 6
    assert breakdown["top"] and all("where" in row for row in breakdown["top"])
    assert document["baseline_memory"]["connections"] == 12


def test_compression_mode():
    document = run(
        "compression", "--tables", "1", "--memory-tables", "2", "--events", "3", "--repeats",
        "1", "--warmup", "0.2", "--duration", "0.6", "--rounds", "1",
    )  # fmt: skip
    assert document["mode"] == "compression"
    frames = document["frames"]
    assert {row["encoding"] for row in frames} == {"msgpack", "json"}
    assert {"welcome (sr2, 2 actors)", "sr2 attack resolution event"} <= {
        row["frame"] for row in frames
    }
    for row in frames:
        assert 0 < row["deflate_bytes"] < row["raw_bytes"]
        assert positive(row["encode_us"])
    off, deflate = document["memory"]
    assert (off["compression"], off["negotiated"]) == ("off", False)
    assert (deflate["compression"], deflate["negotiated"]) == ("deflate", True)
    assert {r["compression"] for r in document["throughput"]} == {"off", "deflate"}
    assert all(r["requests"] > 0 and r["errors"] == {} for r in document["throughput"])


def test_py_spy_samples_are_sorted_by_phase(benchmark_script):
    """The py-spy summary (the tool itself is optional) sorts samples by phase."""
    module = benchmark_script("bench_server")
    raw = (
        "thread (1): MainThread;run (asyncio/events.py:80);"
        "view_of (core/text.py:480);_render (core/text.py:300) 3\n"
        "thread (1): MainThread;run (asyncio/events.py:80);Client._drain (core/server/"
        "client.py:126) 1\n"
        "thread (2): rollbridge-writer;CommitWriter._write (core/server/writer.py:110);"
        "SQLiteStore._transaction (core/stores/sqlite.py:360) 2\n"
    )
    summary = module.spy_summary(raw)
    assert summary["loop"]["samples"] == 4
    assert summary["loop"]["phases"][0] == {
        "phase": "texts: rendered per audience (text.py)",
        "share": 0.75,
    }
    assert summary["writer"]["phases"] == [
        {"phase": "BEGIN / COMMIT (fsync of the WAL)", "share": 1.0}
    ]
