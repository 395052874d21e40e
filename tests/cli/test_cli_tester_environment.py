"""A tester's own values of the variables rollbridge reads do not reach the tests nor
the processes they start: ``tests/conftest.py`` removes them when it loads (it
removed ``$ROLLBRIDGE_REDIS`` and ``$ROLLBRIDGE_DB`` only, and a tester's
``$ROLLBRIDGE_TOKEN``, ``$ROLLBRIDGE_PLUGINS`` or ``$ROLLBRIDGE_RECONNECT_DELAY``
still did), and its list holds every one the code reads."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: A variable the code reads, as written in its source.
VARIABLE = re.compile(r"\bROLLBRIDGE_[A-Z_]+\b")


def _read_by_the_code() -> set[str]:
    found: set[str] = set()
    for folder in ("core", "adapters", "plugins"):
        for source in (ROOT / folder).rglob("*.py"):
            found |= set(VARIABLE.findall(source.read_text(encoding="utf-8")))
    return found


def test_every_variable_the_code_reads_is_removed_and_the_tests_own_stay():
    read = _read_by_the_code()
    tester = {name: "from-the-tester" for name in read}
    tester["ROLLBRIDGE_FUZZ_SEED"] = "7"  # a test's own control: kept
    shown = subprocess.run(
        [sys.executable, "-c",
         "import json, os, tests.conftest; "
         "print(json.dumps(sorted(k for k in os.environ if k.startswith('ROLLBRIDGE_'))))"],
        cwd=ROOT, env={**os.environ, **tester}, capture_output=True, text=True, check=True,
        timeout=120,
    )  # fmt: skip
    assert json.loads(shown.stdout) == ["ROLLBRIDGE_FUZZ_SEED"], shown.stdout
    from tests.conftest import PROGRAM_VARIABLES

    assert read == set(PROGRAM_VARIABLES)
