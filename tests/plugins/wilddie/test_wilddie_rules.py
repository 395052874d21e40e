"""Each rule of rulesets/wilddie.md by number (WD-1 … WD-10)."""

from __future__ import annotations

import pytest

from rollbridge import Actor, TurnContext
from rollbridge.dice import ScriptedDice
from rollbridge.exceptions import InvalidParams, InvalidSheet, RuleViolation, UnknownRequest
from rollbridge.plugins.wilddie.state import ROLL_MEMORY
from rollbridge.plugins.wilddie.traits import ATTRIBUTES, SKILLS, defense, toughness

# -- WD-1 traits ------------------------------------------------------------------


def test_WD1_six_attributes_and_fourteen_skills(wd):
    schema = wd.ruleset.sheet_schema
    assert tuple(schema["properties"]["attributes"]["properties"]) == ATTRIBUTES
    assert len(ATTRIBUTES) == 6
    assert set(schema["properties"]["skills"]["properties"]) == set(SKILLS)
    assert len(SKILLS) == 14
    assert SKILLS["fighting"] == "reaction" and SKILLS["shooting"] == "coordination"


def test_WD1_trait_dice_are_d4_to_d12(wd):
    for die in ("d4", "d6", "d8", "d10", "d12"):
        wd.actor("a", strength=die, skills={"fighting": die})
    with pytest.raises(InvalidSheet):
        wd.actor("a", strength="d20")
    with pytest.raises(InvalidSheet):
        wd.actor("a", skills={"fighting": "d3"})
    with pytest.raises(InvalidSheet):
        wd.actor("a", skills={"juggling": "d6"})
    with pytest.raises(InvalidSheet):
        wd.ruleset.validate_sheet({"attributes": {"strength": "d6"}})  # five missing


def test_WD1_attribute_test_rolls_the_attribute_die(wd):
    ana = wd.actor("ana", intuition="d10")
    res = wd.resolve("trait", {"trait": "intuition"}, actor=ana, dice=[9, 1])
    assert res.outcome["trait_die"]["faces"] == 10
    assert res.outcome["total"] == 9


def test_WD1_untrained_skill_rolls_d4_minus_2_on_both_dice(wd):
    """Reading: the −2 is a modifier of the roll, so the wild die gets it too (WD-3)."""
    ana = wd.actor("ana", coordination="d12")  # the linked attribute does not matter
    res = wd.resolve("trait", {"trait": "stealth"}, actor=ana, dice=[3, 5])
    out = res.outcome
    assert out["untrained"] is True
    assert out["trait_die"]["faces"] == 4
    assert out["trait_die"]["modified"] == 1
    assert out["wild_die"]["modified"] == 3
    assert out["total"] == 3
    assert out["success"] is False
    assert {"value": -2, "note": "untrained"} in out["modifiers"]


def test_WD1_untrained_d4_still_aces(wd):
    ana = wd.actor("ana")
    res = wd.resolve("trait", {"trait": "lockpicking"}, actor=ana, dice=[4, 3, 1])
    assert res.outcome["trait_die"]["rolls"] == [4, 3]
    assert res.outcome["total"] == 5  # 4 + 3 − 2


# -- WD-2 aces --------------------------------------------------------------------


def test_WD2_trait_die_aces_6_6_2_is_14(wd):
    guard = wd.actor("g", kind="npc", strength="d6")
    res = wd.resolve("trait", {"trait": "strength", "difficulty": 4}, actor=guard, dice=[6, 6, 2])
    die = res.outcome["trait_die"]
    assert die["rolls"] == [6, 6, 2]
    assert die["value"] == 14
    assert die["aces"] == 2
    assert res.dice[0].dice[0].rolls == (6, 6, 2)


def test_WD2_damage_dice_ace(wd):
    target = wd.actor("t", vigor="d4")
    res = wd.resolve("damage", {"dice": "2d6"}, targets=[target], dice=[6, 6, 2, 3])
    assert [d.rolls for d in res.dice[0].dice] == [(6, 6, 2), (3,)]
    assert res.outcome["total"] == 17


