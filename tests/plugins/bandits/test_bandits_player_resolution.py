"""What players see of a bandits resolution that involved an NPC, through the real
engine (the values the ruleset marks private, :mod:`rollbridge.plugins.bandits.privacy`):
the dice, the harm table row and the wounds stay; an NPC's Armour, Steady, Pierce and
stats, the totals built from them and its full state go — unless ``show_npc_details``
is on."""

from __future__ import annotations

import copy
import json
from typing import Any

from rollbridge import Ruleset
from rollbridge.plugins.bandits import BanditsRuleset
from rollbridge.testing import RulesetHarness

ANA = {"stats": {"cool": 2, "steady": 1}, "armour": 1, "pierce": 2, "two_light_weapons": True}
# Armour 3, Pierce 4, hard +3, Steady 2: numbers the players' bandit does not have.
GUARD = {"kind": "extra", "armour": 3, "pierce": 4, "stats": {"hard": 3}}
BOSS = {"kind": "bandit", "armour": 3, "pierce": 4, "stats": {"steady": 2, "hard": 3}}


def table(**settings: Any) -> RulesetHarness:
    harness = RulesetHarness(BanditsRuleset(), settings={"ruleset": settings})
    harness.add_actor("Ana", ANA, actor_id="ana", player=True)
    harness.add_actor("Guard", GUARD, actor_id="guard")
    harness.add_actor("Boss", BOSS, actor_id="boss")
    return harness


def terms(data: dict[str, Any]) -> dict[str, Any]:
    return {t["label"]: t["value"] for t in data["outcome"]["terms"]}


def test_harm_dealt_to_an_extra_hides_its_armour_and_the_total():
    harness = table()
    params = {"direction": "dealt", "attacker_dual_wield": "pierce"}
    harness.resolve("harm", actor="ana", targets=["guard"], params=params, dice=[3, 4])
    gm, player = harness.views()
    assert terms(gm["data"])["Guard's Armour"] == -3
    assert gm["data"]["outcome"]["total"] == 7
    assert gm["data"]["narration"].startswith("Ana harms Guard (dealt, rolled by Ana): 7 → ")

    data = player["data"]
    assert terms(data) == {
        "2d6": 7,
        "Guard's Armour": None,
        "Ana's Pierce": 2,
        "Ana's two light weapons, +1 Pierce (BD-4)": 1,
    }
    assert "total" not in data["outcome"] and "total" not in data["dice"][0]
    assert data["dice"][0]["formula"] == "2d6+?"
    assert data["narration"] == (
        "Ana harms Guard (dealt, rolled by Ana): 7–9 → 2 wounds; Guard: out"
    )
    assert data["steps"][0] == (
        "dealing harm (BD-3), rolled by Ana: 7 (2d6 [3, 4]) − ? (Guard's Armour) + 2 "
        "(Ana's Pierce) + 1 (Ana's two light weapons, +1 Pierce (BD-4)) → 7–9 on the table"
    )
    assert data["outcome"]["state"] == {"wounded": True, "out": True}
    assert "− 3 (Guard's Armour)" not in json.dumps(player, ensure_ascii=False)
    assert [d["value"] for d in data["dice"][0]["dice"]] == [3, 4]  # rolled in the open
    assert data["outcome"]["table"] == gm["data"]["outcome"]["table"]
    assert harness.views()[0] == gm  # the stored event is unchanged


def test_harm_taken_by_an_npc_bandit_hides_steady_armour_and_its_state():
    harness = table()
    harness.resolve(
        "harm", actor="ana", targets=["boss"], params={"direction": "taken"}, dice=[5, 4]
    )
    gm, player = harness.views()
    assert terms(gm["data"])["Boss's Steady"] == -2
    assert gm["data"]["outcome"]["state"]["dual_wield"] is None
    data = player["data"]
    assert terms(data)["Boss's Steady"] is None and terms(data)["Boss's Armour"] is None
    assert data["outcome"]["state"] is None
    assert data["outcome"]["slot"] == gm["data"]["outcome"]["slot"]  # the conditions show it
    assert "dying_turn_started" not in json.dumps(player)


