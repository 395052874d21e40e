"""Each rule SR-1 to SR-16 of ../shared/rulesets/sr2.md, by number, with
supplied dice."""

from __future__ import annotations

import pytest

from rollbridge.dice import SeededDice, count_successes, roll_pool
from rollbridge.exceptions import InvalidParams, RuleViolation
from rollbridge.plugins.sr2.codes import BOXES, fire, parse_code, recoil, stage
from rollbridge.plugins.sr2.monitor import wound_level
from rollbridge.plugins.sr2.rolls import roll_test, score

SHOOTER = {"body": 4, "combat_pool": 5, "weapons": [{"name": "Pistol", "code": "9M", "skill": 4}]}


# -- SR-1 dice --------------------------------------------------------------------------


def test_SR1_a_six_rolls_again_and_adds(kit):
    result = kit.resolve("success_test", {"dice": 1, "tn": 4}, dice=[6, 6, 3])
    die = result.dice[0].dice[0]
    assert die.rolls == (6, 6, 3)
    assert die.value == 15
    assert "compounded" in die.tags


def test_SR1_one_success_per_die_however_high(kit):
    result = kit.resolve("success_test", {"dice": 2, "tn": 2}, dice=[6, 6, 6, 5, 3])
    assert [d.value for d in result.dice[0].dice] == [23, 3]
    assert result.outcome["successes"] == 2


def test_SR1_success_when_total_reaches_tn(kit):
    result = kit.resolve("success_test", {"dice": 3, "tn": 5}, dice=[4, 5, 6, 1])
    assert [("success" in d.tags) for d in result.dice[0].dice] == [False, True, True]
    assert result.outcome["successes"] == 2


def test_SR1_fast_roller_matches_the_dice_engine():
    """The plugin's single-pass roller gives exactly the dice engine's records."""
    for seed in range(40):
        for tn in (2, 4, 6, 7, 9, 13):
            mine = roll_test(SeededDice(seed), 12, tn)
            engine, hits = count_successes(roll_pool(SeededDice(seed), 12, 6, compounding=True), tn)
            assert mine.dice == engine
            assert mine.successes == hits
            assert mine.chains == score(engine, tn).chains


# -- SR-2 TN floor ----------------------------------------------------------------------


def test_SR2_tn_below_two_counts_as_two(kit):
    result = kit.resolve("success_test", {"dice": 2, "tn": -3}, dice=[1, 2])
    assert result.outcome["tn"] == 2
    assert result.outcome["tn_raw"] == -3
    assert result.outcome["successes"] == 1
    assert any("floored to 2" in step for step in result.steps)


def test_SR2_resistance_tn_floored(kit):
    """Armour above the power: the resistance TN floors at 2, a 1 still fails."""
    target = kit.actor("t", {"body": 3, "armor": {"ballistic": 9}})
    result = kit.resolve(
        "damage", {"code": "4L", "attack_successes": 1}, targets=[target], dice=[1, 2, 2]
    )
    assert result.outcome["resistance"]["tn_raw"] == -5
    assert result.outcome["resistance"]["tn"] == 2
    assert result.outcome["resistance"]["successes"] == 2


# -- SR-3 rule of one -------------------------------------------------------------------


def test_SR3_all_ones_is_a_botch(kit):
    result = kit.resolve("success_test", {"dice": 3, "tn": 4}, dice=[1, 1, 1])
    assert result.outcome["botch"] is True
    assert result.outcome["successes"] == 0
    assert "botch" in result.dice[0].tags


def test_SR3_not_every_die_a_one_is_no_botch(kit):
    result = kit.resolve("success_test", {"dice": 3, "tn": 6}, dice=[1, 1, 2])
    assert result.outcome["botch"] is False
    assert result.outcome["successes"] == 0


def test_SR3_zero_dice_is_no_botch(kit):
    result = kit.resolve("success_test", {"dice": 0, "tn": 4}, dice=[])
    assert result.outcome["botch"] is False
    assert result.outcome["successes"] == 0


def test_SR3_setting_switches_the_rule_off(kit):
    result = kit.resolve(
        "success_test", {"dice": 2, "tn": 4}, dice=[1, 1], settings={"rule_of_one": False}
    )
    assert result.outcome["botch"] is False


def test_SR3_botched_attack_misses(kit):
    shooter = kit.actor("s", SHOOTER)
    target = kit.actor("t")
    result = kit.resolve(
        "attack", {"weapon": "Pistol", "range": "short"}, shooter, [target], dice=[1, 1, 1, 1]
    )
    assert result.outcome["attack"]["botch"] is True
    assert result.outcome["hit"] is False
    assert "botches" in result.narration


