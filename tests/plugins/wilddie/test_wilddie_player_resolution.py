"""What players see of a wilddie resolution that involved an NPC, through the real
engine: the dice (and so the die an NPC rolls) stay; the NPC's Defense and
Toughness, the margins built from them, and its chips — marked private where the
resolution is built (``privacy.py``) — go, unless ``show_npc_details`` is on."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest

from rollbridge.contract import Ruleset
from rollbridge.exceptions import RuleViolation, UnknownActor
from rollbridge.plugins.wilddie import WildDieRuleset
from rollbridge.testing import PLAYER, RulesetHarness

ANA = WildDieRuleset.example_sheets["Ana"]
# Fighting d10 → Defense 7; Vigor d8 + armour 3 → Toughness 9; 2 chips.
GUARD = {
    "kind": "npc",
    "attributes": {
        "strength": "d8",
        "vigor": "d8",
        "coordination": "d6",
        "reaction": "d6",
        "intuition": "d4",
        "character": "d6",
    },
    "skills": {"fighting": "d10", "notice": "d4"},
    "armor": 3,
    "chips": 2,
}


def table(**settings: Any) -> RulesetHarness:
    harness = RulesetHarness(WildDieRuleset(), settings={"ruleset": settings})
    harness.add_actor("Ana", ANA, actor_id="ana", player=True)
    harness.add_actor("Guard", GUARD, actor_id="guard")
    return harness


def melee(harness: RulesetHarness) -> tuple[dict[str, Any], dict[str, Any]]:
    # Ana: Fighting d8 rolls 2, the wild die 6 + 5 = 11: one raise over Defense 7.
    harness.resolve(
        "attack", actor="ana", targets=["guard"], params={"mode": "melee"}, dice=[2, 6, 5]
    )
    return harness.views()


def test_a_melee_attack_on_an_npc_hides_its_defense():
    harness = table()
    gm, player = melee(harness)
    assert gm["data"]["outcome"]["difficulty"] == 7
    assert "difficulty 7 = Defense of Guard (2 + half of Fighting d10)" in gm["data"]["steps"]
    assert gm["data"]["dice"][0]["target"] == 7

    data = player["data"]
    assert "difficulty" not in data["outcome"] and "target" not in data["dice"][0]
    assert data["narration"] == "Ana hits Guard with 1 raise (melee, 11 against Defense)"
    assert data["steps"][0] == "difficulty = Defense of Guard (hidden)"
    assert data["steps"][-1] == "11 against the target's Defense: success with 1 raise"
    assert "d10" not in json.dumps(data) and " 7" not in json.dumps(data)
    assert (data["outcome"]["hit"], data["outcome"]["raises"]) == (True, 1)
    assert data["dice"][0]["dice"] == gm["data"]["dice"][0]["dice"]  # rolled in the open
    assert harness.views()[0] == gm  # the stored event is unchanged


def test_the_attackers_roll_memory_does_not_keep_an_npcs_defense():
    _, player = melee(table())
    (ana,) = [a for a in player["actors"] if a["id"] == "ana"]
    assert "difficulty" not in json.dumps(ana["state"])


@pytest.mark.parametrize("fighting", ["d4", "d12", None])
def test_the_attackers_state_holds_nothing_from_which_the_defense_follows(fighting):
    """The same attack on a guard of another Defense leaves the very same attacker state."""
    other = copy.deepcopy(GUARD)
    if fighting is None:
        del other["skills"]["fighting"]  # Defense 2
    else:
        other["skills"]["fighting"] = fighting  # Defense 4 or 8
    harness = RulesetHarness(WildDieRuleset())
    harness.add_actor("Ana", ANA, actor_id="ana", player=True)
    harness.add_actor("Guard", other, actor_id="guard")
    gm_other, player_other = melee(harness)
    gm, player = melee(table())
    assert gm["data"]["outcome"]["difficulty"] != gm_other["data"]["outcome"]["difficulty"]
    seen = {a["id"]: a for a in player["actors"]}
    seen_other = {a["id"]: a for a in player_other["actors"]}
    # what players see of Ana is her stored state itself, and it is the same
    assert seen["ana"]["state"] == seen_other["ana"]["state"] == harness.state("ana")
    (record,) = seen["ana"]["state"]["rolls"]
    assert (record["against"], record["target"], record["mode"]) == ("defense", "guard", "melee")


def missed(harness: RulesetHarness) -> str:
    """Ana (Fighting d8) rolls 2 and wild 3 against the guard's Defense 7: a miss. Its id."""
    event = harness.resolve(
        "attack", actor="ana", targets=["guard"], params={"mode": "melee"}, dice=[2, 3]
    )
    assert event["data"]["outcome"]["hit"] is False
    return event["data"]["outcome"]["roll"]


