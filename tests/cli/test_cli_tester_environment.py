"""A tester's own values of the variables rollbridge reads do not reach the tests nor
the processes they start: ``tests/conftest.py`` removes them when it loads (it
removed ``$ROLLBRIDGE_REDIS`` and ``$ROLLBRIDGE_DB`` only, and a tester's
``$ROLLBRIDGE_TOKEN``, ``$ROLLBRIDGE_PLUGINS`` or ``$ROLLBRIDGE_RECONNECT_DELAY``
still did), and its list holds every one the code reads. So do a tester's proxies
(``http_proxy`` and the rest), which websockets' ``connect`` goes through: a test's
client reached the tester's proxy, not the test's server on 127.0.0.1."""

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


def test_a_testers_proxies_do_not_reach_the_tests_clients():
    """``rollbridge connect`` (websockets) in a test process goes to the server it is
    given, not through a proxy the tester's shell sets: each of urllib's spellings is
    removed, and the proxy a client would take (websockets' own choice) is none."""
    tester = {
        "http_proxy": "http://127.0.0.1:9",
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "all_proxy": "socks5://127.0.0.1:9",
        "ws_proxy": "http://127.0.0.1:9",
        "no_proxy": "example.org",
    }
    shown = subprocess.run(
        [sys.executable, "-c",
         "import json, os, tests.conftest; "
         "from websockets.proxy import get_proxy; from websockets.uri import parse_uri; "
         "print(json.dumps([sorted(k for k in os.environ if k.lower().endswith('_proxy')), "
         "get_proxy(parse_uri('ws://127.0.0.1:8/tables/t'))]))"],
        cwd=ROOT, env={**os.environ, **tester}, capture_output=True, text=True, check=True,
        timeout=120,
    )  # fmt: skip
    assert json.loads(shown.stdout) == [[], None], shown.stdout