# -- SR-4 damage code -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "expected"),
    [("9M", (9, "M")), ("10S", (10, "S")), ("0L", (0, "L")), ("12D", (12, "D")), ("7m", (7, "M"))],
)
def test_SR4_codes_parse(code, expected):
    assert parse_code(code) == expected


@pytest.mark.parametrize("code", ["7Q", "7V", "M7", "", "7", "9MM", "-1M"])
def test_SR4_bad_codes_are_refused(code):
    with pytest.raises(InvalidParams):
        parse_code(code)


def test_SR4_czech_v_is_not_a_level():
    """The Czech V (vážné) is written S here; V itself is refused, naming the letters."""
    with pytest.raises(InvalidParams, match="use L, M, S or D"):
        parse_code("10V")


# -- SR-5 boxes per level ---------------------------------------------------------------


@pytest.mark.parametrize(("level", "boxes"), [("L", 1), ("M", 3), ("S", 6), ("D", 10)])
def test_SR5_boxes_per_level(kit, level, boxes):
    """Net 0 keeps the code's level; the target crosses that many boxes."""
    assert BOXES[level] == boxes
    target = kit.actor("t", {"body": 6})
    result = kit.resolve(
        "damage", {"code": f"8{level}", "attack_successes": 0}, targets=[target], dice=[2] * 6
    )
    assert result.outcome["boxes"] == boxes
    assert result.states["t"]["physical"] == boxes


# -- SR-6 rounds fired ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("base", "rounds", "expected"),
    [
        ((7, "M"), 1, (7, "M")),
        ((7, "M"), 2, (9, "M")),
        ((7, "M"), 3, (10, "S")),
        ((7, "M"), 5, (12, "S")),
        ((7, "M"), 6, (13, "D")),
        ((7, "S"), 9, (16, "D")),
        ((6, "L"), 10, (16, "D")),
        ((6, "D"), 3, (9, "D")),
    ],
)
def test_SR6_rounds_raise_power_and_level(base, rounds, expected):
    assert fire(*base, rounds)[:2] == expected


# -- SR-7 recoil ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rounds", "compensation", "tn"), [(1, 0, 0), (2, 0, 2), (3, 1, 2), (6, 6, 0), (3, 5, 0)]
)
def test_SR7_recoil(rounds, compensation, tn):
    assert recoil(rounds, compensation) == tn


def test_SR7_recoil_in_the_attack_tn(kit):
    shooter = kit.actor("s", SHOOTER)
    target = kit.actor("t")
    result = kit.resolve(
        "attack",
        {"weapon": "Pistol", "range": "short", "rounds": 3, "recoil_compensation": 1},
        shooter,
        [target],
        dice=[1, 1, 1, 1],
    )
    assert result.outcome["attack"]["tn"] == 4 + 2


def test_SR7_weapon_compensation_from_the_sheet(kit):
    sheet = {
        "body": 4,
        "weapons": [{"name": "SMG", "code": "6M", "skill": 3, "recoil_compensation": 2}],
    }
    shooter = kit.actor("s", sheet)
    result = kit.resolve(
        "attack",
        {"weapon": "SMG", "range": "short", "rounds": 3},
        shooter,
        [kit.actor("t")],
        dice=[1, 1, 1],
    )
    assert result.outcome["attack"]["tn"] == 4 + 1


# -- SR-8 attack test -------------------------------------------------------------------


@pytest.mark.parametrize(("band", "tn"), [("short", 4), ("medium", 5), ("long", 6), ("extreme", 9)])
def test_SR8_range_bands(kit, band, tn):
    shooter = kit.actor("s", SHOOTER)
    result = kit.resolve(
        "attack", {"weapon": "Pistol", "range": band}, shooter, [kit.actor("t")], dice=[1] * 4
    )
    assert result.outcome["attack"]["tn"] == tn


def test_SR8_tn_is_built_from_its_parts(kit):
    """Explicit TN + recoil + the attacker's wound modifier + situational."""
    shooter = kit.actor("s", SHOOTER, stun=3, physical=1)  # +2 and +1
    result = kit.resolve(
        "attack",
        {"weapon": "Pistol", "tn": 3, "rounds": 2, "modifier": 2},
        shooter,
        [kit.actor("t")],
        dice=[1] * 4,
    )
    attack = result.outcome["attack"]
    assert [p["value"] for p in attack["tn_parts"]] == [3, 2, 3, 2]
    assert attack["tn"] == 10
    assert any(step.startswith("Attack TN 10 = given TN 3") for step in result.steps)