@pytest.mark.parametrize(
    ("setting", "dice", "total", "success", "raises"),
    [
        ("one_die", [6], 6, False, 0),
        ("one_die", [7], 7, True, 0),
        ("one_die", [8, 2], 10, True, 0),
        ("one_die", [8, 3], 11, True, 1),
        ("whole_roll", [8, 8, 1, 1], 17, True, 2),
    ],
)
def test_a_chip_on_a_melee_attack_rerolls_against_the_recomputed_defense(
    setting, dice, total, success, raises
):
    harness = table(chip_reroll=setting)
    roll = missed(harness)
    harness.resolve(
        "chip", actor="ana", targets=["guard"], params={"roll": roll}, dice=dice, who=PLAYER
    )
    gm, player = harness.views()
    outcome = gm["data"]["outcome"]
    assert (outcome["total"], outcome["difficulty"]) == (total, 7)
    assert (outcome["success"], outcome["raises"], outcome["hit"]) == (success, raises, success)
    assert (outcome["target"], outcome["mode"]) == ("guard", "melee")
    assert "difficulty 7 = Defense of Guard (2 + half of Fighting d10)" in gm["data"]["steps"]
    assert gm["data"]["dice"][0]["target"] == 7

    data = player["data"]
    assert "difficulty" not in data["outcome"] and "target" not in data["dice"][0]
    assert "difficulty = Defense of Guard (hidden)" in data["steps"]
    verdict = gm["data"]["steps"][-1].partition(": ")[2]
    assert data["steps"][-1] == f"{total} against the target's Defense: {verdict}"
    assert "Fighting d10" not in json.dumps(data) and "against difficulty" not in json.dumps(data)
    assert (data["outcome"]["success"], data["outcome"]["raises"]) == (success, raises)
    # the remembered roll is spent, and still holds no difficulty
    (ana,) = [a for a in player["actors"] if a["id"] == "ana"]
    assert ana["state"]["chips"] == 2 and ana["state"]["rolls"][-1]["chip_spent"] is True
    assert "difficulty" not in json.dumps(ana["state"])


def test_a_chip_naming_the_wrong_target_or_none_is_refused_and_changes_nothing():
    harness = table()
    harness.add_actor("Thug", GUARD, actor_id="thug")
    roll = missed(harness)
    states = {a: harness.state(a) for a in ("ana", "guard", "thug")}
    seq = harness.table.info.seq

    def refused(targets: list[str], code: str) -> RuleViolation:
        with pytest.raises(RuleViolation) as err:
            harness.resolve(
                "chip", actor="ana", targets=targets, params={"roll": roll}, dice=[8], who=PLAYER
            )
        assert err.value.code == code
        assert {a: harness.state(a) for a in states} == states
        assert harness.table.info.seq == seq
        return err.value

    for wrong in (["thug"], ["ana"]):
        err = refused(wrong, "chip_wrong_target")
        assert err.details["target"] == "guard" and "'guard'" in err.message
    err = refused([], "chip_target_required")
    assert "name 'guard' as the chip's target" in err.message
    assert not re.search(r"\b7\b", json.dumps(err.to_dict()))  # the refusal tells no Defense
    # the right target is accepted afterwards: nothing was spent by the refusals
    harness.resolve("chip", actor="ana", targets=["guard"], params={"roll": roll}, dice=[7])
    assert harness.state("ana")["chips"] == 2


