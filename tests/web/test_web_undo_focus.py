"""The GM's Undo button, used from the keyboard: when the last undo left nothing
to undo, the button was disabled in place, and Chromium moved the focus off a
disabled button to the page's body: a keyboard user lost the place (the buttons
are "brought up to date in place, so a keyboard's focus stays on them",
core/server/webui/controls.mjs). They are aria-disabled instead: focusable, and a
press sends nothing."""

from __future__ import annotations

import json

from tests.web.test_web_browser import CHROMIUM, pytestmark, run_script  # noqa: F401


async def test_the_undo_buttons_keep_the_keyboards_focus(web_world):
    env = {"RB_BASE": web_world.base, "RB_TOKENS": json.dumps(web_world.tokens),
           "RB_CHROMIUM": CHROMIUM}  # fmt: skip
    result = await run_script("undo_focus.mjs", env, [t for r in web_world.tokens.values()
                                                      for t in r.values()])  # fmt: skip
    steps = result["steps"]
    # each naming what it takes (the actors added, #1 to #3)
    named = ["Undo #2 (actor added)", "Undo #1 (actor added)"]
    assert [s["undo"] for s in steps[:2]] == named, steps
    assert steps[-1]["disabled"], steps
    assert steps[-1]["focus"] == "button[name=undo]", steps
    assert result["after"]["flushed"] is True, result  # all the page sent was answered
    assert result["after"]["undos"] == 3 and result["after"]["sent"] == 0, result  # nothing sent
    assert result["after"]["seq"] == result["after"]["before"], result