def test_WD2_strength_die_aces_in_melee_damage(wd):
    ana = wd.actor("ana", strength="d4")
    target = wd.actor("t", vigor="d12")
    res = wd.resolve(
        "damage", {"dice": "d6", "melee": True}, actor=ana, targets=[target], dice=[4, 4, 1, 2]
    )
    assert res.dice[0].label.startswith("Strength")
    assert res.dice[0].dice[0].rolls == (4, 4, 1)
    assert res.outcome["total"] == 11


# -- WD-3 trait test --------------------------------------------------------------


def test_WD3_default_difficulty_4_and_equal_succeeds(wd):
    guard = wd.actor("g", kind="npc")
    res = wd.resolve("trait", {"trait": "vigor"}, actor=guard, dice=[4])
    assert res.outcome["difficulty"] == 4
    assert res.outcome["success"] is True
    res = wd.resolve("trait", {"trait": "vigor", "difficulty": 5}, actor=guard, dice=[4])
    assert res.outcome["success"] is False


def test_WD3_same_modifiers_on_trait_and_wild_die_and_better_kept(wd):
    ana = wd.actor("ana", vigor="d8")
    params = {"trait": "vigor", "modifiers": [{"value": 1, "note": "cover"}, {"value": -3}]}
    res = wd.resolve("trait", params, actor=ana, dice=[3, 5])
    out = res.outcome
    assert out["modifier"] == -2
    assert out["trait_die"]["modified"] == 1
    assert out["wild_die"]["modified"] == 3
    assert out["kept"] == "wild"
    assert out["total"] == 3
    dropped = [d for d in res.dice[0].dice if not d.kept]
    assert [d.faces for d in dropped] == [8]


def test_WD3_trait_die_kept_when_better(wd):
    ana = wd.actor("ana", vigor="d8")
    res = wd.resolve("trait", {"trait": "vigor"}, actor=ana, dice=[7, 2])
    assert res.outcome["kept"] == "trait"
    assert res.outcome["total"] == 7
    assert "wild" in res.dice[0].dice[1].tags and not res.dice[0].dice[1].kept


@pytest.mark.parametrize(
    ("roll", "difficulty", "success", "raises"),
    [
        (3, 4, False, 0),
        (4, 4, True, 0),
        (7, 4, True, 0),
        (8, 4, True, 1),
        (11, 4, True, 1),
        (12, 4, True, 2),
        (10, 6, True, 1),
        (9, 6, True, 0),
    ],
)
def test_WD3_raises_are_full_4s_above_difficulty(wd, roll, difficulty, success, raises):
    guard = wd.actor("g", kind="npc", vigor="d12")
    face = min(roll, 11)  # a 12 would ace; the rest comes as a modifier
    params = {"trait": "vigor", "difficulty": difficulty, "modifiers": [{"value": roll - face}]}
    res = wd.resolve("trait", params, actor=guard, dice=[face])
    assert res.outcome["total"] == roll
    assert res.outcome["success"] is success
    assert res.outcome["raises"] == raises


def test_WD3_npc_never_rolls_wild_die(wd):
    guard = wd.actor("g", kind="npc", skills={"fighting": "d8"})
    target = wd.actor("t")
    res = wd.resolve("attack", {"mode": "melee"}, actor=guard, targets=[target], dice=[1])
    assert res.outcome["wild_die"] is None
    assert [d.faces for d in res.dice[0].dice] == [8]


def test_WD3_damage_never_gets_wild_die(wd):
    ana = wd.actor("ana", strength="d8")
    target = wd.actor("t")
    # a pc's melee damage draws the Strength d8 and the weapon d6, nothing else
    res = wd.resolve(
        "damage", {"dice": "d6", "melee": True}, actor=ana, targets=[target], dice=[1, 1]
    )
    assert sum(len(g.dice) for g in res.dice) == 2
    assert all("wild" not in d.tags for g in res.dice for d in g.dice)


# -- WD-4 chips -------------------------------------------------------------------


def test_WD4_pc_starts_with_3_chips_npc_with_none(wd):
    assert wd.actor("a").state["chips"] == 3
    assert wd.actor("g", kind="npc").state["chips"] == 0
    assert wd.actor("b", chips=5).state["chips"] == 5