def test_a_chip_on_a_melee_attack_whose_target_is_gone_is_refused():
    harness = table()
    roll = missed(harness)
    harness.request({"type": "actor.remove", "actor": "guard"})
    state = harness.state("ana")
    with pytest.raises(RuleViolation) as err:
        harness.resolve("chip", actor="ana", params={"roll": roll}, dice=[8])
    assert err.value.code == "chip_target_required"
    with pytest.raises(UnknownActor):
        harness.resolve("chip", actor="ana", targets=["guard"], params={"roll": roll}, dice=[8])
    assert harness.state("ana") == state


def test_a_ranged_attack_on_an_npc_keeps_its_public_difficulty():
    harness = table()
    params = {"mode": "ranged", "range": "medium"}
    harness.resolve("attack", actor="ana", targets=["guard"], params=params, dice=[6, 2])
    gm, player = harness.views()
    assert player["data"] == gm["data"]


def test_damage_to_an_npc_hides_its_toughness_and_the_margin():
    harness = table()
    harness.resolve("damage", actor="ana", targets=["guard"], params={"dice": "2d6"}, dice=[5, 5])
    gm, player = harness.views()
    outcome = gm["data"]["outcome"]
    assert (outcome["toughness"], outcome["margin"]) == (9, 1)
    assert outcome["toughness_parts"] == {"base": 2, "vigor": 4, "armor": 3}
    assert (
        gm["data"]["narration"]
        == "Ana's damage 10 against Guard's Toughness 9: Shaken (overcoming pain)"
    )

    data = player["data"]
    assert not {"toughness", "toughness_parts", "margin"} & set(data["outcome"])
    assert data["outcome"]["result"] == "shaken" and data["outcome"]["total"] == 10
    assert data["outcome"]["why"] == "10 meets Toughness without a raise"
    assert (
        data["narration"] == "Ana's damage 10 against Guard's Toughness: Shaken (overcoming pain)"
    )
    assert "Toughness of Guard: hidden (2 + half of Vigor + armour, WD-5)" in data["steps"]
    assert "WD-7: 10 meets Toughness without a raise → Shaken (overcoming pain)" in data["steps"]
    text = json.dumps(data)
    assert " 9" not in text and "Vigor d8" not in text and "armour 3" not in text


def test_a_wound_on_an_npc_is_explained_without_the_toughness():
    harness = table(wounds_per_hit="per_raise")
    harness.resolve("damage", actor="ana", targets=["guard"], params={"dice": "2d10"}, dice=[9, 9])
    gm, player = harness.views()
    assert gm["data"]["outcome"]["why"] == "18 beats Toughness 9 by 9: 2 raises, one wound each"
    assert player["data"]["outcome"]["why"] == "18 beats Toughness by 2 raises, one wound each"
    assert player["data"]["outcome"]["new_state"] == {
        "shaken": True,
        "wounds": 1,
        "incapacitated": True,
    }


def test_an_npcs_chips_are_hidden():
    harness = table()
    harness.resolve("trait", actor="guard", params={"trait": "notice"}, dice=[3])
    gm, player = harness.views()
    assert gm["data"]["outcome"]["chips_left"] == 2
    assert "chips_left" not in player["data"]["outcome"]
    assert "chips" not in player["data"]["outcome"]["new_state"]
    # the die the NPC rolled is public: it was rolled in the open
    assert player["data"]["outcome"]["die"] == "d4"

    harness.resolve("chip", actor="guard", params={}, dice=[4, 1])
    gm, player = harness.views()
    assert "2 → 1 chip" in gm["data"]["steps"][0]
    assert player["data"]["steps"][0] == "chip spent on roll h3 (trait): rerolls the trait die"
    assert "chips_left" not in player["data"]["outcome"]

    harness.resolve("award_chips", targets=["guard", "ana"], params={"count": 2})
    gm, player = harness.views()
    assert gm["data"]["outcome"]["targets"]["guard"] == {"given": 2, "chips": 3}
    assert player["data"]["outcome"]["targets"] == {"guard": {}, "ana": {"given": 2, "chips": 5}}
    assert player["data"]["steps"] == ["Guard: chips awarded", "Ana: chips 3 → 5"]


