"""Odd sheet values among a parameter's choices from the sheet (``choicesFrom``,
docs/plugins.md), in real headless Chromium against a real server
(browser/choices_odd.mjs):

- weapon names with HTML, in an RTL script, 80 characters long: shown as text, on a
  390 px phone the list fits the screen;
- a name with spaces around it (sr2's sheet takes it, and finds a weapon by its
  exact name): picked from the list, it is sent as the sheet spells it, and the
  attack resolves with that weapon (SR-4);
- the GM acting as an NPC with the NPC's weapon chosen: the forms rebuilt (an
  actor added) keep the NPC, its list and the weapon chosen.

Needs what tests/web/test_web_browser.py needs; skipped without chromium.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.web.test_web_browser import CHROMIUM
from tests.web.test_web_phone import run_case

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no {CHROMIUM}")


async def test_odd_weapon_names_are_text_fit_a_phone_and_are_sent_as_spelt(web_world):
    result = await run_case(web_world, "odd", script="choices_odd.mjs")
    assert result["added"][:2] == ["result", "result"]
    names = result["names"]
    player = result["player"]
    spelt = [names["HTML"], names["RTL"], names["LONG"], names["SPACED"]]
    assert player["weapons"] == [["", "(default)"], *[[n, n] for n in spelt]]
    assert not player["injected"]
    box = player["box"]
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    assert player["width"] <= 390

    assert player["sent"]["params"]["weapon"] == names["SPACED"]
    reply = player["reply"]
    assert reply["status"] == "done", reply
    assert reply["event"]["data"]["outcome"]["weapon"] == names["SPACED"]


async def test_the_gm_acting_as_an_npc_keeps_its_weapon_when_the_forms_are_rebuilt(web_world):
    result = await run_case(web_world, "odd", script="choices_odd.mjs")
    assert result["added"] == ["result", "result", "result"]
    gm = result["gm"]
    assert gm["actor"] == "ganger"
    assert gm["weapons"] == [["", "(default)"], ["Knife", "Knife"], ["Uzi", "Uzi"]]
    assert gm["weapon"] == "Uzi"
