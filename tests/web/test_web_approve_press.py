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


@pytest.mark.parametrize("how", ["mouse", "touch"])
async def test_a_press_that_opens_a_menu_does_not_hold_the_list(web_world, how):
    """A right-click's release goes to its context menu, a long press opens the
    phone's: no lift and no click come. The list waited for the lift, and a request
    coming in was not shown until the GM clicked somewhere else."""
    result = await run_case(web_world, "menu", script="approve_press.mjs", extra={"RB_HOW": how})
    assert len(result["items"]) == 2, result
    assert "first ask" in result["items"][0] and "second ask" in result["items"][1], result


async def test_the_list_drawn_between_the_lift_and_the_task_after_it_stays(web_world):
    """The approval's event drawn before the drawing that waited for the lift: that
    drawing, stale, is dropped. It drew the list's place anew with nothing, and the
    GM saw the word "undefined" where the waiting request was."""
    result = await run_case(web_world, "between", script="approve_press.mjs")
    assert result["held"] >= 1, result  # the lift's task waited until the list was drawn
    after = result["after"]
    assert len(after["items"]) == 1 and "second ask" in after["items"][0], result
    assert "undefined" not in after["text"], result
