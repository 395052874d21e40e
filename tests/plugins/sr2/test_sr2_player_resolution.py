"""What players see of an sr2 resolution that involved an NPC, through the real
engine: the GM's view keeps everything, the players' view keeps the dice, status and
wound levels but not the NPC's boxes, Body, armour or pool split — unless
``show_npc_details`` / ``show_npc_sheet`` say otherwise. The ruleset marks those
values private where it builds the resolution (``plugins/sr2/privacy.py``); the
engine builds each audience's view from the stored event."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from rollbridge.contract import Ruleset
from rollbridge.engine.views import GM, PLAYERS, event_view
from rollbridge.plugins.sr2 import SR2Ruleset
from rollbridge.testing import RulesetHarness, all_keys

TUKAN = {
    "body": 5,
    "combat_pool": 6,
    "weapons": [{"name": "Hackler", "code": "7M", "skill": 7}],
}
# Body 4, ballistic armour 5, Combat Pool 3: numbers no other actor has.
GUARD = {
    "body": 4,
    "combat_pool": 3,
    "armor": {"ballistic": 5, "impact": 2},
    "weapons": [{"name": "Pistol", "code": "9M", "skill": 5, "recoil_compensation": 1}],
}
# Tukan's burst (10S, 7 successes at TN 4); the guard resists with Body 4 + pool 2
# = 6 dice at TN 10 - 5 = 5: 6+2, 5 succeed -> net 5: Deadly + 1 overflow.
BURST = {"weapon": "Hackler", "rounds": 3, "recoil_compensation": 3, "range": "short"}
BURST_DICE = [5, 5, 5, 5, 5, 5, 5, 6, 2, 5, 1, 1, 2, 3]


def table(**settings: Any) -> RulesetHarness:
    harness = RulesetHarness(SR2Ruleset(), settings={"ruleset": settings})
    harness.add_actor("Tukan", TUKAN, actor_id="tukan", player=True)
    harness.add_actor("Guard", GUARD, actor_id="guard")
    return harness


def rolls(data: dict[str, Any]) -> list[list[int]]:
    return [die["rolls"] for group in data["dice"] for die in group["dice"]]


def burst(harness: RulesetHarness) -> tuple[dict[str, Any], dict[str, Any]]:
    params = {**BURST, "defender_pool": 2}
    harness.resolve("attack", actor="tukan", targets=["guard"], params=params, dice=BURST_DICE)
    return harness.views()


def test_attack_on_an_npc_hides_its_boxes_body_armour_and_resistance_tn():
    harness = table()
    gm, player = burst(harness)
    assert gm["data"]["outcome"]["crossed"] == {"stun": 0, "physical": 10, "overflow": 1, "lost": 0}
    resistance = gm["data"]["outcome"]["resistance"]
    assert (resistance["body"], resistance["armor"], resistance["tn"]) == (4, 5, 5)
    assert gm["data"]["outcome"]["defender_after"]["physical"] == 10
    assert "Deadly, 1 overflow" in gm["data"]["narration"]
    assert any("Body 4 + pool 2" in line for line in gm["data"]["steps"])

    data = player["data"]
    text = json.dumps(player)
    assert not all_keys(data) & {"crossed", "body", "armor", "defender_pool"}
    assert not all_keys(data["outcome"]["resistance"]) & {"tn", "tn_raw", "pool"}
    assert '"physical": 10' not in text and '"overflow": 1' not in text
    assert "Body 4" not in text and "armour 5" not in text and "TN 5" not in text
    assert (
        data["narration"]
        == "Tukan hits Guard with Hackler (10S, 7 successes): Deadly; Guard is dying."
    )
    assert data["outcome"]["defender_after"] == {
        "status": "dying",
        "wound_modifier": 3,
        "wound_levels": {"stun": None, "physical": "Deadly"},
    }
    assert data["outcome"]["resistance"]["dice"] == 6
    assert data["outcome"]["resistance"]["successes"] == 2
    armour = data["outcome"]["resistance"]["tn_parts"][1]
    assert armour == {"part": "ballistic armour", "value": None}
    resist = data["dice"][1]
    assert "target" not in resist and "note" not in resist
    assert (
        "Resistance TN hidden: power 10 - ballistic armour (hidden) + wound modifier 0 (SR-9)"
        in (data["steps"])
    )
    assert "Wound levels now: Physical Deadly; status dying (SR-12, SR-13)" in data["steps"]
    # the dice are public, and the attacker (a player's) keeps its numbers
    assert rolls(data) == rolls(gm["data"])
    assert data["outcome"]["attack"] == gm["data"]["outcome"]["attack"]
    # the stored event is not changed by the players' view
    assert harness.views()[0] == gm


def test_show_npc_details_shows_the_boxes_but_not_the_sheet():
    gm, player = burst(table(show_npc_details=True))
    data = player["data"]
    assert data["outcome"]["crossed"] == gm["data"]["outcome"]["crossed"]
    assert data["outcome"]["defender_after"] == gm["data"]["outcome"]["defender_after"]
    assert data["narration"] == gm["data"]["narration"]
    assert not all_keys(data) & {"body", "armor", "defender_pool"}
    assert "tn" not in data["outcome"]["resistance"]
    assert "Body 4" not in json.dumps(data)


def test_show_npc_sheet_shows_body_armour_and_tn_but_not_the_boxes():
    gm, player = burst(table(show_npc_sheet=True))
    data = player["data"]
    assert data["outcome"]["resistance"] == gm["data"]["outcome"]["resistance"]
    assert data["params"]["defender_pool"] == 2
    assert data["dice"][1]["target"] == 5
    assert "crossed" not in data["outcome"]
    assert "Deadly, 1 overflow" not in data["narration"]


def test_both_settings_show_the_resolution_as_the_gm_sees_it():
    gm, player = burst(table(show_npc_details=True, show_npc_sheet=True))
    assert player["data"] == gm["data"]


def test_an_npc_attacker_keeps_its_skill_pool_and_recoil_to_itself():
    harness = table()
    # Pistol 9M x 3 = 12S; TN 2 + recoil (3 - compensation 1) = 4; the guard spends 1 pool.
    params = {"weapon": "Pistol", "rounds": 3, "tn": 2, "attacker_pool": 1}
    harness.resolve(
        "attack", actor="guard", targets=["tukan"], params=params, dice=[5] * 6 + [1] * 5
    )
    gm, player = harness.views()
    assert gm["data"]["outcome"]["attack"]["skill"] == 5
    assert gm["data"]["outcome"]["attack"]["tn"] == 4
    data = player["data"]
    attack = data["outcome"]["attack"]
    assert attack == {"dice": 6, "successes": 6, "botch": False}
    assert not all_keys(data["params"]) & {"attacker_pool", "recoil_compensation"}
    assert "target" not in data["dice"][0] and "note" not in data["dice"][0]
    assert "skill 5" not in json.dumps(data) and "compensation 1" not in json.dumps(data)
    assert "Attack: 6 dice vs a hidden TN: [5, 5, 5, 5, 5, 5] -> 6 successes" in data["steps"]
    # Tukan is a player's: his resistance and boxes stay
    assert data["outcome"]["resistance"] == gm["data"]["outcome"]["resistance"]
    assert data["outcome"]["crossed"] == gm["data"]["outcome"]["crossed"]


def test_an_npc_single_shot_keeps_its_tn_without_its_compensation():
    harness = table()
    params = {"weapon": "Pistol", "range": "short"}
    harness.resolve("attack", actor="guard", targets=["tukan"], params=params, dice=[1] * 5)
    gm, player = harness.views()
    assert "recoil (1 rounds, compensation 1)" in json.dumps(gm["data"])
    attack = player["data"]["outcome"]["attack"]
    assert attack["tn"] == 4 and player["data"]["dice"][0]["target"] == 4
    assert attack["tn_parts"][1] == {"part": "recoil (1 round)", "value": 0}
    assert "compensation" not in json.dumps(player["data"])


def test_damage_bleed_and_heal_hide_the_boxes():
    harness = table()
    harness.resolve(
        "damage", targets=["guard"], params={"code": "10D", "attack_successes": 7}, dice=[1] * 4
    )
    gm, player = harness.views()
    assert gm["data"]["outcome"]["crossed"]["overflow"] == 3
    assert "crossed" not in player["data"]["outcome"]
    assert (
        player["data"]["narration"]
        == "Guard resists 10D against 7 successes: Deadly; Guard is dying."
    )

    harness.resolve("bleed", targets=["guard"], params={"boxes": 1})
    gm, player = harness.views()
    assert gm["data"]["narration"] == "Guard bleeds: overflow 4/4, dying."
    assert gm["data"]["outcome"]["overflow"] == 4
    assert player["data"]["narration"] == "Guard bleeds: dying."
    assert player["data"]["outcome"] == {"boxes": 1, "status": "dying"}
    assert "Body" not in json.dumps(player["data"]) and "4/4" not in json.dumps(player["data"])

    harness.resolve("heal", targets=["guard"], params={"monitor": "physical", "boxes": 3})
    gm, player = harness.views()
    assert gm["data"]["outcome"]["removed"] == {"stun": 0, "physical": 0, "overflow": 3}
    assert player["data"]["outcome"] == {"monitor": "physical", "asked": 3, "status": "dying"}
    assert player["data"]["narration"] == "Guard is healed (physical): dying."
    assert player["data"]["steps"] == ["Heal 3 physical boxes (SR-15)"]


def test_bleed_with_show_npc_details_shows_the_overflow_not_the_body():
    harness = table(show_npc_details=True)
    harness.resolve(
        "damage", targets=["guard"], params={"code": "10D", "attack_successes": 7}, dice=[1] * 4
    )
    harness.resolve("bleed", targets=["guard"], params={"boxes": 1})
    _, player = harness.views()
    assert player["data"]["narration"] == "Guard bleeds: overflow 4, dying."
    assert player["data"]["steps"] == ["Bleeding (SR-13): overflow 3 -> 4; status dying"]


def test_new_turn_hides_npc_pools_unless_a_setting_shows_them():
    harness = table()
    harness.resolve("new_turn")
    gm, player = harness.views()
    assert gm["data"]["outcome"]["pools"] == {"tukan": 6, "guard": 3}
    assert gm["data"]["steps"] == ["New combat turn (SR-14): Tukan 6, Guard 3"]
    assert player["data"]["outcome"]["pools"] == {"tukan": 6}
    # each NPC's pool is marked on its own: players read "(hidden)" in its place
    assert player["data"]["steps"] == ["New combat turn (SR-14): Tukan 6, Guard (hidden)"]
    assert '"guard": 3' not in json.dumps(player) and "Guard 3" not in json.dumps(player)

    shown = table(show_npc_sheet=True)
    shown.resolve("new_turn")
    assert shown.views()[1]["data"]["outcome"]["pools"] == {"tukan": 6, "guard": 3}


def test_the_players_view_does_not_change_the_stored_event():
    """The players' view is built from the stored event, which it never changes, under
    any settings; sr2 no longer overrides the deprecated ``player_resolution``."""
    assert SR2Ruleset.player_resolution is Ruleset.player_resolution
    harness = table()
    gm, player = burst(harness)
    (event,) = [e for e in harness.events(harness.table.info.seq - 1)]
    stored = copy.deepcopy((event.data, event.texts, event.private))
    assert stored[0]["outcome"]["crossed"] == gm["data"]["outcome"]["crossed"]
    for settings in ({}, {"show_npc_details": True}, {"show_npc_sheet": True}):
        view = event_view(
            event,
            audience=PLAYERS,
            ruleset=harness.ruleset,
            settings={**harness.table.ruleset_settings, **settings},
            controlled=harness.table.controlled,
        )
        assert view["data"] != gm["data"]
    assert (event.data, event.texts, event.private) == stored
    again = event_view(
        event,
        audience=GM,
        ruleset=harness.ruleset,
        settings=harness.table.ruleset_settings,
        controlled=harness.table.controlled,
    )
    assert again == gm and harness.views() == (gm, player)


# -- turn hooks in encounter events ---------------------------------------------------


def encounter_views(harness: RulesetHarness) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Start an encounter and run it into round 2; each encounter event as the GM and
    as a player sees it."""
    seq = harness.table.info.seq
    harness.request({"type": "encounter.start", "order": ["tukan", "guard"]})
    harness.request({"type": "encounter.next"})
    harness.request({"type": "encounter.next"})
    events = harness.events(seq)
    return [
        (harness.table.view_event(e, gm=True), harness.table.view_event(e, gm=False))
        for e in events
    ]


