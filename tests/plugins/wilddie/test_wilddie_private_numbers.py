"""No number from an NPC's sheet or hidden state reaches players, for every action.

Each scenario is played, with the same dice, against two guards that differ in
every value players may not see — Fighting (so Defense), Vigor and armour (so
Toughness), chips — and in nothing else. Without ``show_npc_details``:

* the players' view of every event is the same for both guards: nothing in it
  follows from the hidden values, though the GM's views differ;
* none of guard A's distinctive numbers (Toughness 27, armour 19, 47 chips and the
  chip counts that follow) appears anywhere in the JSON of the players' view.

With ``show_npc_details`` the players see what the GM sees, and the hidden values
show (so the checks above can fail).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from rollbridge.plugins.wilddie import WildDieRuleset
from rollbridge.plugins.wilddie.privacy import ASPECTS, SHEET, STATE
from rollbridge.testing import RulesetHarness

ATTRS = {"strength": "d6", "coordination": "d6", "reaction": "d6", "intuition": "d6"}
ANA = {
    "kind": "pc",
    "attributes": {**ATTRS, "vigor": "d6", "character": "d6"},
    "skills": {"fighting": "d10", "shooting": "d6"},
}


def guard(fighting: str, vigor: str, armor: int, chips: int) -> dict[str, Any]:
    return {
        "kind": "npc",
        "attributes": {**ATTRS, "vigor": vigor, "character": "d6"},
        "skills": {"fighting": fighting, "shooting": "d6", "notice": "d6"},
        "armor": armor,
        "chips": chips,
    }


#: Defense 8, Toughness 2 + 6 + 19 = 27, 47 chips.
GUARD_A = guard("d12", "d12", 19, 47)
#: Defense 7, Toughness 2 + 4 + 20 = 26, 31 chips.
GUARD_B = guard("d10", "d8", 20, 31)
#: Guard A's numbers no dice, total, id or seq of these scenarios can show: its
#: Toughness, armour, chips, and its chips after spending one or being awarded two.
DISTINCTIVE = ("27", "19", "47", "46", "49")


@dataclass(frozen=True)
class Scenario:
    """Requests played on a fresh table; ``shows``: JSON fragments of guard A's
    hidden values that the resolutions hold (and players see only when revealed)."""

    play: Callable[[RulesetHarness], None]
    shows: tuple[str, ...]


def _melee(h: RulesetHarness, dice: list[int]) -> None:
    h.resolve("attack", actor="ana", targets=["guard"], params={"mode": "melee"}, dice=dice)


def _damage(h: RulesetHarness, dice: str, roll: int) -> None:
    h.resolve("damage", actor="ana", targets=["guard"], params={"dice": dice}, dice=[roll])


def _turn_start(h: RulesetHarness) -> None:
    _damage(h, "d6+24", 5)  # 29: Shaken against Toughness 27 (and 26)
    h.request({"type": "encounter.start", "order": ["ana", "guard"]})
    h.request({"type": "encounter.next", "dice": [2]})  # the guard's recovery roll fails


SCENARIOS: dict[str, Scenario] = {
    # Ana's Fighting d10 aces 10 + 6 = 16: 2 raises against Defense 8 (and 7)
    "attack, melee on an npc": Scenario(
        lambda h: _melee(h, [10, 6, 2]),
        ('"difficulty": 8', '"target": 8', "Fighting d12", "against 8"),
    ),
    "attack, ranged by an npc": Scenario(
        lambda h: h.resolve(
            "attack",
            actor="guard",
            targets=["ana"],
            params={"mode": "ranged", "range": "short"},
            dice=[5],
        ),
        ('"chips_left": 47', '"chips": 47'),
    ),
    "trait by an npc": Scenario(
        lambda h: h.resolve("trait", actor="guard", params={"trait": "notice"}, dice=[3]),
        ('"chips_left": 47',),
    ),
    "damage, no effect": Scenario(
        lambda h: _damage(h, "d6+8", 4), ('"toughness": 27', "Toughness 27", "armour 19")
    ),
    "damage, shaken": Scenario(
        lambda h: _damage(h, "d6+24", 5), ('"toughness": 27', '"margin": 2', "Toughness 27")
    ),
    "damage, wound": Scenario(
        lambda h: _damage(h, "d6+36", 4), ('"margin": 13', "Toughness 27 by 13")
    ),
    "chip on a melee attack on an npc": Scenario(
        lambda h: (
            _melee(h, [3, 1]),
            h.resolve("chip", actor="ana", targets=["guard"], params={}, dice=[10, 6]),
        ),
        ('"difficulty": 8', "Fighting d12", "difficulty 8"),
    ),
    "chip by an npc": Scenario(
        lambda h: (
            h.resolve("trait", actor="guard", params={"trait": "notice"}, dice=[1]),
            h.resolve("chip", actor="guard", params={}, dice=[5]),
        ),
        ("47 → 46 chips", '"chips_left": 46'),
    ),
    "recover by an npc": Scenario(
        lambda h: (
            _damage(h, "d6+24", 5),
            h.resolve("recover", actor="guard", params={}, dice=[5]),
        ),
        ('"chips_left": 47',),
    ),
    "award_chips to an npc": Scenario(
        lambda h: h.resolve("award_chips", targets=["guard", "ana"], params={"count": 2}),
        ("chips 47 → 49", '"chips": 49'),
    ),
    "heal an npc": Scenario(
        lambda h: (
            _damage(h, "d6+36", 4),
            h.resolve("heal", targets=["guard"], params={"wounds": 1, "unshake": True}),
        ),
        ('"toughness": 27',),
    ),
    "on_turn_start recovery of an npc": Scenario(_turn_start, ('"chips_left": 47',)),
}


def played(name: str, sheet: dict[str, Any], **settings: Any) -> list[tuple[Any, Any]]:
    """Every event of the scenario (after the actors are made) as (GM, players) views."""
    harness = RulesetHarness(WildDieRuleset(), settings={"ruleset": settings})
    harness.add_actor("Ana", ANA, actor_id="ana", player=True)
    harness.add_actor("Guard", sheet, actor_id="guard")
    first = harness.table.info.seq + 1
    SCENARIOS[name].play(harness)
    return [harness.views(seq) for seq in range(first, harness.table.info.seq + 1)]


def _numbers(text: str) -> set[str]:
    return set(re.findall(r"(?<![\w.])\d+(?![\w.])", text))


def test_every_action_has_a_scenario():
    actions = {name.split(" ")[0].rstrip(",") for name in SCENARIOS}
    assert actions >= set(WildDieRuleset.actions)
    assert "on_turn_start" in actions


@pytest.mark.parametrize("name", SCENARIOS)
def test_players_see_nothing_that_follows_from_an_npcs_hidden_values(name):
    views_a, views_b = played(name, GUARD_A), played(name, GUARD_B)
    assert [gm for gm, _ in views_a] != [gm for gm, _ in views_b]  # the GM's differ...
    assert [p for _, p in views_a] == [p for _, p in views_b]  # ...the players' do not
    for _, player in views_a:
        text = json.dumps(player, ensure_ascii=False)
        assert not _numbers(text) & set(DISTINCTIVE), text
    shown = json.dumps([p["data"] for _, p in views_a], ensure_ascii=False)
    for fragment in SCENARIOS[name].shows:
        assert fragment not in shown
    stored = json.dumps([gm["data"] for gm, _ in views_a], ensure_ascii=False)
    for fragment in SCENARIOS[name].shows:
        assert fragment in stored  # the GM sees it: the checks above can fail


@pytest.mark.parametrize("name", SCENARIOS)
def test_show_npc_details_shows_players_the_hidden_values(name):
    views = played(name, GUARD_A, show_npc_details=True)
    for gm, player in views:
        assert player["data"] == gm["data"]
    shown = json.dumps([p["data"] for _, p in views], ensure_ascii=False)
    for fragment in SCENARIOS[name].shows:
        assert fragment in shown
    other = played(name, GUARD_B, show_npc_details=True)
    assert [p["data"] for _, p in views] != [p["data"] for _, p in other]


def test_the_aspects_and_the_setting_that_reveals_them():
    ruleset = WildDieRuleset()
    assert {"sheet", "state"} == ASPECTS == {SHEET, STATE}
    for aspect in ASPECTS:
        assert ruleset.reveals(aspect, {"show_npc_details": True}) is True
        assert ruleset.reveals(aspect, {"show_npc_details": False}) is False
        assert ruleset.reveals(aspect, {}) is False
    assert ruleset.reveals("details", {"show_npc_details": True}) is False


def test_the_stored_event_marks_an_npcs_values_with_their_aspects():
    harness = RulesetHarness(WildDieRuleset())
    harness.add_actor("Ana", ANA, actor_id="ana", player=True)
    harness.add_actor("Guard", GUARD_A, actor_id="guard")
    _damage(harness, "d6+24", 5)
    (event,) = harness.events(harness.table.info.seq - 1)
    marked = {tuple(entry[0]): (entry[1], entry[2]) for entry in event.private}
    assert marked[("outcome", "toughness")] == ("guard", SHEET)
    assert marked[("outcome", "toughness_parts")] == ("guard", SHEET)
    assert marked[("outcome", "margin")] == ("guard", SHEET)
    assert marked[("outcome", "new_state", "chips")] == ("guard", STATE)
    assert event.data["outcome"]["toughness"] == 27  # stored as the value itself