def test_WD4_chip_rerolls_the_wild_die_when_picked(wd):
    ana = wd.actor("ana", vigor="d8")
    first = wd.resolve("trait", {"trait": "vigor"}, actor=ana, dice=[2, 1], request_id="r1")
    ana = wd.after(ana, first)
    res = wd.resolve("chip", {"roll": "r1", "die": "wild"}, actor=ana, dice=[5])
    assert res.outcome["trait_die"]["rolls"] == [2]
    assert res.outcome["wild_die"]["rolls"] == [5]
    assert res.outcome["kept"] == "wild"
    assert res.outcome["total"] == 5
    assert res.outcome["before"]["total"] == 2
    assert res.outcome["chips_spent"] == 1
    tags = [d.tags for d in res.dice[0].dice]
    assert any("rerolled" in t for t in tags) and any("reroll" in t for t in tags)


def test_WD4_setting_whole_roll_rerolls_both_dice(wd):
    ana = wd.actor("ana", vigor="d8")
    first = wd.resolve("trait", {"trait": "vigor"}, actor=ana, dice=[2, 1], request_id="r1")
    ana = wd.after(ana, first)
    res = wd.resolve(
        "chip", {"roll": "r1"}, actor=ana, dice=[8, 3, 6, 1], settings={"chip_reroll": "whole_roll"}
    )
    assert res.outcome["rerolled"] == ["trait", "wild"]
    assert res.outcome["trait_die"]["rolls"] == [8, 3]
    assert res.outcome["wild_die"]["rolls"] == [6, 1]
    assert res.outcome["total"] == 11
    assert res.states["ana"]["chips"] == 2


def test_WD4_whole_roll_of_an_npc_rerolls_its_one_die(wd):
    guard = wd.actor("g", kind="npc", chips=1)
    first = wd.resolve("trait", {"trait": "vigor"}, actor=guard, dice=[1], request_id="r1")
    guard = wd.after(guard, first)
    res = wd.resolve("chip", {}, actor=guard, dice=[5], settings={"chip_reroll": "whole_roll"})
    assert res.outcome["rerolled"] == ["trait"]
    assert res.outcome["total"] == 5


def test_WD4_chip_without_roll_means_latest_roll(wd):
    ana = wd.actor("ana")
    for rid, dice in (("r1", [1, 1]), ("r2", [2, 2])):
        ana = wd.after(
            ana, wd.resolve("trait", {"trait": "vigor"}, actor=ana, dice=dice, request_id=rid)
        )
    res = wd.resolve("chip", {}, actor=ana, dice=[6, 1])
    assert res.outcome["roll"] == "r2"
    assert res.outcome["before"]["total"] == 2
    assert res.outcome["total"] == 7


def test_WD4_chip_reroll_of_an_attack_recomputes_the_hit(wd):
    ana = wd.actor("ana", skills={"shooting": "d8"})
    guard = wd.actor("g", kind="npc")
    miss = wd.resolve(
        "attack",
        {"mode": "ranged", "range": "long"},
        actor=ana,
        targets=[guard],
        dice=[3, 2],
        request_id="a1",
    )
    assert miss.outcome["hit"] is False
    ana = wd.after(ana, miss)
    res = wd.resolve("chip", {"roll": "a1"}, actor=ana, dice=[8, 1])
    assert res.outcome["difficulty"] == 8
    assert res.outcome["hit"] is True and res.outcome["target"] == "g"

    # a ranged difficulty is public and remembered: the chip may name the target or not
    again = wd.resolve("chip", {"roll": "a1"}, actor=ana, targets=[guard], dice=[8, 1])
    assert again.outcome == res.outcome


