"""The GM's press on *Approve* while another player's request comes in, in real
headless Chromium against a real server (browser/approve_press.mjs). The list of
waiting requests is drawn anew at every change of the table; drawn anew between the
press and its release, it took the pressed button away and the click never came:
the GM had to press again, and knew it only by looking. Now the list waits until a
task after the press is lifted (its click done), then is drawn anew.

Needs what tests/web/test_web_browser.py needs; skipped without chromium.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.web.test_web_browser import CHROMIUM
from tests.web.test_web_phone import run_case

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no {CHROMIUM}")


@pytest.mark.parametrize("how", ["mouse", "touch"])
async def test_approve_pressed_while_another_request_comes_in_approves(web_world, how):
    result = await run_case(web_world, "press", script="approve_press.mjs", extra={"RB_HOW": how})
    assert result["underPress"] is True, result  # the press lands on Approve
    # while pressed, the list is left as it was: the button pressed is still there
    assert result["whilePressed"] == {"same": True, "items": 1}, result
    assert result["approved"] is True, result
    assert len(result["after"]) == 1 and "second ask" in result["after"][0], result
