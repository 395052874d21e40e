"""Odd sheet values among a parameter's choices from the sheet (``choicesFrom``,
docs/plugins.md), in real headless Chromium against a real server
(browser/choices_odd.mjs):

- weapon names with HTML, in an RTL script, 80 characters long: shown as text, on a
  390 px phone the list fits the screen;
- a name with spaces around it (sr2's sheet takes it, and finds a weapon by its
  exact name): picked from the list, it is sent as the sheet spells it, and the
  attack resolves with that weapon (SR-4);
- the GM acting as an NPC with the NPC's weapon chosen: the forms rebuilt (an
  actor added) keep the NPC, its list and the weapon chosen;
- techlevel's item to don and vehicle to mount by name, which the action neither
  needs nor fills in by its example (it gives a new item or vehicle): the list of
  the actor's own is on the phone's form, not folded under "more parameters"
  (browser/choices_folded.mjs).

Needs what tests/web/test_web_browser.py needs; skipped without chromium.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rollbridge.plugins.techlevel.ruleset import TechLevel
from tests.web.test_web_browser import CHROMIUM, run_script
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


async def test_techlevel_s_items_and_vehicles_by_name_are_not_folded_away(web_world):
    actions = TechLevel().describe()["actions"]
    env = {
        "RB_BASE": web_world.base,
        "RB_TOKENS": json.dumps(web_world.tokens),
        "RB_CHROMIUM": CHROMIUM,
        "RB_SPECS": json.dumps({name: actions[name] for name in ("don", "mount")}),
    }
    secrets = [token for table in web_world.tokens.values() for token in table.values()]
    result = await run_script("choices_folded.mjs", env, secrets)
    assert result["trouble"] == {"errors": [], "dialogs": []}
    forms = result["forms"]
    assert forms["don"]["options"] == ["", "Chainmail"]
    assert forms["mount"]["options"] == ["", "Jeep"]
    assert not forms["don"]["folded"] and not forms["mount"]["folded"], forms
    assert result["visible"]
    assert result["sent"] == [{"name": "Chainmail"}]