def test_WD4_chip_reroll_of_a_melee_attack_recomputes_the_defense_from_the_target(wd):
    ana = wd.actor("ana", skills={"fighting": "d8"})
    guard = wd.actor("g", kind="npc", skills={"fighting": "d10"})  # Defense 7
    miss = wd.resolve(
        "attack", {"mode": "melee"}, actor=ana, targets=[guard], dice=[2, 3], request_id="a1"
    )
    assert (miss.outcome["difficulty"], miss.outcome["hit"]) == (7, False)
    record = miss.states["ana"]["rolls"][-1]
    assert "difficulty" not in record and record["against"] == "defense"
    ana = wd.after(ana, miss)
    res = wd.resolve("chip", {"roll": "a1"}, actor=ana, targets=[guard], dice=[8, 3])
    assert (res.outcome["total"], res.outcome["difficulty"]) == (11, 7)
    assert (res.outcome["hit"], res.outcome["raises"]) == (True, 1)
    assert res.outcome["before"] == {"kept": "wild", "total": 3, "success": False, "raises": 0}
    assert "difficulty 7 = Defense of G (2 + half of Fighting d10)" in res.steps
    spent = res.states["ana"]["rolls"][-1]
    assert spent["chip_spent"] is True and spent["trait_die"]["rolls"] == [8, 3]
    assert {k: v for k, v in spent.items() if k not in ("trait_die", "chip_spent")} == {
        k: v for k, v in record.items() if k not in ("trait_die", "chip_spent")
    }
    # the Defense is read when the chip is spent: a sheet changed since then counts
    slower = wd.actor("g", kind="npc", skills={"fighting": "d4"})  # Defense 4
    res = wd.resolve("chip", {"roll": "a1"}, actor=ana, targets=[slower], dice=[8, 3])
    assert (res.outcome["difficulty"], res.outcome["raises"]) == (4, 1)


def test_WD4_rolls_without_request_id_are_named_by_sequence(wd):
    ana = wd.actor("ana")
    ana = wd.after(ana, wd.resolve("trait", {"trait": "vigor"}, actor=ana, dice=[1, 1]))
    assert ana.state["rolls"][-1]["id"] == "#1"
    res = wd.resolve("chip", {"roll": "#1"}, actor=ana, dice=[4])
    assert res.outcome["total"] == 4


def test_WD4_roll_memory_is_bounded(wd):
    ana = wd.actor("ana", chips=3)
    for i in range(ROLL_MEMORY + 2):
        ana = wd.after(
            ana, wd.resolve("trait", {"trait": "vigor"}, actor=ana, dice=[1, 1], request_id=f"r{i}")
        )
    assert len(ana.state["rolls"]) == ROLL_MEMORY
    assert ana.state["rolls"][0]["id"] == "r2"
    with pytest.raises(UnknownRequest):
        wd.resolve("chip", {"roll": "r0"}, actor=ana, dice=[4])


def test_WD4_gm_awards_chips(wd):
    ana = wd.actor("ana", state={"chips": 0})
    bo = wd.actor("bo", state={"chips": 2})
    spec = wd.ruleset.actions["award_chips"]
    assert spec.gm_only is True
    res = wd.resolve("award_chips", {"count": 2}, targets=[ana, bo])
    assert res.states["ana"]["chips"] == 2
    assert res.states["bo"]["chips"] == 4
    assert res.outcome["targets"]["bo"] == {"given": 2, "chips": 4}


def test_WD4_awarded_chip_can_be_spent(wd):
    ana = wd.actor("ana", state={"chips": 0})
    ana = wd.after(ana, wd.resolve("trait", {"trait": "vigor"}, actor=ana, dice=[1, 1]))
    with pytest.raises(RuleViolation) as err:
        wd.resolve("chip", {}, actor=ana, dice=[4])
    assert err.value.code == "no_chips"
    ana = wd.after(ana, wd.resolve("award_chips", {}, targets=[ana]))
    res = wd.resolve("chip", {}, actor=ana, dice=[4])
    assert res.states["ana"]["chips"] == 0


# -- WD-5 derived values ----------------------------------------------------------


@pytest.mark.parametrize(
    ("die", "value"), [("d4", 4), ("d6", 5), ("d8", 6), ("d10", 7), ("d12", 8)]
)
def test_WD5_defense_and_toughness_are_2_plus_half_the_die(wd, die, value):
    actor = wd.actor("a", vigor=die, skills={"fighting": die})
    assert defense(actor.sheet) == value
    assert toughness(actor.sheet) == value


def test_WD5_untrained_defense_is_2_and_armour_adds_to_toughness(wd):
    assert defense(wd.actor("a").sheet) == 2
    assert toughness(wd.actor("a", vigor="d6").sheet) == 5
    assert toughness(wd.actor("a", vigor="d6", armor=2).sheet) == 7
    armoured = wd.actor("t", vigor="d6", armor=2)
    res = wd.resolve("damage", {"dice": "d10"}, targets=[armoured], dice=[6])
    assert res.outcome["toughness"] == 7
    assert res.outcome["result"] == "none"


# -- WD-6 attacks -----------------------------------------------------------------