def test_an_npc_attackers_pierce_is_hidden_from_its_sheet_or_its_request():
    harness = table()
    harness.resolve(
        "harm", actor="boss", targets=["ana"], params={"direction": "taken"}, dice=[5, 4]
    )
    gm, player = harness.views()
    assert terms(gm["data"])["Boss's Pierce"] == 4
    assert terms(player["data"])["Boss's Pierce"] is None
    assert terms(player["data"])["Ana's Steady"] == -1  # a player's bandit is seen in full
    assert player["data"]["outcome"]["state"] == gm["data"]["outcome"]["state"]

    params = {"direction": "dealt", "pierce": 5}
    harness.resolve("harm", actor="boss", targets=["ana"], params=params, dice=[1, 2])
    gm, player = harness.views()
    assert "Boss's Pierce 5 given with the request" in gm["data"]["steps"]
    assert "pierce" not in player["data"]["params"]
    assert "Boss's Pierce given with the request" in player["data"]["steps"]
    assert " 5 " not in " ".join(player["data"]["steps"])


def test_an_npc_move_hides_its_stat_and_total_but_not_the_band():
    harness = table()
    params = {"move": "go aggro", "stat": "hard", "modifiers": [{"label": "cover", "value": 1}]}
    harness.resolve("move", actor="boss", params=params, dice=[3, 4])
    gm, player = harness.views()
    assert gm["data"]["outcome"]["total"] == 11
    assert gm["data"]["narration"] == "Boss rolls go aggro with hard: 11, full success (10+)"
    data = player["data"]
    assert data["narration"] == "Boss rolls go aggro with hard: full success (10+)"
    assert data["outcome"]["terms"] == [
        {"label": "stat hard", "value": None},
        {"label": "cover", "value": 1},
    ]
    assert not {"total", "modifier", "modifier_raw", "clamped"} & set(data["outcome"])
    assert data["outcome"]["band"] == "full" and data["outcome"]["dice_total"] == 7
    assert "11" not in json.dumps(data) and "+3" not in json.dumps(data, ensure_ascii=False)


def test_a_move_without_a_stat_is_shown_whole():
    harness = table()
    harness.resolve("move", actor="boss", params={"modifiers": [2]}, dice=[4, 5])
    gm, player = harness.views()
    assert player["data"] == gm["data"]


def test_care_actions_show_an_npc_bandit_state_only_as_player_view_does():
    harness = table()
    params = {"direction": "dealt", "pierce": 6}  # 12 - 3 + 6 = 15: 4 wounds, dying
    harness.resolve("harm", actor="ana", targets=["boss"], params=params, dice=[6, 6])
    harness.resolve("stabilise", actor="ana", targets=["boss"])
    gm, player = harness.views()
    assert gm["data"]["outcome"]["state"]["stabilised"] is True
    assert player["data"]["outcome"]["state"] is None


def test_show_npc_details_shows_the_resolution_as_the_gm_sees_it():
    harness = table(show_npc_details=True)
    params = {"direction": "dealt", "attacker_dual_wield": "pierce"}
    harness.resolve("harm", actor="ana", targets=["guard"], params=params, dice=[3, 4])
    gm, player = harness.views()
    assert player["data"] == gm["data"]
    assert terms(player["data"])["Guard's Armour"] == -3


def test_the_players_view_does_not_change_the_stored_event():
    harness = table()
    harness.resolve(
        "harm", actor="ana", targets=["guard"], params={"direction": "dealt"}, dice=[3, 4]
    )
    (event,) = harness.events(harness.table.info.seq - 1)
    stored = copy.deepcopy(event.data)
    gm = harness.table.view_event(event, gm=True)
    player = harness.table.view_event(event, gm=False)
    assert terms(player["data"])["Guard's Armour"] is None  # something was hidden
    assert event.data == stored
    assert harness.table.view_event(event, gm=True) == gm
    assert terms(gm["data"])["Guard's Armour"] == -3


def test_the_ruleset_no_longer_rewrites_resolutions():
    """Players' views come from the marks alone: the deprecated hook is not overridden."""
    assert BanditsRuleset.player_resolution is Ruleset.player_resolution


# -- turn hooks in encounter events ---------------------------------------------------