def test_show_npc_details_shows_the_resolution_as_the_gm_sees_it():
    harness = table(show_npc_details=True)
    gm, player = melee(harness)
    assert player["data"] == gm["data"]
    harness.resolve("damage", actor="ana", targets=["guard"], params={"dice": "2d6"}, dice=[5, 5])
    gm, player = harness.views()
    assert player["data"]["outcome"]["toughness"] == 9


def test_the_players_view_does_not_change_the_stored_event():
    harness = table()
    melee(harness)
    (event,) = harness.events(harness.table.info.seq - 1)
    stored = copy.deepcopy((event.data, event.texts, event.private))
    gm, player = harness.views()
    assert player["data"] != gm["data"]  # something was hidden from players...
    assert (event.data, event.texts, event.private) == stored  # ...in a copy
    assert harness.views() == (gm, player)
    # the rendering is the engine's: wilddie no longer redacts rendered resolutions
    assert WildDieRuleset.player_resolution is Ruleset.player_resolution


# -- turn hooks in encounter events ---------------------------------------------------


def shaken_guard_turn(harness: RulesetHarness) -> tuple[dict[str, Any], dict[str, Any]]:
    """Shake the guard, start an encounter and pass the turn to it: its WD-9 recovery
    roll (a 2: still Shaken) in the encounter.turn event, as the GM and a player see it."""
    harness.resolve("damage", actor="ana", targets=["guard"], params={"dice": "2d6"}, dice=[5, 5])
    harness.request({"type": "encounter.start", "order": ["ana", "guard"]})
    seq = harness.table.info.seq
    harness.request({"type": "encounter.next", "dice": [2]})
    (event,) = harness.events(seq)
    return harness.table.view_event(event, gm=True), harness.table.view_event(event, gm=False)


def test_turn_start_recovery_of_an_npc_hides_its_chips():
    gm, player = shaken_guard_turn(table())
    assert gm["kind"] == "encounter.turn"
    (roll,) = gm["data"]["hooks"]
    assert roll["hook"] == "on_turn_start" and roll["actor"] == "guard"
    assert roll["outcome"]["chips_left"] == 2 and roll["outcome"]["new_state"]["chips"] == 2
    assert '"chips_left": 2' in json.dumps(gm) and '"chips": 2' in json.dumps(gm)

    (shown,) = player["data"]["hooks"]
    text = json.dumps(player)
    assert '"chips_left"' not in text and '"chips"' not in text
    assert shown["outcome"]["new_state"] == {"shaken": True, "wounds": 0, "incapacitated": False}
    assert "action" not in shown  # the engine's entry keeps its own keys
    # the roll is public: its die, dice, result and narration stay
    assert shown["dice"] == roll["dice"] and shown["steps"] == roll["steps"]
    assert shown["narration"] == "Guard tries to recover: 2 against 4, stays Shaken"
    assert shown["outcome"]["die"] == "d6" and shown["outcome"]["recovered"] is False
    (guard,) = player["actors"]
    assert guard["state"] == {"shaken": True, "wounds": 0, "incapacitated": False}


def test_turn_start_recovery_shows_an_npcs_chips_with_show_npc_details():
    gm, player = shaken_guard_turn(table(show_npc_details=True))
    assert player["data"] == gm["data"]
    assert player["data"]["hooks"][0]["outcome"]["chips_left"] == 2