def test_WD6_melee_is_fighting_against_defense(wd):
    ana = wd.actor("ana", skills={"fighting": "d10", "shooting": "d4"})
    guard = wd.actor("g", kind="npc", skills={"fighting": "d8"})
    res = wd.resolve("attack", {"mode": "melee"}, actor=ana, targets=[guard], dice=[6, 1])
    assert res.outcome["trait"] == "fighting"
    assert res.outcome["trait_die"]["faces"] == 10
    assert res.outcome["difficulty"] == 6
    assert res.outcome["hit"] is True
    res = wd.resolve("attack", {"mode": "melee"}, actor=ana, targets=[guard], dice=[5, 1])
    assert res.outcome["hit"] is False


@pytest.mark.parametrize(
    ("band", "size", "difficulty"),
    [
        ("short", None, 4),
        ("medium", None, 6),
        ("long", None, 8),
        ("medium", "large", 4),
        ("short", "small", 6),
        ("long", "huge", 4),
        ("short", "tiny", 10),
    ],
)
def test_WD6_ranged_is_shooting_by_range_and_size(wd, band, size, difficulty):
    ana = wd.actor("ana", skills={"shooting": "d6"})
    guard = wd.actor("g", kind="npc")
    params = {"mode": "ranged", "range": band}
    if size:
        params["size"] = size
    res = wd.resolve("attack", params, actor=ana, targets=[guard], dice=[1, 1])
    assert res.outcome["trait"] == "shooting"
    assert res.outcome["difficulty"] == difficulty


def test_WD6_untrained_attack_rolls_d4_minus_2(wd):
    ana = wd.actor("ana")
    guard = wd.actor("g", kind="npc")
    res = wd.resolve("attack", {"mode": "melee"}, actor=ana, targets=[guard], dice=[4, 1, 2])
    assert res.outcome["trait_die"]["faces"] == 4
    assert res.outcome["total"] == 3  # (4+1) − 2 against Defense 2
    assert res.outcome["hit"] is True


def test_WD6_parameters_that_do_not_fit_the_mode_are_refused(wd):
    ana = wd.actor("ana")
    guard = wd.actor("g", kind="npc")
    with pytest.raises(InvalidParams):
        wd.resolve("attack", {"mode": "melee", "range": "short"}, actor=ana, targets=[guard])
    with pytest.raises(InvalidParams):
        wd.resolve("attack", {"mode": "ranged"}, actor=ana, targets=[guard])


# -- WD-7 damage ------------------------------------------------------------------


def test_WD7_melee_damage_adds_the_strength_die(wd):
    ana = wd.actor("ana", strength="d10")
    target = wd.actor("t", vigor="d6")
    res = wd.resolve(
        "damage", {"dice": "d6", "melee": True}, actor=ana, targets=[target], dice=[3, 2]
    )
    assert res.outcome["strength"] == "d10"
    assert [g.dice[0].faces for g in res.dice] == [10, 6]
    assert res.outcome["total"] == 5
    assert res.outcome["result"] == "shaken"


def test_WD7_ranged_damage_is_weapon_dice_only_with_constant(wd):
    target = wd.actor("t", vigor="d6")
    res = wd.resolve("damage", {"dice": "2d6+1"}, targets=[target], dice=[2, 3])
    assert res.outcome["total"] == 6
    assert res.outcome["strength"] is None


def test_WD7_melee_damage_needs_the_attacker(wd):
    with pytest.raises(InvalidParams):
        wd.resolve("damage", {"dice": "d6", "melee": True}, targets=[wd.actor("t")])


@pytest.mark.parametrize("expr", ["", "2d", "d1", "-d6", "2d6+x", "21d6", "3", "2d6 3"])
def test_WD7_bad_damage_expressions_are_invalid_params(wd, expr):
    with pytest.raises(InvalidParams):
        wd.resolve("damage", {"dice": expr or " "}, targets=[wd.actor("t")])


@pytest.mark.parametrize(
    ("total", "result"), [(5, "none"), (6, "shaken"), (9, "shaken"), (10, "wound"), (14, "wound")]
)
def test_WD7_thresholds_against_toughness(wd, total, result):
    target = wd.actor("t", vigor="d8")  # Toughness 6
    res = wd.resolve("damage", {"dice": "d20"}, targets=[target], dice=[total])
    assert res.outcome["result"] == result


