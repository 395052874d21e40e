"""The Foundry module's protocol, connection, state and card logic under Node's
built-in test runner (tests/foundry/js/), run from pytest so the single test
command covers them (issue 8, item 3)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def test_the_module_logic_passes_nodes_test_runner():
    node = shutil.which("node")
    if node is None:
        pytest.fail("the Foundry module's tests need Node.js 20 (node) on the PATH")
    files = sorted(str(p.relative_to(ROOT)) for p in (HERE / "js").glob("*.test.mjs"))
    assert len(files) >= 5, files
    # the module's scripts/client/ as released: the shared client (adapters/client/)
    layout = str((HERE / "js" / "release-layout.mjs").relative_to(ROOT))
    run = subprocess.run(
        [node, "--import", f"./{layout}", "--test", *files],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        # the action dialog's tests read sr2's description from this Python's rollbridge
        env={**os.environ, "ROLLBRIDGE_PYTHON": sys.executable},
    )
    output = run.stdout + run.stderr
    assert run.returncode == 0, failures(output) or output[-8000:]
    assert "# fail 0" in run.stdout, failures(output) or output[-4000:]
    passed = int(run.stdout.split("# pass ")[1].split()[0])
    assert passed >= 35, output[-4000:]


def test_the_module_loads_without_a_build_step():
    """Every script is a plain ES module Node can parse as it is."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("the Foundry module's tests need Node.js 20 (node) on the PATH")
    scripts = sorted((ROOT / "adapters" / "foundry" / "module" / "scripts").rglob("*.mjs"))
    assert scripts
    for script in scripts:
        run = subprocess.run([node, "--check", str(script)], capture_output=True, text=True)
        assert run.returncode == 0, f"{script}: {run.stderr}"


def failures(output: str) -> str:
    """Each failed subtest of node's TAP output, with its diagnostics (the end of a
    long run's output names none of them)."""
    lines = output.splitlines()
    found: list[str] = []
    for index, line in enumerate(lines):
        if line.lstrip().startswith("not ok"):
            found.extend(lines[max(0, index - 1) : index + 40])
    return "\n".join(found)[-12000:]
