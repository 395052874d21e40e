"""The five acceptance examples of the rules file (../shared/rulesets/sr2.md),
each with supplied dice, through the ruleset's own actions."""

from __future__ import annotations

from rollbridge.plugins.sr2.codes import fire, recoil

TUKAN = {
    "body": 5,
    "combat_pool": 6,
    "weapons": [{"name": "Hackler", "code": "7M", "skill": 7}],
}
GUARD_A = {"body": 4, "combat_pool": 3, "armor": {"ballistic": 4}}
GUARD_B = {"body": 4, "combat_pool": 3, "armor": {"ballistic": 5}}

# Four Body dice against TN 6 with exactly two successes: 6+2=8, 6+3=9, 1, 4.
TWO_OF_FOUR_VS_6 = [6, 2, 6, 3, 1, 4]


def test_acceptance_1_tukan_a_resistance_only(kit):
    """Example 1: 10S, armour 4, attack 7 successes, resistance 2 → D,
    physical 10, overflow 1, dying."""
    guard = kit.actor("guard", GUARD_A)
    result = kit.resolve(
        "damage", {"code": "10S", "attack_successes": 7}, targets=[guard], dice=TWO_OF_FOUR_VS_6
    )
    out = result.outcome
    assert out["resistance"]["tn"] == 6
    assert out["resistance"]["successes"] == 2
    assert out["net"] == 5
    assert out["level"] == "D"
    assert out["overflow_steps"] == 1
    state = result.states["guard"]
    assert (state["physical"], state["overflow"]) == (10, 1)
    assert kit.common(guard, result).status == "dying"


def test_acceptance_1_tukan_a_full_attack(kit):
    """Example 1 through an attack: Hackler 7M fired as a 3-round burst is
    10S; 7 attack successes (TN 4: short range, recoil fully compensated)."""
    tukan = kit.actor("tukan", TUKAN)
    guard = kit.actor("guard", GUARD_A)
    result = kit.resolve(
        "attack",
        {"weapon": "Hackler", "rounds": 3, "recoil_compensation": 3, "range": "short"},
        tukan,
        [guard],
        dice=[5] * 7 + TWO_OF_FOUR_VS_6,
    )
    out = result.outcome
    assert out["code"] == "10S"
    assert out["attack"]["tn"] == 4
    assert out["attack"]["successes"] == 7
    assert out["level"] == "D"
    assert (result.states["guard"]["physical"], result.states["guard"]["overflow"]) == (10, 1)
    assert kit.common(guard, result).status == "dying"


def test_acceptance_2_tukan_b(kit):
    """Example 2: 10S, armour 5, attack 5, resistance 7 → M, physical 3."""
    guard = kit.actor("guard", GUARD_B)
    result = kit.resolve(
        "damage",
        {"code": "10S", "attack_successes": 5, "defender_pool": 3},
        targets=[guard],
        dice=[5] * 7,  # Body 4 + pool 3 against TN 10 − 5 = 5: seven successes
    )
    out = result.outcome
    assert out["resistance"]["tn"] == 5
    assert out["resistance"]["successes"] == 7
    assert out["net"] == -2
    assert out["level"] == "M"
    assert result.states["guard"]["physical"] == 3
    assert result.states["guard"]["overflow"] == 0


def test_acceptance_3_six_rounds(kit):
    """Example 3: 7M fired as 6 rounds → 13D; recoil with compensation 6 → +0 TN."""
    assert fire(7, "M", 6)[:2] == (13, "D")
    assert recoil(6, 6) == 0
    tukan = kit.actor("tukan", TUKAN)
    guard = kit.actor("guard", GUARD_A)
    result = kit.resolve(
        "attack",
        {"weapon": "Hackler", "rounds": 6, "recoil_compensation": 6, "range": "medium"},
        tukan,
        [guard],
        dice=[1] * 7,  # a botched attack: no resistance test follows
    )
    assert result.outcome["code"] == "13D"
    recoil_part = result.outcome["attack"]["tn_parts"][1]
    assert recoil_part["part"].startswith("recoil") and recoil_part["value"] == 0
    assert result.outcome["attack"]["tn"] == 5  # medium range alone


def test_acceptance_4_moderate_on_four_boxes(kit):
    """Example 4: a target at 4 physical boxes who takes another M has 7
    boxes: Serious, +3 TN."""
    target = kit.actor("target", {"body": 3}, physical=4)
    # 9M, no armour, attacker successes 0 and no resistance successes: net 0, M stays M.
    result = kit.resolve(
        "damage", {"code": "9M", "attack_successes": 0}, targets=[target], dice=[2, 3, 4]
    )
    assert result.outcome["level"] == "M"
    assert result.states["target"]["physical"] == 7
    common = kit.common(target, result)
    assert "Physical: Serious" in common.conditions
    assert common.modifier == 3


def test_acceptance_5_six_then_one(kit):
    """Example 5: a die that rolls 6 then 1 totals 7: one success against
    TN 7, none against TN 8."""
    at_7 = kit.resolve("success_test", {"dice": 1, "tn": 7}, dice=[6, 1])
    at_8 = kit.resolve("success_test", {"dice": 1, "tn": 8}, dice=[6, 1])
    die = at_7.dice[0].dice[0]
    assert die.rolls == (6, 1) and die.value == 7
    assert at_7.outcome["successes"] == 1
    assert at_8.outcome["successes"] == 0