def dying_boss_encounter(harness: RulesetHarness) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Harm the boss to dying, then run an encounter until BD-8 kills it at the end of
    its own turn; each encounter event as the GM and as a player sees it."""
    params = {"direction": "dealt", "pierce": 6}  # 12 - 3 + 6 = 15: 4 wounds, dying
    harness.resolve("harm", actor="ana", targets=["boss"], params=params, dice=[6, 6])
    seq = harness.table.info.seq
    harness.request({"type": "encounter.start", "order": ["ana", "boss"]})
    harness.request({"type": "encounter.next"})  # Ana's turn ends, the boss's begins
    harness.request({"type": "encounter.next"})  # the boss's turn ends: BD-8
    events = harness.events(seq)
    return [
        (harness.table.view_event(e, gm=True), harness.table.view_event(e, gm=False))
        for e in events
    ]


def hook(view: dict[str, Any], name: str) -> dict[str, Any]:
    (found,) = [h for h in view["data"]["hooks"] if h["hook"] == name]
    return found


def test_bd8_death_at_turn_end_hides_the_npc_bandits_state():
    *_, (gm, player) = dying_boss_encounter(table())
    assert gm["kind"] == "encounter.turn"
    died = hook(gm, "on_turn_end")
    assert died["outcome"]["state"]["dead"] is True
    assert "dying_turn_started" in json.dumps(gm) and '"slots"' in json.dumps(gm)

    shown = hook(player, "on_turn_end")
    assert shown["outcome"] == {"event": "died", "actor": "boss", "state": None}
    assert shown["narration"] == "Boss dies: nobody stabilised them in time (BD-8)"
    assert shown["steps"] == died["steps"] and shown["dice"] == died["dice"]
    assert "action" not in shown
    text = json.dumps(player)
    assert "dying_turn_started" not in text and '"slots"' not in text
    assert '"stabilised"' not in text and '"dual_wield"' not in text
    (boss,) = player["actors"]
    assert boss["common"]["status"] == "dead"  # what player_view shows


def test_turn_start_countdown_of_an_npc_stays_whole():
    _, (gm, player), _ = dying_boss_encounter(table())
    assert hook(player, "on_turn_start") == hook(gm, "on_turn_start")
    assert hook(player, "on_turn_start")["narration"] == (
        "Boss is dying: dead at the end of this turn unless stabilised (BD-8)"
    )
    assert "dying_turn_started" not in json.dumps(player)


def test_turn_hooks_show_an_npcs_state_with_show_npc_details():
    views_ = dying_boss_encounter(table(show_npc_details=True))
    for gm, player in views_:
        assert player["data"] == gm["data"]
    state = hook(views_[-1][1], "on_turn_end")["outcome"]["state"]
    assert state["dead"] is True and state["dying_turn_started"] is False


# -- BD-4's stance is the GM's or the actor's player's (review of 4 December 2026) ------


def refusal(harness: RulesetHarness, who, **params: Any) -> tuple[str, str]:
    """The code and message of a ``harm`` Ana deals to the target, as ``who`` asks."""
    from rollbridge.exceptions import RollbridgeError

    before = copy.deepcopy({a: harness.state(a) for a in ("ana", "guard", "boss")})
    try:
        harness.resolve("harm", actor="ana", targets=[params.pop("target")],
                        params={"direction": "dealt", **params}, who=who, dice=[3, 4])  # fmt: skip
    except RollbridgeError as refused:
        assert {a: harness.state(a) for a in before} == before  # nothing changed
        return refused.code, refused.message
    return "done", ""


def test_a_player_cannot_choose_an_npcs_stance_and_learns_nothing_from_trying():
    """Before, a player naming an NPC target's BD-4 choice was refused
    ``no_two_light_weapons`` (the NPC carries no pair: its sheet) or
    ``dual_wield_locked`` (its stance this turn: its state), or it was applied. Now the
    choice is the GM's or the actor's player's: refused before it is checked, alike
    for an NPC with or without a pair."""
    from rollbridge.testing import GM, PLAYER

    armed = {**BOSS, "two_light_weapons": True}
    for boss in (BOSS, armed):
        harness = table()
        harness.request({"type": "actor.update", "actor": "boss", "sheet": boss})
        code, message = refusal(harness, PLAYER, target="boss", target_dual_wield="armour")
        assert code == "stance_not_yours" and "two_light_weapons" not in message
        assert "params.target_dual_wield" in message
    # the GM may choose it (refused by the rules only when they refuse it)
    harness = table()
    assert refusal(harness, GM, target="boss", target_dual_wield="armour")[0] == (
        "no_two_light_weapons"
    )
    # a player chooses for its own actor
    assert refusal(table(), PLAYER, target="guard", attacker_dual_wield="pierce") == ("done", "")
