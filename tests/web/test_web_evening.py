"""A GM's long evening on a laptop, by keyboard alone (browser/evening.mjs): hundreds
of events in the log, the GM reading older ones when a player's request comes in.

On a laptop the log did not scroll inside the page: 200 entries made the page some
26,000 px tall, the GM's controls (the requests waiting for approval among them)
scrolled far out of sight while older entries were read, and a new result or request
came in out of sight with nothing saying so. Now the log scrolls in the screen's
height on a laptop too (the keyboard scrolls it, the page stays), the entry being
read stays where it is on the screen when a new one comes in on top, a button above
the log says how many came in, in the page's language, and brings back the newest.
Needs what tests/web/test_web_browser.py needs; skipped without chromium.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.web.test_web_away import gm_rolls
from tests.web.test_web_browser import CHROMIUM
from tests.web.test_web_i18n import catalog
from tests.web.test_web_phone import run_case

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no {CHROMIUM}")


@pytest.mark.parametrize("lang", ["cs", "de", "ru"])
async def test_a_gm_reading_older_entries_keeps_the_place_and_is_told_of_new_ones(web_world, lang):
    await gm_rolls(web_world, 300, table="approval")
    result = await run_case(web_world, lang, script="evening.mjs")
    assert "failed" not in result, result
    joined = result["joined"]
    assert joined["log"]["entries"] >= 200, joined
    # the log scrolls inside the laptop's screen (it made the page 26,000 px tall)
    assert joined["log"]["content"] > joined["log"]["height"], joined
    assert joined["log"]["height"] < joined["screen"], joined
    reading = result["reading"]
    assert reading["focus"] == "log" and reading["log"]["top"] > 0, reading
    assert reading["windowY"] == 0, reading  # the keys scrolled the log, not the page
    assert reading["newer"] == {"hidden": True, "text": ""}, reading
    arrived = result["arrived"]
    # the entry being read is where it was on the screen
    assert arrived["read"]["seq"] == reading["read"]["seq"], (reading, arrived)
    assert abs(arrived["read"]["at"] - reading["read"]["at"]) < 1, (reading, arrived)
    one = catalog(lang)["ROLLBRIDGE.Web.Log.Newer.one"].replace("{count}", "1")
    assert arrived["newer"] == {"hidden": False, "text": one}, arrived["newer"]
    assert len(arrived["waiting"]) == 1 and arrived["windowY"] == 0, arrived
    assert result["onButton"] == "log-newer", result
    back = result["back"]
    assert back["log"]["top"] == 0 and back["focus"] == "log", back
    assert back["newer"] == {"hidden": True, "text": ""}, back
    assert "kind-approval-requested" in back["first"], back