def round_starts(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [hook for hook in data["hooks"] if hook["hook"] == "on_round_start"]


def test_round_start_hook_hides_npc_pools_in_encounter_events():
    started, _, wrapped = encounter_views(table())
    for (gm, player), round_ in ((started, 1), (wrapped, 2)):
        assert gm["kind"] in ("encounter.started", "encounter.turn")
        (gm_hook,) = round_starts(gm["data"])
        assert gm_hook["outcome"]["pools"] == {"tukan": 6, "guard": 3}
        assert gm_hook["steps"] == [f"Combat turn {round_} (SR-14): Tukan 6, Guard 3"]
        (hook,) = round_starts(player["data"])
        assert hook["outcome"]["pools"] == {"tukan": 6}
        assert hook["steps"] == [f"Combat turn {round_} (SR-14): Tukan 6, Guard (hidden)"]
        assert hook["narration"] == f"Combat turn {round_}: every Combat Pool is refilled."
        assert "action" not in hook and hook["dice"] == []
        text = json.dumps(player)
        assert '"guard": 3' not in text and "Guard 3" not in text
        assert '"guard": 3' in json.dumps(gm) and "Guard 3" in json.dumps(gm)


@pytest.mark.parametrize("setting", ["show_npc_details", "show_npc_sheet"])
def test_round_start_hook_shows_npc_pools_with_a_setting(setting: str):
    for gm, player in encounter_views(table(**{setting: True})):
        assert player["data"]["hooks"] == gm["data"]["hooks"]
    (hook,) = round_starts(encounter_views(table(**{setting: True}))[0][1]["data"])
    assert hook["outcome"]["pools"] == {"tukan": 6, "guard": 3}


def test_a_players_refused_pool_spend_does_not_tell_the_npcs_pool():
    """A player's attack asking too many defender pool dice is refused without
    saying how many the NPC has left (the GM's refusal says it)."""
    from rollbridge.exceptions import RuleViolation
    from rollbridge.testing import PLAYER

    harness = table()
    ask = {"weapon": "Hackler", "range": "short", "defender_pool": 12}
    with pytest.raises(RuleViolation) as player:
        harness.resolve("attack", actor="tukan", targets=["guard"], params=ask, who=PLAYER)
    assert player.value.code == "pool_exhausted"
    assert "left" not in player.value.details and "has 2" not in player.value.message
    with pytest.raises(RuleViolation) as gm:
        harness.resolve("attack", actor="tukan", targets=["guard"], params=ask)
    assert gm.value.details["left"] == GUARD["combat_pool"]


def test_the_docs_show_what_players_read():
    """docs/rulesets/sr2.md quotes, side by side, lines the GM and players read: they
    are the engine's, word for word."""
    import pathlib

    docs = (pathlib.Path(__file__).resolve().parents[3] / "docs/rulesets/sr2.md").read_text()
    quoted: list[str] = []
    gm, player = burst(table())
    for view in (gm, player):
        quoted += [view["data"]["narration"], *view["data"]["steps"][3:5], view["data"]["steps"][8]]
    harness = table()
    params = {"weapon": "Pistol", "rounds": 3, "tn": 2, "attacker_pool": 1}
    harness.resolve(
        "attack", actor="guard", targets=["tukan"], params=params, dice=[5] * 6 + [1] * 5
    )
    for view in harness.views():
        quoted += view["data"]["steps"][1:3]
    harness = table()
    harness.resolve(
        "damage", targets=["guard"], params={"code": "10D", "attack_successes": 7}, dice=[1] * 4
    )
    for action, params in (("bleed", {"boxes": 1}), ("heal", {"monitor": "physical", "boxes": 3})):
        harness.resolve(action, targets=["guard"], params=params)
        for view in harness.views():
            quoted += [view["data"]["narration"], *view["data"]["steps"]]
    harness = table()
    harness.resolve("new_turn")
    for view in harness.views():
        quoted += view["data"]["steps"]
    for line in quoted:
        assert f"`{line}`" in docs, line
