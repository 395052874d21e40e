"""The Foundry module reads a reason that shows nothing as the server does.

The server gives a rejection's reason that shows nothing (spaces, zero-width
characters, fillers: :func:`rollbridge.names.shows_nothing`) as ``""``, but a
rejection logged before it did keeps its reason, and the server replays it; the
module's own check (``showsNothing`` in ``core/rejection.mjs``) must then agree with
the server's on every character, or a card would draw empty quotes.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from rollbridge.names import shows_nothing

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SCRIPT = """
import { showsNothing } from "./adapters/foundry/module/scripts/core/rejection.mjs";
const found = [];
for (let c = 0; c <= 0x10ffff; c++) {
  if ((c < 0xd800 || c > 0xdfff) && showsNothing(String.fromCodePoint(c))) found.push(c);
}
console.log(JSON.stringify(found));
"""
#: Format characters Unicode 15 added (Egyptian hieroglyph controls), which a browser
#: knows and this Python's ``unicodedata`` may not yet.
NEWER_FORMAT = set(range(0x13439, 0x13440))


def test_every_character_the_server_reads_as_nothing_the_module_does_too():
    node = shutil.which("node")
    if node is None:
        pytest.fail("the Foundry module's tests need Node.js 20 (node) on the PATH")
    layout = str((HERE / "js" / "release-layout.mjs").relative_to(ROOT))
    run = subprocess.run(
        [node, "--import", f"./{layout}", "--input-type=module", "-e", SCRIPT],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    module = set(json.loads(run.stdout))
    server = {c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF and shows_nothing(chr(c))}
    assert {f"U+{c:04X}" for c in server - module} == set()
    assert {f"U+{c:04X}" for c in module - server - NEWER_FORMAT} == set()
    assert 0x200B in module and 0x0600 not in module
