"""axe-core's accessibility rules on the table page, in real headless Chromium
against a real server: browser/axe.mjs opens the page as the GM, a player and an
observer, on a 1280×800 laptop and a 360×740 phone, at a table with actors, a log
holding an attack and a rejection with the GM's reason, a running encounter, a roll
waiting for the GM's approval (the GM's field for a reason open), the
odds of a roll shown, the statistics drawn and the log's steps unfolded — and the
join form before joining — and runs axe on each (WCAG 2.0 to 2.2 A and AA, axe's
best practices and its experimental rules); this test fails on any violation it
reports.

Needs what tests/web/test_web_browser.py needs, and axe-core in
tests/foundry/node_modules (``npm ci --prefix tests/foundry``); skipped without
chromium.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.web.test_web_browser import CHROMIUM, FOUNDRY
from tests.web.test_web_phone import run_case

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no {CHROMIUM}")


async def test_axe_finds_nothing_on_the_table_page(web_world):
    """Each role's page on a laptop and on a phone: no rule of axe violated."""
    if not (FOUNDRY / "node_modules" / "axe-core").is_dir():
        pytest.fail("the axe test needs axe-core (npm ci --prefix tests/foundry)")
    result = await run_case(web_world, "table", script="axe.mjs")
    assert result["attack"]["type"] == "result", result["attack"]
    assert result["asked"].get("status") == "pending", result["asked"]
    assert result["rejected"].get("status") == "done", result["rejected"]
    pages = result["pages"]
    assert result["encounter"]["type"] == "result", result["encounter"]
    roles, screens = ("gm", "player", "observer", "join"), ("laptop", "phone")
    assert sorted(pages) == sorted(f"{role}-{screen}" for role in roles for screen in screens)
    found = {name: violations for name, violations in pages.items() if violations}
    assert found == {}, found
