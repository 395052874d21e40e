"""examples/cluster_walk.py runs: three ``serve --redis`` processes behind nginx, a
table played through it, a process restarted as systemd would and Redis restarted
under the three, every step holding (docs/redis.md, "Walking three processes").
Real redis-server, nginx and processes; skipped where either is not installed."""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "examples" / "cluster_walk.py"
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if pathlib.Path("/usr/sbin/nginx").exists()
                                  else None)  # fmt: skip

pytestmark = pytest.mark.skipif(
    shutil.which("redis-server") is None or NGINX is None, reason="no redis-server or nginx"
)


def test_the_walk_of_three_processes_behind_nginx_holds_at_every_step():
    result = subprocess.run([sys.executable, str(SCRIPT), "--json"], capture_output=True,
                            text=True, timeout=300, cwd=ROOT)  # fmt: skip
    document = json.loads(result.stdout)
    assert result.returncode == 0 and document["ok"], (document["failed"], result.stderr[-2000:])
    steps = {step["step"]: step for step in document["steps"]}
    assert list(steps)[:6] == ["start", "play", "spread", "restart", "redis down", "redis back"]
    assert all(step["ok"] for step in document["steps"])
    assert steps["redis down"]["ready"] == [503] * 3
    assert steps["redis back"]["ready"] == [200] * 3
    assert steps["redis back"]["failing"] == [0.0] * 3
    assert steps["restart"]["exit"] == 0  # a SIGTERM is a clean stop, as systemd expects
    assert [s for s in steps if s.startswith("log of process")] == [
        f"log of process {i}" for i in range(3)
    ]
    assert not pathlib.Path(document["folder"]).exists()  # removed without --keep


def test_the_walk_run_by_a_python_without_rollbridge_says_how_to_install_it():
    """docs/redis.md's steps on a fresh machine: a Python where rollbridge is not
    installed (``-S``: no site-packages) ended in a ModuleNotFoundError traceback of
    websockets; it says what to install and exits 2, as for a missing nginx."""
    result = subprocess.run([sys.executable, "-S", str(SCRIPT)], capture_output=True,
                            text=True, timeout=60, cwd=ROOT)  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert "rollbridge is not installed in this Python" in result.stderr
    assert "pip install -e ." in result.stderr
