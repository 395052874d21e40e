"""Running one of tests/foundry/live/*.mjs: the module's client on the Foundry
stand-in in Node, over real WebSockets (the ``ws`` package that ``npm ci`` in
tests/foundry installs), against a server the test or the script starts."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent


def needs_node() -> str:
    """Node's path; the test fails, saying what to install, without it or ``ws``."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("the Foundry module's tests need Node.js 20 (node) on the PATH")
    if not (HERE / "node_modules" / "ws").is_dir():
        pytest.fail("tests/foundry/node_modules lacks ws: run npm ci --prefix tests/foundry")
    return node


def run_live(
    node: str, script: str, env: Mapping[str, str], timeout: int
) -> subprocess.CompletedProcess:
    """``tests/foundry/live/<script>`` under Node with the module's release layout."""
    layout = str((HERE / "js" / "release-layout.mjs").relative_to(ROOT))
    return subprocess.run(
        [node, "--import", f"./{layout}", str(HERE / "live" / script)],
        cwd=ROOT,
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def live_result(run: subprocess.CompletedProcess) -> dict:
    """The JSON of the script's ``RESULT`` line."""
    line = next(x for x in run.stdout.splitlines() if x.startswith("RESULT "))
    return json.loads(line.removeprefix("RESULT "))


def walk(script: str, folder: Path, timeout: int = 300) -> dict:
    """Run the walk ``tests/foundry/live/<script>`` (ROLLBRIDGE_PYTHON this Python,
    RB_DIR ``folder``): it went through, and no token reached its output. Its steps."""
    node = needs_node()
    env = {**os.environ, "ROLLBRIDGE_PYTHON": sys.executable, "RB_DIR": str(folder)}
    run = run_live(node, script, env, timeout=timeout)
    output = run.stdout + run.stderr
    assert "rbt_" not in output, "a token reached the output"
    assert run.returncode == 0, output[-6000:]
    return live_result(run)["steps"]


def clean_walk(script: str, folder: Path, timeout: int = 300) -> dict:
    """:func:`walk`'s steps, each checked to have posted no card twice and shown no
    error notice."""
    steps = walk(script, folder, timeout)
    for name, step in steps.items():
        assert step["duplicates"] == [], f"{name}: a card posted twice"
        assert not [n for n in step["notices"] if n.startswith("error")], (name, step["notices"])
    return steps