def test_SR8_dice_are_skill_plus_pool(kit):
    shooter = kit.actor("s", SHOOTER)
    result = kit.resolve(
        "attack",
        {"weapon": "Pistol", "range": "short", "attacker_pool": 2, "skill": 3},
        shooter,
        [kit.actor("t")],
        dice=[1] * 5,
    )
    assert result.outcome["attack"]["dice"] == 5
    assert len(result.dice[0].dice) == 5


def test_SR8_no_success_misses_and_rolls_no_resistance(kit):
    shooter = kit.actor("s", SHOOTER)
    target = kit.actor("t")
    # Supplied dice hold only the attack test: a resistance roll would exhaust them.
    result = kit.resolve(
        "attack", {"weapon": "Pistol", "range": "long"}, shooter, [target], dice=[2, 3, 4, 5]
    )
    assert result.outcome["hit"] is False
    assert result.outcome["resistance"] is None
    assert result.outcome["boxes"] == 0
    assert "t" not in result.states
    assert len(result.dice) == 1


# -- SR-9 resistance test ---------------------------------------------------------------


def test_SR9_tn_is_power_minus_armour_plus_wounds(kit):
    target = kit.actor("t", {"body": 3, "armor": {"ballistic": 4, "impact": 1}}, physical=3)
    result = kit.resolve(
        "damage", {"code": "10M", "attack_successes": 1}, targets=[target], dice=[2, 2, 2]
    )
    res = result.outcome["resistance"]
    assert [p["value"] for p in res["tn_parts"]] == [10, -4, 2]
    assert res["tn"] == 8


def test_SR9_impact_armour_for_impact_weapons(kit):
    shooter = kit.actor(
        "s",
        {"body": 4, "weapons": [{"name": "Club", "code": "6M", "armor": "impact", "skill": 2}]},
    )
    target = kit.actor("t", {"body": 2, "armor": {"ballistic": 5, "impact": 1}})
    result = kit.resolve(
        "attack", {"weapon": "Club", "range": "short"}, shooter, [target], dice=[5, 5, 2, 2]
    )
    assert result.outcome["armor_type"] == "impact"
    assert result.outcome["resistance"]["armor"] == 1
    assert result.outcome["resistance"]["tn"] == 5


def test_SR9_dice_are_body_plus_pool_and_overrides(kit):
    target = kit.actor("t", {"body": 3, "combat_pool": 4})
    result = kit.resolve(
        "damage",
        {"code": "6M", "attack_successes": 0, "defender_pool": 2, "body": 5, "armor": 2},
        targets=[target],
        dice=[2] * 7,
    )
    res = result.outcome["resistance"]
    assert (res["body"], res["pool"], res["dice"], res["armor"], res["tn"]) == (5, 2, 7, 2, 4)


# -- SR-10 staging ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("level", "net", "final", "overflow"),
    [
        ("M", 0, "M", 0),
        ("M", 1, "M", 0),
        ("M", 2, "S", 0),
        ("M", 3, "S", 0),
        ("M", 4, "D", 0),
        ("M", -1, "M", 0),
        ("M", -2, "L", 0),
        ("M", -4, None, 0),
        ("L", -2, None, 0),
        ("S", 5, "D", 1),
        ("D", 6, "D", 3),
        ("S", -2, "M", 0),
    ],
)
def test_SR10_staging(level, net, final, overflow):
    staged = stage(level, net)
    assert (staged.level, staged.overflow) == (final, overflow)


def test_SR10_seed_examples():
    """10S vs armour 4, 7 vs 2 → D + 1 overflow; 10S vs armour 5, 5 vs 7 → M, 3 boxes."""
    first = stage("S", 7 - 2)
    assert (first.level, first.overflow, first.boxes, first.spare) == ("D", 1, 11, 1)
    second = stage("S", 5 - 7)
    assert (second.level, second.overflow, second.boxes) == ("M", 0, 3)


def test_SR10_spare_success_cancels_like_the_seed_says(kit):
    """Had the first victim rolled 3 instead of 2, the result is the same."""
    assert (stage("S", 7 - 2).level, stage("S", 7 - 2).overflow) == (
        stage("S", 7 - 3).level,
        stage("S", 7 - 3).overflow,
    )


