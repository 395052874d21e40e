"""The action forms of the web view as a player fills them in, in real headless
Chromium against a real server (browser/forms.mjs):

- a player who plays one actor has it chosen in the forms' actor lists (the dice
  form's "for" too): a roll or a techlevel hit is that character's, counted in its
  statistics, unless the player chooses nobody; the GM's lists start at nobody;

- an action's example is a hint, not the player's values: the sr2 attack's example
  (skill 5, two Combat Pool dice, three rounds) is shown greyed out at most and
  never sent, so the attack rolls the sheet's skill (SR-8) and spends no pool
  (SR-14) unless the player types them; the wilddie trait test's example modifier
  ("dark", −2) modifies no roll (WD-3);
- a request waiting for the GM's approval says in the GM's list and log what it
  asks for — the action, its actor, targets and parameters — not "resolve attack";
- a parameter that is a list (wilddie's situational modifiers) is written as JSON
  and sent as a list; what is not JSON is refused beside the form, nothing sent.

Needs what tests/web/test_web_browser.py needs; skipped without chromium.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.web.test_web_browser import CHROMIUM
from tests.web.test_web_phone import run_case

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no {CHROMIUM}")


async def test_a_form_sends_what_the_player_gave_and_lists_as_json(web_world):
    result = await run_case(web_world, "forms", script="forms.mjs")

    # a player who plays one actor rolls for it unless they choose nobody (so the
    # roll counts in its statistics); the GM, who plays them all, for nobody
    roll = result["roll"]
    assert roll["chosen"] == "tukan" and roll["sent"]["actor"] == "tukan"
    assert roll["gmChosen"] == ""

    # sr2: the example's numbers are not in the fields; its range, a choice, is
    attack = result["attack"]
    controls = attack["controls"]
    assert controls["skill"]["value"] == "" and controls["attacker_pool"]["value"] == ""
    assert controls["rounds"]["value"] == "" and controls["weapon"]["value"] == ""
    assert "weapon.other" not in controls  # chosen from Tukan's weapons, nothing typed
    assert controls["range"]["value"] == "short"
    assert attack["sent"]["params"] == {"weapon": "Hackler", "range": "short"}
    outcome = attack["reply"]["event"]["data"]["outcome"]
    # Tukan's Hackler: skill 6 on the sheet, no pool spent, one round (SR-6, SR-8)
    assert (outcome["attack"]["skill"], outcome["attack"]["pool"]) == (6, 0)
    assert outcome["rounds"] == 1 and outcome["code"] == "7M"

    # a request waiting for the GM says what it asks: the action in the ruleset's
    # words, who acts on whom, with what — each parameter and choice in the ruleset's
    # words too, as the form says them (it said "weapon=Hackler, range=short", the
    # wire's) — in the GM's list and log alike
    pending = result["pending"]
    asks = "action Attack: Tukan → Guard A (Weapon: Hackler, Range: Short (TN 4))"
    assert re.fullmatch(rf"p\d+: player — {re.escape(asks)}", pending["gm"]), pending
    # the log's line names the action in the ruleset's words too (it said "attack")
    assert pending["log"] is not None and asks in pending["log"], pending

    # wilddie: the example's modifier is a hint written as JSON, not a value
    trait = result["trait"]
    modifiers = trait["controls"]["modifiers"]
    assert modifiers["value"] == ""
    assert json.loads(modifiers["placeholder"]) == [{"value": -2, "note": "dark"}]
    plain = trait["plain"]
    assert plain["sent"]["params"] == {"trait": "notice"}
    assert plain["reply"]["status"] == "done", plain
    # typed as JSON: sent as a list, and the roll is modified by it
    modified = trait["modified"]
    assert modified["sent"]["params"]["modifiers"] == [{"value": -1, "note": "rain"}]
    assert modified["reply"]["status"] == "done", modified
    # not JSON: said beside the form, in words that say how; nothing sent
    typo = trait["typo"]
    assert typo["sent"] is None and typo["kind"] == "error"
    assert typo["status"].startswith("Modifiers: write it as JSON, e.g. [{"), typo["status"]
