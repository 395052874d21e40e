"""A parameter whose choices are on the acting actor's sheet (``choicesFrom``,
docs/plugins.md), in the web view, in real headless Chromium against a real server
(browser/choices.mjs):

- the sr2 player, on a 390 px phone, picks Tukan's weapon from a list of the
  weapons on Tukan's sheet (nothing typed: sr2 takes no other name) and the attack
  resolves with it: the Stun baton's code 6S (SR-4, one round: SR-6), its skill 4
  as the attack dice (SR-8), resisted with impact armour (SR-9) on the Stun
  monitor (SR-11);
- the GM's list follows the actor the GM acts as: Tukan's for Tukan, an NPC's
  weapons for the NPC (the GM sees its sheet), none for Rook, whose sheet has none;
- on the wire: the player's page receives the annotation (so it can offer Tukan's
  weapons) but never the NPC's weapons, in no frame and nowhere on the page;
- a parameter whose rules take other values too (no ``only``; no built-in ruleset
  has one, so the page's own forms.mjs builds a made-up action): the actor's
  choices, then "another value…", which shows a field on the phone to type it in.

Needs what tests/web/test_web_browser.py needs; skipped without chromium.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.web.test_web_browser import CHROMIUM
from tests.web.test_web_phone import run_case

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no {CHROMIUM}")

#: The NPC's weapon the browser script gives it (browser/choices.mjs, GANGER).
SECRET = "Secret Predator"
DEFAULT = ["", "(default)"]
#: Tukan's weapons as the list offers them: none chosen, then each by name.
TUKAN = [DEFAULT, ["Hackler", "Hackler"], ["Stun baton", "Stun baton"]]


async def test_a_player_picks_the_weapon_from_the_sheet_and_attacks_with_it(web_world):
    result = await run_case(web_world, "choices", script="choices.mjs")
    assert result["added"] == "result"

    player = result["player"]
    # the player acts only as Tukan (the NPC is not theirs to act for)
    assert player["actors"] == [["tukan", "Tukan"]]
    # Tukan's weapons, by name, no "another value" (sr2 takes no other weapon)
    assert player["weapons"] == TUKAN
    assert player["chosen"] == "" and player["typed"] == 0
    # on a 390 px phone the list is on screen and the page does not scroll sideways
    box = player["box"]
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    assert player["width"] <= 390

    assert player["sent"]["params"] == {"weapon": "Stun baton", "range": "short"}
    reply = player["reply"]
    assert reply["status"] == "done", reply
    outcome = reply["event"]["data"]["outcome"]
    assert outcome["weapon"] == "Stun baton"
    assert (outcome["base_code"], outcome["code"]) == ("6S", "6S")  # SR-4, SR-6: one round
    assert outcome["attack"]["skill"] == 4  # SR-8: the weapon's skill from the sheet
    assert outcome["armor_type"] == "impact"  # SR-9: the weapon's armour
    assert outcome["damage_type"] == "stun"  # SR-11: the Stun monitor

    gm = result["gm"]
    assert gm["first"] == ["tukan", TUKAN]
    assert gm["ganger"] == [DEFAULT, [SECRET, SECRET]]
    assert gm["rook"] == [DEFAULT]  # Guard B's sheet: no weapon, attack by code

    wire = result["wire"]
    welcome = next(
        frame
        for frame in map(json.loads, wire["frames"])
        if frame.get("type") == "welcome" and "ruleset" in frame
    )
    weapon = welcome["ruleset"]["actions"]["attack"]["params"]["properties"]["weapon"]
    assert weapon["choicesFrom"] == {"sheet": "weapons", "value": "name", "only": True}
    leaked = [frame for frame in wire["frames"] if SECRET in frame]
    assert not leaked, leaked
    # the NPC reached the player, limited: no sheet to take choices from
    ganger = [
        view for view in _actor_views(map(json.loads, wire["frames"])) if view["id"] == "ganger"
    ]
    assert ganger and all(v["limited"] and v["sheet"] is None for v in ganger), ganger
    assert SECRET not in wire["text"]

    # a parameter that takes other values too: the actor's choices and "another
    # value…", which shows a field to type it in (the example its hint only)
    free = result["free"]
    assert free["actors"] == ["ana"]  # the NPC seen limited is no actor to act as
    assert free["moves"] == [
        DEFAULT, ["go aggro", "go aggro"], ["read a person", "read a person"],
        ["\u0000other", "another value…"],
    ]  # fmt: skip
    assert free["typedHidden"] and free["typedVisible"] and free["typedFits"]
    assert free["placeholder"] == "act under fire"
    assert free["sent"] == [{"move": "read a person"}, {"move": "act under fire"}]


def _actor_views(frames) -> list[dict]:
    """Every actor view in the frames: a welcome's table's and events' actors."""
    views: list[dict] = []
    for frame in frames:
        for holder in (frame, frame.get("table"), frame.get("event")):
            if isinstance(holder, dict) and isinstance(holder.get("actors"), list):
                views += holder["actors"]
    return [view for view in views if isinstance(view, dict) and "id" in view]