def test_SR10_staged_below_light_deals_nothing(kit):
    target = kit.actor("t", {"body": 4})
    result = kit.resolve(
        "damage", {"code": "6L", "attack_successes": 0}, targets=[target], dice=[6, 1, 6, 1, 2, 2]
    )
    assert result.outcome["level"] is None
    assert result.outcome["boxes"] == 0
    assert "t" not in result.states
    assert "no damage" in result.narration


def test_SR10_staging_steps_are_shown(kit):
    target = kit.actor("t", {"body": 4})
    result = kit.resolve(
        "damage", {"code": "9S", "attack_successes": 6}, targets=[target], dice=[2] * 4
    )
    assert result.outcome["staging"]["path"] == ["S->D", "D->+1 overflow", "D->+1 overflow"]
    assert any(step.startswith("Staging: S->D") for step in result.steps)


# -- SR-11 condition monitors -----------------------------------------------------------


def test_SR11_stun_damage_goes_on_the_stun_monitor(kit):
    target = kit.actor("t", {"body": 4})
    result = kit.resolve(
        "damage",
        {"code": "5M", "damage_type": "stun", "attack_successes": 0},
        targets=[target],
        dice=[2] * 4,
    )
    assert (result.states["t"]["stun"], result.states["t"]["physical"]) == (3, 0)


def test_SR11_stun_past_ten_carries_into_physical(kit):
    target = kit.actor("t", {"body": 4}, stun=8)
    result = kit.resolve(
        "damage",
        {"code": "5S", "damage_type": "stun", "attack_successes": 0},
        targets=[target],
        dice=[2] * 4,
    )
    state = result.states["t"]
    assert (state["stun"], state["physical"]) == (10, 4)
    assert result.outcome["crossed"] == {"stun": 2, "physical": 4, "overflow": 0, "lost": 0}


def test_SR11_stun_carry_setting_off(kit):
    target = kit.actor("t", {"body": 4}, stun=8)
    result = kit.resolve(
        "damage",
        {"code": "5S", "damage_type": "stun", "attack_successes": 0},
        targets=[target],
        dice=[2] * 4,
        settings={"stun_carry": False},
    )
    assert (result.states["t"]["stun"], result.states["t"]["physical"]) == (10, 0)
    assert result.outcome["crossed"]["lost"] == 4


def test_SR11_physical_past_ten_is_overflow_up_to_body_then_dead(kit):
    target = kit.actor("t", {"body": 2}, physical=8)
    result = kit.resolve(
        "damage", {"code": "5D", "attack_successes": 0}, targets=[target], dice=[2, 2]
    )
    state = result.states["t"]
    assert state["physical"] == 10
    assert state["overflow"] == 3  # Body + 1: one past Body is enough to be dead
    assert result.outcome["crossed"]["lost"] == 5
    assert kit.common(target, result).status == "dead"


def test_SR11_overflow_equal_to_body_is_still_alive(kit):
    target = kit.actor("t", {"body": 3}, physical=10, overflow=2)
    result = kit.resolve(
        "damage", {"code": "1L", "attack_successes": 0}, targets=[target], dice=[2, 2, 2]
    )
    assert result.states["t"]["overflow"] == 3
    assert kit.common(target, result).status == "dying"


# -- SR-12 wound level and modifiers ----------------------------------------------------


@pytest.mark.parametrize(
    ("boxes", "level"),
    [(0, None), (1, "L"), (2, "L"), (3, "M"), (5, "M"), (6, "S"), (9, "S"), (10, "D")],
)
def test_SR12_thresholds(boxes, level):
    assert wound_level(boxes) == level


@pytest.mark.parametrize(
    ("stun", "physical", "modifier"),
    [(0, 0, 0), (1, 0, 1), (0, 3, 2), (6, 0, 3), (3, 1, 3), (6, 6, 6), (2, 9, 4)],
)
def test_SR12_modifiers_of_both_monitors_add(kit, stun, physical, modifier):
    common = kit.common(kit.actor("t", stun=stun, physical=physical))
    assert common.modifier == modifier
    if modifier:
        assert common.modifier_note == f"+{modifier} TN, −{modifier} initiative"


