"""benchmarks/bench_soak.py runs at a tiny size, against its own server child and
against `rollbridge serve`: every kind of churn it claims happens (each ruleset's
requests answered, refusals, resumes, strays, HTTP, tables made and deleted), and
after each cycle, with its clients gone, the server holds what its resident
clients hold and nothing more. The figures (RSS, growth) go to
docs/performance.md, never into an assertion."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "bench_soak.py"
TINY = ("--tables", "4", "--cycles", "2", "--warmup", "1", "--strays", "8", "--rotate", "1",
        "--resident", "1", "--settle", "0")  # fmt: skip


def run(*args: str) -> dict:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), *TINY, *args, "--json"],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    return json.loads(result.stdout)


def test_the_soak_churns_and_the_server_holds_only_its_residents():
    document = run()
    samples = document["samples"]
    assert [s["cycle"] for s in samples] == [0, 1, 2]
    for sample in samples[1:]:
        assert sample["gauges"] == {"connections": 1, "open_tables": 1}
        held = {k: v for k, v in sample["structures"].items() if v}
        assert held == {"clients": 1, "sockets": 1, "per_address": 1, "open_tables": 1,
                        "per_token": 1, "table_buckets": 1}  # fmt: skip
        assert sample["fds"] > 0 and sample["threads"] >= 2 and sample["tasks"] > 0
    replies = document["replies"]
    for answered in ("hello: welcome", "resolve: result", "roll: result", "odds: result",
                     "stats: result", "state: result", "undo: result", "approve: result",
                     "encounter.start: result", "actor.create: result"):  # fmt: skip
        assert replies.get(answered), answered
    for refused in ("?: error undecodable", "no.such.request: error unknown_type",
                    "resolve: error invalid_params", "ping: error rate_limited",
                    "hello: error unauthorized", "ping: error unauthorized"):  # fmt: skip
        assert replies.get(refused), refused
    http = document["http"]
    answered_http = ("page 200", "static 200", "admin create 201", "admin delete 200",
                     "admin token 201", "admin revoke 200", "/metrics 200",
                     "/readyz 200")  # fmt: skip
    for answered in answered_http:
        assert http.get(answered), answered
    assert any(key.startswith("export ") for key in http)
    logged = samples[-1]["log"]
    assert logged and not any(key.startswith(("WARNING", "ERROR", "CRITICAL")) for key in logged)


def test_the_soak_runs_against_rollbridge_serve():
    document = run("--cli")
    assert document["config"]["server"] == "rollbridge serve"
    for sample in document["samples"][1:]:
        assert sample["gauges"] == {"connections": 1, "open_tables": 1}
        assert sample["fds"] > 0 and "structures" not in sample
    assert document["replies"].get("resolve: result")


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = []
    for entry in pathlib.Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _running(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting to be reaped does not)."""
    try:
        return pathlib.Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("mode", [(), ("--cli",)], ids=["child", "cli"])
def test_a_soak_killed_leaves_no_server_running(mode):
    """The soak killed outright (kill -9, or the timeout of the test above) takes its
    server with it. ``rollbridge serve`` (``--cli``) reads no stdin, so nothing told
    it its soak was gone: it ran on for good, reparented to init, on a port and a
    database in a temporary folder nobody would remove (found by review)."""
    bench = subprocess.Popen(
        [sys.executable, str(SCRIPT), *TINY[:2], "--cycles", "50", *TINY[4:], *mode, "--json"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT,
    )  # fmt: skip
    servers: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while not servers and time.monotonic() < deadline and bench.poll() is None:
            time.sleep(0.1)
            servers = _children(bench.pid)
        assert servers, "the soak started no server"
        time.sleep(1.0)  # serving, past its start
        bench.kill()
        bench.wait()
        deadline = time.monotonic() + 15
        while any(map(_running, servers)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(map(_running, servers)), "the server outlived its soak"
    finally:
        if bench.poll() is None:
            bench.kill()
            bench.wait()
        for pid in servers:  # only the soak's own server
            if _running(pid):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.skipif(shutil.which("redis-server") is None and not pathlib.Path(
    "/usr/bin/redis-server").exists(), reason="redis-server is not installed")  # fmt: skip
def test_the_soak_runs_two_serve_redis_processes_on_one_redis():
    """``--redis``: two processes on a redis-server of the soak's own, a table's GM on
    one and its player on the other (changes forwarded to the lease owner), process B
    killed and started again, a table deleted in play each cycle; after each cycle
    both processes hold their resident observers' tables and nothing of the others
    (nor a failed commit's mark of the deleted table in the writer), and Redis holds
    no key of a deleted table, no process's inbox or replies list, no subscription but
    the followers'."""
    document = run("--redis", "--lease-ms", "300", "--cycles", "3")
    assert document["config"]["restart"] == "kill B after cycle 2"
    samples = document["samples"]
    assert [s["cycle"] for s in samples] == [0, 1, 2, 3]
    for sample in samples[1:]:
        assert sample["gauges"] == [{"connections": 1, "open_tables": 1}] * 2
        for process in (sample["a"], sample["b"]):
            held = {k: v for k, v in process["structures"].items()
                    if v and k not in ("counted", "loops")}  # fmt: skip
            # (writer_poisoned, a deleted table's failed commit, is not among them)
            assert held.keys() <= {"clients", "sockets", "per_address", "open_tables",
                                   "per_token", "table_buckets", "owned", "renewed",
                                   "used"}, held  # fmt: skip
            assert held["clients"] == held["open_tables"] == 1
            assert process["structures"]["loops"] == 4
        redis = sample["redis"]
        assert redis["orphan_tables"] == 0
        assert not [kind for kind in redis["keys"] if kind.startswith("node:")]
        assert redis["keys"]["owner"] <= 1  # the resident table's lease, if any
        assert redis["subscribers"] <= 1  # the process following the resident table
    # forwarded: the owner counted changes that came from the other process
    assert sum(s[p]["structures"]["counted"] for s in samples[1:] for p in "ab")
    for answered in ("hello: welcome", "resolve: result", "undo: result", "approve: result",
                     "encounter.start: result", "actor.create: result"):  # fmt: skip
        assert document["replies"].get(answered), answered
    assert document["http"].get("admin delete in play 200") == 3