def test_WD7_a_wounded_character_is_also_shaken(wd):
    target = wd.actor("t", vigor="d8")
    res = wd.resolve("damage", {"dice": "d12"}, targets=[target], dice=[10])
    assert res.states["t"]["wounds"] == 1
    assert res.states["t"]["shaken"] is True


@pytest.mark.parametrize(
    ("total", "one", "per_raise"), [(10, 1, 1), (13, 1, 1), (14, 1, 2), (18, 1, 3)]
)
def test_WD7_setting_wounds_per_hit(wd, total, one, per_raise):
    target = wd.actor("t", vigor="d8")
    res = wd.resolve("damage", {"dice": "d20"}, targets=[target], dice=[total])
    assert res.states["t"]["wounds"] == one
    res = wd.resolve(
        "damage",
        {"dice": "d20"},
        targets=[target],
        dice=[total],
        settings={"wounds_per_hit": "per_raise"},
    )
    assert res.outcome["wounds_inflicted"] == per_raise
    assert res.states["t"]["wounds"] == per_raise


def test_WD7_per_raise_shaken_plus_success_is_one_wound(wd):
    target = wd.actor("t", vigor="d8", state={"shaken": True})
    res = wd.resolve(
        "damage",
        {"dice": "d20"},
        targets=[target],
        dice=[7],
        settings={"wounds_per_hit": "per_raise"},
    )
    assert res.outcome["wounds_inflicted"] == 1


# -- WD-8 wounds ------------------------------------------------------------------


def test_WD8_each_wound_is_minus_1_to_trait_rolls(wd):
    ana = wd.actor("ana", vigor="d8", state={"wounds": 2})
    res = wd.resolve("trait", {"trait": "vigor"}, actor=ana, dice=[5, 2])
    assert res.outcome["modifier"] == -2
    assert res.outcome["total"] == 3
    assert res.outcome["success"] is False
    assert {"value": -2, "note": "2 wounds"} in res.outcome["modifiers"]
    common = wd.ruleset.common_state(ana)
    assert common.modifier == -2 and common.status == "impaired"


def test_WD8_pc_fourth_wound_incapacitates(wd):
    ana = wd.actor("ana", vigor="d4", state={"wounds": 3, "shaken": True})
    common = wd.ruleset.common_state(ana)
    assert common.modifier == -3
    assert common.tracks[0].to_dict() == {"key": "wounds", "label": "Wounds", "value": 3, "max": 3}
    assert common.status == "impaired"
    res = wd.resolve("damage", {"dice": "d6"}, targets=[ana], dice=[4])  # 4 ≥ T4, Shaken → wound
    assert res.states["ana"]["wounds"] == 3
    assert res.states["ana"]["incapacitated"] is True
    down = wd.after(ana, res)
    assert wd.ruleset.common_state(down).status == "down"
    assert "Incapacitated" in wd.ruleset.common_state(down).to_dict()["conditions"]
    with pytest.raises(RuleViolation) as err:
        wd.resolve("trait", {"trait": "vigor"}, actor=down, dice=[4, 4])
    assert err.value.code == "incapacitated"


def test_WD8_three_wounds_do_not_incapacitate_a_pc(wd):
    ana = wd.actor("ana", vigor="d4", state={"wounds": 2})
    res = wd.resolve("damage", {"dice": "d12"}, targets=[ana], dice=[9])
    assert res.states["ana"]["wounds"] == 3
    assert res.states["ana"]["incapacitated"] is False


def test_WD8_npc_is_out_at_first_wound(wd):
    guard = wd.actor("g", kind="npc", vigor="d6")
    common = wd.ruleset.common_state(guard)
    assert common.tracks[0].max == 1 and common.status == "ok"
    res = wd.resolve("damage", {"dice": "d12"}, targets=[guard], dice=[9])
    assert res.states["g"]["wounds"] == 1
    assert res.states["g"]["incapacitated"] is True
    assert wd.ruleset.common_state(wd.after(guard, res)).status == "down"