def test_SR12_defender_wounds_raise_the_resistance_tn(kit):
    fresh = kit.actor("a", {"body": 2})
    hurt = kit.actor("b", {"body": 2}, stun=6)
    params = {"code": "8M", "attack_successes": 0}
    tn_fresh = kit.resolve("damage", params, targets=[fresh], dice=[2, 2]).outcome["resistance"]
    tn_hurt = kit.resolve("damage", params, targets=[hurt], dice=[2, 2]).outcome["resistance"]
    assert tn_hurt["tn"] - tn_fresh["tn"] == 3


def test_SR12_success_test_may_add_the_wound_modifier(kit):
    hurt = kit.actor("h", physical=3)
    plain = kit.resolve("success_test", {"dice": 1, "tn": 4}, hurt, dice=[4])
    wounded = kit.resolve(
        "success_test", {"dice": 1, "tn": 4, "wound_modifier": True}, hurt, dice=[4]
    )
    assert (plain.outcome["tn"], plain.outcome["successes"]) == (4, 1)
    assert (wounded.outcome["tn"], wounded.outcome["successes"]) == (6, 0)


# -- SR-13 down, dying, dead ------------------------------------------------------------


@pytest.mark.parametrize(
    ("state", "status"),
    [
        ({}, "ok"),
        ({"stun": 2}, "impaired"),
        ({"physical": 9}, "impaired"),
        ({"stun": 10}, "down"),
        ({"physical": 10}, "dying"),
        ({"physical": 10, "stabilised": True}, "down"),
        ({"physical": 10, "overflow": 4}, "dying"),
        ({"physical": 10, "overflow": 5}, "dead"),
    ],
)
def test_SR13_status(kit, state, status):
    assert kit.common(kit.actor("t", {"body": 4}, **state)).status == status


def test_SR13_conditions_name_the_state(kit):
    common = kit.common(kit.actor("t", {"body": 4}, stun=10, physical=10, overflow=1))
    assert common.conditions == ("Stun: Deadly", "Physical: Deadly", "Unconscious", "Dying")


def test_SR13_bleeding_adds_overflow_until_dead(kit):
    target = kit.actor("t", {"body": 2}, physical=10, overflow=1)
    once = kit.resolve("bleed", {}, targets=[target])
    assert once.states["t"]["overflow"] == 2
    assert kit.common(target, once).status == "dying"
    twice = kit.resolve("bleed", {"boxes": 5}, targets=[kit.after(target, once)])
    assert twice.states["t"]["overflow"] == 3
    assert kit.common(target, twice).status == "dead"


def test_SR13_stabilise_stops_bleeding_until_hurt_again(kit):
    target = kit.actor("t", {"body": 3}, physical=10, overflow=1)
    stable = kit.after(target, kit.resolve("stabilise", {}, targets=[target]))
    assert stable.state["stabilised"] is True
    assert kit.common(stable).status == "down"
    with pytest.raises(RuleViolation) as caught:
        kit.resolve("bleed", {}, targets=[stable])
    assert caught.value.code == "stabilised"
    hurt = kit.resolve(
        "damage", {"code": "1L", "attack_successes": 0}, targets=[stable], dice=[2] * 3
    )
    assert hurt.states["t"]["stabilised"] is False
    assert kit.common(stable, hurt).status == "dying"


def test_SR13_bleed_and_stabilise_only_for_the_dying(kit):
    for action in ("bleed", "stabilise"):
        with pytest.raises(RuleViolation) as caught:
            kit.resolve(action, {}, targets=[kit.actor("t", physical=9)])
        assert caught.value.code == "not_dying"


def test_SR13_death_roll_with_the_success_test(kit):
    dying = kit.actor("t", {"body": 4}, physical=10, overflow=2)
    result = kit.resolve(
        "success_test", {"dice": 4, "tn": 4, "label": "Death roll"}, dying, dice=[1, 2, 3, 4]
    )
    assert result.outcome["successes"] == 1
    assert result.states == {}
    assert result.dice[0].label == "Death roll"


# -- SR-14 Combat Pool ------------------------------------------------------------------


def test_SR14_attack_spends_both_pools(kit):
    shooter = kit.actor("s", SHOOTER)
    target = kit.actor("t", {"body": 2, "combat_pool": 4})
    result = kit.resolve(
        "attack",
        {"weapon": "Pistol", "range": "short", "attacker_pool": 2, "defender_pool": 3},
        shooter,
        [target],
        dice=[5] * 6 + [2] * 5,
    )
    assert result.states["s"]["pool"] == 3
    assert result.states["t"]["pool"] == 1


