"""The GM's requests waiting for approval, in view on a laptop, and a player's line of
an approved roll after the evening went on (browser/waiting.mjs).

On a 1366×768 laptop the GM's controls come after the forms in their column: the
requests waiting started below the screen's edge, and nothing in view said that a
player waited. A button over the log's bottom edge now says how many wait, and takes
the GM to the first one's *Approve*. A player's line beside the roll form that said
the GM approved it vanished after a reload (a language chosen) once the approval's
event was further back than the 200 events the page loads on joining: it now names
the event by its number. Needs what tests/web/test_web_browser.py needs; skipped
without chromium.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.web.test_web_away import gm_rolls
from tests.web.test_web_browser import CHROMIUM
from tests.web.test_web_i18n import catalog
from tests.web.test_web_phone import run_case

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no {CHROMIUM}")


async def test_a_gm_on_a_laptop_sees_that_requests_wait(web_world):
    await gm_rolls(web_world, 300, table="approval")
    result = await run_case(web_world, "laptop", script="waiting.mjs")
    assert "failed" not in result, result
    assert result["before"] == {"hidden": True, "text": "", "inside": False}, result
    # the list itself is below the screen's edge (why the button is needed)
    assert result["list"]["inside"] is False, result
    two = catalog("de")["ROLLBRIDGE.Web.Log.Waiting.other"].replace("{count}", "2")
    assert result["jump"] == {"hidden": False, "text": two, "inside": True}, result
    focus = result["focus"]
    assert focus["name"] == "approve" and focus["pending"] == focus["first"], focus
    assert result["approve"]["inside"] is True, result
    assert result["after"]["hidden"] is True and result["after"]["text"] == "", result


async def test_the_button_wrapped_on_a_narrow_laptop_leaves_the_last_entry_in_view(web_world):
    await gm_rolls(web_world, 300, table="approval")
    result = await run_case(web_world, "wrapped", script="waiting.mjs")
    drawn = result["drawn"]
    # German words wrap in a 1024 px laptop's log column (to three lines over the
    # log's edge, two under it); read to its end, the log's last entry ends above the
    # button (it ended under it)
    assert drawn["lines"] >= 2 and drawn["atEnd"] is True, drawn
    assert drawn["lastBottom"] <= drawn["buttonTop"], drawn


async def test_on_a_phone_the_button_is_one_line_and_the_last_entry_stays_readable(web_world):
    await gm_rolls(web_world, 300, table="approval")
    result = await run_case(web_world, "phone", script="waiting.mjs")
    assert "failed" not in result, result
    for locale in ("ru-RU", "cs-CZ", "de-DE"):
        words = catalog(locale[:2])
        before, after = result["before"][locale], result["after"][locale]
        assert before["hidden"] is True, before
        # a few words on one line (the long ones wrapped to three lines, 95 px in
        # Russian), not cut, inside the log and the screen
        short = words["ROLLBRIDGE.Web.Log.WaitingShort.one"].replace("{count}", "1")
        full = words["ROLLBRIDGE.Web.Log.Waiting.one"].replace("{count}", "1")
        assert after["text"] == short and after["lines"] == 1, after
        assert after["cut"] is False and after["inside"] is True, after
        # the long words are its accessible name (Chromium's) and title
        assert after["label"] == full and after["title"] == full and after["named"] == 1, after
        # what is shown begins what is heard, in every plural form (WCAG 2.5.3: a voice
        # user says the words seen)
        for form in ("one", "few", "many", "other"):
            seen = words[f"ROLLBRIDGE.Web.Log.WaitingShort.{form}"]
            assert words[f"ROLLBRIDGE.Web.Log.Waiting.{form}"].startswith(seen), (locale, form)
        # read to its end, the log's last entry ends above the button (it was under it)
        assert after["atEnd"] is True and after["lastBottom"] <= after["buttonTop"], after
        # nothing moved as the button came: the log as tall, the GM's controls (and the
        # Approve buttons in them) where they were
        assert after["logHeight"] == before["logHeight"], (before, after)
        assert after["controls"] == before["controls"], (before, after)


async def test_the_focus_on_the_button_goes_to_the_list_when_nothing_waits(web_world):
    result = await run_case(web_world, "answered", script="waiting.mjs")
    nothing = catalog("de")["ROLLBRIDGE.Web.Pending.Nothing"]
    # the keyboard's focus was on the button, hidden by an approval given elsewhere:
    # the list saying that nothing waits has it (it was the page's body)
    assert result["focus"] == {"id": "pending", "text": nothing}, result


async def test_an_approved_line_stays_after_its_event_left_the_log_from_before(web_world):
    result = await run_case(web_world, "earlier", script="waiting.mjs")
    assert "failed" not in result, result
    seq = result["approved"]
    cs, ru = catalog("cs"), catalog("ru")
    approved = cs["ROLLBRIDGE.Web.Message.Approved"].split("{result}")[0]
    assert result["line"].startswith(approved), result
    # the approval is further back than the log the reloaded page loaded
    assert result["history"] == 200 and result["first"] > seq, result
    earlier = ru["ROLLBRIDGE.Web.Message.Earlier"].replace("{seq}", str(seq))
    line = ru["ROLLBRIDGE.Web.Message.Approved"].replace("{result}", earlier)
    assert result["reloaded"]["form"] == line, result
    assert result["reloaded"]["message"] == line, result
