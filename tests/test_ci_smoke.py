"""The Python 3.13 smoke step of ``.ci/run`` (docs/operations.md, "Python versions"):
a machine without a working 3.13 skips it and says why; once it is installed, any of
its commands or tests that fails fails CI.

The step is run as ``.ci/run`` runs it (``bash`` with ``set -euo pipefail``, followed
by what comes after it in the script), with a stand-in interpreter: a shell script that
makes a stand-in venv whose ``rollbridge``, ``pip`` and ``pytest`` fail where the test
says. Nothing is installed and nothing reaches the network."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess

import pytest

CI = pathlib.Path(__file__).resolve().parents[1] / ".ci" / "run"
AFTER = "AFTER-THE-SMOKE-STEP"

#: The stand-in interpreter; ``FAKE_FAIL`` names what fails (``probe``, ``venv``,
#: ``pip``, ``roll``, ``resolve``, ``pytest``). Its venv's ``python`` and ``rollbridge``
#: are this same script, which tells them apart by the name it was called by.
FAKE = r"""#!/bin/sh
me=$(basename "$0")
fail() { [ "$FAKE_FAIL" = "$1" ] && { echo "stand-in: $1 fails" >&2; exit 3; }; return 0; }
if [ "$me" = rollbridge ]; then
    fail "$1"; echo "stand-in rollbridge $1"; exit 0
fi
case "$1 $2" in
    "-c "*) fail probe; exit 0 ;;
    "-m venv") fail venv; mkdir -p "$3/bin"
        cp "$0" "$3/bin/python"; cp "$0" "$3/bin/rollbridge"; exit 0 ;;
    "-m pip") fail pip; exit 0 ;;
    "-m pytest") fail pytest; echo "stand-in pytest passed"; exit 0 ;;
esac
echo "stand-in: unexpected $*" >&2; exit 4
"""


def smoke_step() -> str:
    """The lines of ``.ci/run`` from the smoke step's comment up to the README's
    command (its last line)."""
    text = CI.read_text(encoding="utf-8")
    start = text.index("# A short smoke run")
    end = text.index("npm ci --prefix")
    return text[start:end]


def run_step(tmp_path: pathlib.Path, fail: str, interpreter: str | None = None):
    fake = tmp_path / "bin" / "python3.13"
    fake.parent.mkdir(exist_ok=True)
    fake.write_text(FAKE)
    fake.chmod(0o755)
    work = tmp_path / "checkout"
    work.mkdir(exist_ok=True)
    script = "set -euo pipefail\n" + smoke_step() + f"echo {AFTER}\n"
    env = {
        "PATH": f"{fake.parent}{os.pathsep}/usr/bin{os.pathsep}/bin",
        "HOME": str(tmp_path),
        "FAKE_FAIL": fail,
        "ROLLBRIDGE_CI_PY313": interpreter if interpreter is not None else str(fake),
    }
    return subprocess.run(
        [shutil.which("bash") or "/bin/bash", "-c", script],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("fail", ["roll", "resolve", "pytest"])
def test_a_failing_command_or_test_under_313_fails_ci(tmp_path, fail):
    """The smoke step exists to catch a command that does not run under 3.13 (as no
    command did before the docstring's fix): the CLI's failure must stop CI as the
    tests' does, not be carried on past by the ``&&`` chain ``set -e`` ignores."""
    done = run_step(tmp_path, fail)
    assert done.returncode != 0, done.stdout + done.stderr
    assert AFTER not in done.stdout
    assert f"stand-in: {fail} fails" in done.stderr


@pytest.mark.parametrize(
    ("fail", "reason"),
    [
        ("probe", "does not run or has no venv module"),
        ("venv", "-m venv .venv-3.13 failed"),
        ("pip", "pip could not install"),
    ],
)
def test_a_313_that_cannot_be_set_up_is_skipped_and_says_why(tmp_path, fail, reason):
    """An interpreter that is there but broken, has no venv module, or whose install
    fails (no network, a library without a wheel) is the machine's, not rollbridge's:
    the step says it skipped and why, and CI goes on to the full suite."""
    done = run_step(tmp_path, fail)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Python 3.13 smoke run skipped:" in done.stdout
    assert reason in done.stdout
    assert AFTER in done.stdout
    assert "stand-in rollbridge" not in done.stdout


def test_no_313_is_skipped_and_said(tmp_path):
    """No ``python3.13`` on a PATH that holds nothing else (the machine's own PATH may
    hold one) and no ``ROLLBRIDGE_CI_PY313``."""
    done = run_step_without_path_313(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Python 3.13 smoke run skipped: no python3.13 on PATH" in done.stdout
    assert AFTER in done.stdout


def run_step_without_path_313(tmp_path: pathlib.Path):
    work = tmp_path / "checkout"
    work.mkdir(exist_ok=True)
    empty = tmp_path / "emptybin"
    empty.mkdir(exist_ok=True)
    for tool in ("basename", "mkdir", "cp"):
        if found := shutil.which(tool):
            (empty / tool).symlink_to(found)
    script = "set -euo pipefail\n" + smoke_step() + f"echo {AFTER}\n"
    return subprocess.run(
        [shutil.which("bash") or "/bin/bash", "-c", script],
        cwd=work,
        env={"PATH": str(empty), "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_working_313_runs_every_step(tmp_path):
    done = run_step(tmp_path, "")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "stand-in rollbridge roll" in done.stdout
    assert "stand-in rollbridge resolve" in done.stdout
    assert "stand-in pytest passed" in done.stdout
    assert "skipped" not in done.stdout
    assert AFTER in done.stdout