def test_SR14_an_actor_attacking_itself_spends_both_from_one_pool(kit):
    shooter = kit.actor("s", {**SHOOTER, "body": 3})  # pool 5
    result = kit.resolve(
        "attack",
        {"weapon": "Pistol", "range": "short", "attacker_pool": 1, "defender_pool": 2},
        shooter,
        [shooter],
        dice=[5, 5, 5, 2, 2] + [2] * 5,  # 3 attack successes, no resistance successes
    )
    assert set(result.states) == {"s"}
    assert result.states["s"]["pool"] == 2
    assert result.states["s"]["physical"] == 6  # 9M staged up one step: S


def test_SR14_defender_pool_not_spent_on_a_miss(kit):
    shooter = kit.actor("s", SHOOTER)
    target = kit.actor("t", {"body": 2, "combat_pool": 4})
    result = kit.resolve(
        "attack",
        {"weapon": "Pistol", "range": "short", "attacker_pool": 1, "defender_pool": 3},
        shooter,
        [target],
        dice=[2] * 5,
    )
    assert result.states["s"]["pool"] == 4
    assert "t" not in result.states


def test_SR14_spending_more_than_is_left_is_refused(kit):
    shooter = kit.actor("s", SHOOTER, pool=1)
    with pytest.raises(RuleViolation) as caught:
        kit.resolve(
            "attack",
            {"weapon": "Pistol", "range": "short", "attacker_pool": 2},
            shooter,
            [kit.actor("t")],
        )
    assert caught.value.code == "pool_exhausted"
    assert caught.value.details == {"actor": "s", "left": 1, "asked": 2}


def test_SR14_new_turn_refills_every_pool(kit):
    a = kit.actor("a", {"body": 3, "combat_pool": 5}, pool=0)
    b = kit.actor("b", {"body": 3, "combat_pool": 2}, pool=1, physical=4)
    result = kit.resolve("new_turn", {}, targets=[a, b])
    assert result.states["a"]["pool"] == 5
    assert result.states["b"] == {**b.state, "pool": 2}


# -- SR-15 healing ----------------------------------------------------------------------


def test_SR15_heal_stun(kit):
    target = kit.actor("t", stun=5, physical=2)
    result = kit.resolve("heal", {"monitor": "stun", "boxes": 3}, targets=[target])
    assert (result.states["t"]["stun"], result.states["t"]["physical"]) == (2, 2)


def test_SR15_heal_physical_removes_overflow_first(kit):
    target = kit.actor("t", {"body": 4}, physical=10, overflow=3, stabilised=True)
    result = kit.resolve("heal", {"monitor": "physical", "boxes": 5}, targets=[target])
    state = result.states["t"]
    assert (state["overflow"], state["physical"]) == (0, 8)
    assert state["stabilised"] is False
    assert result.outcome["removed"] == {"stun": 0, "physical": 2, "overflow": 3}


def test_SR15_heal_never_below_zero(kit):
    target = kit.actor("t", physical=2)
    result = kit.resolve("heal", {"monitor": "physical", "boxes": 9}, targets=[target])
    assert result.states["t"]["physical"] == 0
    assert result.outcome["healed"] == 2


def test_SR15_the_dead_cannot_be_healed(kit):
    dead = kit.actor("t", {"body": 2}, physical=10, overflow=3)
    with pytest.raises(RuleViolation) as caught:
        kit.resolve("heal", {"monitor": "physical"}, targets=[dead])
    assert caught.value.code == "actor_dead"


# -- SR-16 success test -----------------------------------------------------------------


def test_SR16_any_dice_any_tn(kit):
    result = kit.resolve("success_test", {"dice": 5, "tn": 11}, dice=[6, 5, 6, 4, 3, 2, 1])
    assert [d.value for d in result.dice[0].dice] == [11, 10, 3, 2, 1]
    assert result.outcome["successes"] == 1
    assert result.outcome["success"] is True


def test_SR16_pool_dice_in_a_success_test(kit):
    actor = kit.actor("a", {"body": 3, "combat_pool": 4})
    result = kit.resolve("success_test", {"dice": 2, "tn": 4, "pool": 3}, actor, dice=[4] * 5)
    assert result.outcome["dice"] == 5
    assert result.states["a"]["pool"] == 1


def test_SR16_deterministic_with_a_seed(kit):
    first = kit.resolve("success_test", {"dice": 8, "tn": 5}, dice=SeededDice(11))
    second = kit.resolve("success_test", {"dice": 8, "tn": 5}, dice=SeededDice(11))
    assert first.to_dict() == second.to_dict()