def test_WD8_gm_heals_wounds(wd):
    ana = wd.actor("ana", state={"wounds": 3, "incapacitated": True, "shaken": True})
    assert wd.ruleset.actions["heal"].gm_only is True
    res = wd.resolve("heal", {"wounds": 1}, targets=[ana])
    assert res.states["ana"]["incapacitated"] is False
    assert res.states["ana"]["wounds"] == 3
    assert res.states["ana"]["shaken"] is True
    res = wd.resolve("heal", {"wounds": 3, "unshake": True}, targets=[ana])
    assert res.states["ana"]["wounds"] == 1
    assert res.states["ana"]["shaken"] is False
    guard = wd.actor("g", kind="npc", state={"wounds": 1, "incapacitated": True})
    res = wd.resolve("heal", {}, targets=[guard])
    assert res.states["g"] == {**guard.state, "wounds": 0, "incapacitated": False}
    with pytest.raises(InvalidParams):
        wd.resolve("heal", {"wounds": 0}, targets=[ana])


def test_WD8_gm_adjusts_the_wound_track(wd):
    ana = wd.actor("ana")
    state = wd.ruleset.adjust(ana, "wounds", 2)
    assert state["wounds"] == 2 and state["shaken"] is False
    state = wd.ruleset.adjust(ana, "wounds", 5)
    assert state["wounds"] == 3 and state["incapacitated"] is True
    healed = wd.ruleset.adjust(Actor(ana.id, ana.name, ana.sheet, state), "wounds", -1)
    assert healed["incapacitated"] is False
    assert dict(ana.state)["wounds"] == 0  # the input was not changed
    with pytest.raises(RuleViolation) as err:
        wd.ruleset.adjust(ana, "chips", 1)
    assert err.value.code == "unknown_track"


# -- WD-9 recovering --------------------------------------------------------------


def _turn(actor, *, supplied=False, round_=2):
    return TurnContext(
        round=round_, actor=actor, participants=(actor,), settings={}, dice_supplied=supplied
    )


def test_WD9_shaken_pc_recovers_at_turn_start_with_wild_die(wd):
    ana = wd.actor("ana", character="d4", state={"shaken": True})
    res = wd.ruleset.on_turn_start(_turn(ana), ScriptedDice([2, 5]))
    assert res is not None
    assert res.outcome["trait"] == "character"
    assert res.outcome["kept"] == "wild"
    assert res.outcome["recovered"] is True
    assert res.states["ana"]["shaken"] is False
    assert res.outcome["round"] == 2


def test_WD9_failed_recovery_stays_shaken(wd):
    ana = wd.actor("ana", character="d8", state={"shaken": True, "wounds": 1})
    dice = ScriptedDice([4, 3])  # 4 − 1 wound = 3 < 4
    res = wd.read(wd.ruleset.on_turn_start(_turn(ana, supplied=True), dice))
    dice.finish()
    assert res.outcome["total"] == 3
    assert res.states["ana"]["shaken"] is True
    assert res.outcome["dice_supplied"] is True
    assert res.steps[0] == "round 2: Ana's turn starts Shaken (dice rolled by the player)"


def test_WD9_npc_recovery_has_no_wild_die(wd):
    guard = wd.actor("g", kind="npc", state={"shaken": True})
    dice = ScriptedDice([4])
    res = wd.ruleset.on_turn_start(_turn(guard), dice)
    dice.finish()
    assert res.outcome["wild_die"] is None
    assert res.states["g"]["shaken"] is False


def test_WD9_no_roll_when_not_shaken_or_incapacitated(wd):
    assert wd.ruleset.on_turn_start(_turn(wd.actor("ana")), ScriptedDice([])) is None
    out = wd.actor("ana", state={"shaken": True, "wounds": 3, "incapacitated": True})
    assert wd.ruleset.on_turn_start(_turn(out), ScriptedDice([])) is None


def test_WD9_recover_action_and_chip_on_a_failed_recovery(wd):
    ana = wd.actor("ana", state={"shaken": True})
    res = wd.resolve("recover", {}, actor=ana, dice=[1, 2], request_id="rec")
    assert res.states["ana"]["shaken"] is True
    ana = wd.after(ana, res)
    res = wd.resolve("chip", {"roll": "rec", "die": "wild"}, actor=ana, dice=[4])
    assert res.outcome["recovered"] is True
    assert res.states["ana"]["shaken"] is False
    with pytest.raises(RuleViolation) as err:
        wd.resolve("recover", {}, actor=wd.after(ana, res), dice=[4, 4])
    assert err.value.code == "not_shaken"


def test_WD9_a_chip_that_fails_a_successful_recovery_leaves_the_character_shaken(wd):
    """WD-4 rerolls a die of the roll (Decision 9: the new die replaces the old);
    WD-9: "success ends Shaken". A recovery that succeeded and is rerolled into a
    failure did not end Shaken: the state says so, as the outcome does."""
    ana = wd.actor("ana", state={"shaken": True})
    res = wd.resolve("recover", {}, actor=ana, dice=[5, 1], request_id="rec")
    assert res.outcome["recovered"] is True and res.states["ana"]["shaken"] is False
    ana = wd.after(ana, res)
    res = wd.resolve("chip", {"roll": "rec", "die": "trait"}, actor=ana, dice=[1])
    assert res.outcome["total"] == 1 and res.outcome["success"] is False
    assert res.outcome["recovered"] is False
    assert res.states["ana"]["shaken"] is True
    assert res.outcome["new_state"]["shaken"] is True
    assert "Shaken did not end" in " ".join(str(step) for step in res.steps)
    # and Shaken again, the character may roll its recovery again
    again = wd.resolve("recover", {}, actor=wd.after(ana, res), dice=[4, 1])
    assert again.states["ana"]["shaken"] is False


def test_WD9_a_chip_on_an_older_recovery_leaves_a_later_ones_result(wd):
    """The latest recovery decides Shaken: rerolling an earlier one, whose Shaken a
    later roll ended, into a failure brings back no Shaken."""
    ana = wd.actor("ana", state={"shaken": True})
    first = wd.resolve("recover", {}, actor=ana, dice=[5, 1], request_id="first")
    ana = wd.after(ana, first)
    ana = Actor(ana.id, ana.name, ana.sheet, {**ana.state, "shaken": True})  # shaken again
    second = wd.resolve("recover", {}, actor=ana, dice=[5, 2], request_id="second")
    ana = wd.after(ana, second)
    assert ana.state["shaken"] is False
    res = wd.resolve("chip", {"roll": "first", "die": "trait"}, actor=ana, dice=[1])
    assert res.outcome["success"] is False and res.states["ana"]["shaken"] is False


def test_WD9_a_chip_that_keeps_a_recovery_successful_changes_nothing_of_shaken(wd):
    ana = wd.actor("ana", state={"shaken": True})
    res = wd.resolve("recover", {}, actor=ana, dice=[2, 5], request_id="rec")
    ana = wd.after(ana, res)
    res = wd.resolve("chip", {"roll": "rec", "die": "trait"}, actor=ana, dice=[1])
    assert res.outcome["success"] is True and res.states["ana"]["shaken"] is False


# -- WD-10 who rolls (the ruleset's part; the engine's part is in test_wilddie_engine) ----


def test_WD10_rolling_actions_need_an_actor_and_gm_actions_are_gm_only(wd):
    actions = wd.ruleset.actions
    for name in ("trait", "attack", "chip", "recover"):
        assert actions[name].actor == "required"
        assert actions[name].gm_only is False
    for name in ("award_chips", "heal"):
        assert actions[name].gm_only is True
    with pytest.raises(InvalidParams):
        wd.resolve("trait", {"trait": "vigor"}, dice=[])


@pytest.mark.parametrize("expr", ["2d6", "2d6x", "2d6!!", "1d6x6 + 1d6", "1d6x>=6+d6", "d6+d6"])
def test_WD7_every_damage_die_aces_however_written(wd, expr):
    target = wd.actor("t", vigor="d12")
    res = wd.resolve("damage", {"dice": expr}, targets=[target], dice=[6, 1, 2])
    assert res.outcome["total"] == 9
    assert [d.rolls for g in res.dice for d in g.dice] == [(6, 1), (2,)]


@pytest.mark.parametrize(
    "expr", ["2d6kh1", "(2d6)", "2d6*2", "2d6x5", "2d6x<6", "1d6r1", "4d6!!>=5", "2d6xo"]
)
def test_WD7_damage_expression_is_weapon_dice_and_constants_only(wd, expr):
    with pytest.raises(InvalidParams):
        wd.resolve("damage", {"dice": expr}, targets=[wd.actor("t")])
