"""Independent cases for the ``sr2`` ruleset, each computed by hand from the rules
file (docs/sources/rules/sr2.md, SR-1 to SR-16), not from the code: boundaries of
the TN floor, the rule of one, rounds fired, recoil, staging, the monitors and
their carry, wound modifiers, the Combat Pool and healing. Every case runs on the
real table engine (:class:`~rollbridge.testing.RulesetHarness`) with supplied dice,
and cites the rule and the sentence it follows."""

from __future__ import annotations

from typing import Any

import pytest

from rollbridge.exceptions import RollbridgeError, RuleViolation
from rollbridge.plugins.sr2 import SR2Ruleset
from rollbridge.testing import RulesetHarness


def table(**settings: Any) -> RulesetHarness:
    """A table running sr2 with ``settings`` as its ruleset settings."""
    return RulesetHarness(SR2Ruleset(), settings={"ruleset": settings} if settings else None)


def test_sr2_1_open_ended_six_six_three_is_fifteen():
    """SR-1: "a die that shows 6 is rolled again and the new roll added, as long as it
    keeps showing 6 (6+6+3 = 15)": one success against TN 15, none against TN 16."""
    at_15 = table().resolve("success_test", params={"dice": 1, "tn": 15}, dice=[6, 6, 3])
    at_16 = table().resolve("success_test", params={"dice": 1, "tn": 16}, dice=[6, 6, 3])
    assert at_15["data"]["outcome"]["successes"] == 1
    assert at_16["data"]["outcome"]["successes"] == 0


def test_sr2_1_one_success_per_die_however_high():
    """SR-1: "never more than one per die": 6+6+6+5 = 23 against TN 2 is one success."""
    done = table().resolve("success_test", params={"dice": 1, "tn": 2}, dice=[6, 6, 6, 5])
    assert done["data"]["outcome"]["successes"] == 1


@pytest.mark.parametrize("tn", [1, 0, -7])
def test_sr2_2_tn_below_two_counts_as_two(tn):
    """SR-2: "A TN below 2 counts as 2: a die showing 1 never succeeds." Dice 1, 2,
    3: two successes (the 2 and the 3), and no botch (not every die shows 1)."""
    done = table().resolve("success_test", params={"dice": 3, "tn": tn}, dice=[1, 2, 3])
    out = done["data"]["outcome"]
    assert out["tn"] == 2
    assert out["successes"] == 2
    assert out["botch"] is False


def test_sr2_2_a_die_exactly_at_the_tn_succeeds():
    """SR-1: a die scores "when its total is ≥ the TN": 5 against TN 5 succeeds, 4 not."""
    done = table().resolve("success_test", params={"dice": 2, "tn": 5}, dice=[5, 4])
    assert done["data"]["outcome"]["successes"] == 1


def test_sr2_3_every_die_one_is_a_botch():
    """SR-3: "If every die of a test shows 1, the test is a botch: 0 successes, flagged
    as a botch" — here against TN 2, the floor."""
    done = table().resolve("success_test", params={"dice": 3, "tn": 2}, dice=[1, 1, 1])
    out = done["data"]["outcome"]
    assert (out["successes"], out["botch"]) == (0, True)


def test_sr2_3_one_die_not_one_is_no_botch():
    """SR-3: every die must show 1: 1, 1, 2 against TN 3 is 0 successes, no botch."""
    done = table().resolve("success_test", params={"dice": 3, "tn": 3}, dice=[1, 1, 2])
    out = done["data"]["outcome"]
    assert (out["successes"], out["botch"]) == (0, False)


def test_sr2_3_rule_of_one_setting_off():
    """SR-3 is a Decision with the setting ``rule_of_one``: off, all 1s is just 0."""
    done = table(rule_of_one=False).resolve(
        "success_test", params={"dice": 2, "tn": 2}, dice=[1, 1]
    )
    out = done["data"]["outcome"]
    assert (out["successes"], out["botch"]) == (0, False)


@pytest.mark.parametrize(
    ("code", "rounds", "fired"),
    [
        ("7M", 1, "7M"),  # "One round: the weapon's base code."
        ("7M", 2, "9M"),  # power + 2, ⌊2/3⌋ = 0 steps
        ("7M", 3, "10S"),  # the rules' own case
        ("7M", 5, "12S"),  # ⌊5/3⌋ = 1 step
        ("7M", 6, "13D"),  # the rules' own case
        ("7M", 9, "16D"),  # ⌊9/3⌋ = 3 steps, "never past D"
        ("7D", 3, "10D"),  # already D: the level stays
        ("5L", 9, "14D"),  # L + 3 steps = D exactly
        ("5L", 12, "17D"),  # L + 4 steps: capped at D
        ("0L", 2, "2L"),  # power 0 is a valid power (SR-4: integer ≥ 0)
    ],
)
def test_sr2_6_rounds_fired(code, rounds, fired):
    """SR-6: "n ≥ 2 rounds: power + n, and the level rises ⌊n/3⌋ steps, never past D"."""
    t = table()
    t.add_actor("Target", {"body": 1}, actor_id="t")
    done = t.resolve(
        "damage",
        targets=["t"],
        params={"code": code, "attack_successes": 0, "rounds": rounds},
        dice=[1],
    )
    assert done["data"]["outcome"]["code"] == fired


def shoot(
    params: dict[str, Any], dice: list[int], shooter: dict[str, int] | None = None
) -> tuple[RulesetHarness, dict[str, Any]]:
    """A Body 4 shooter ``s`` (in state ``shooter``) attacks a fresh Body 1 target
    ``t`` with ``params``; the table and the event."""
    t = table()
    t.add_actor("Shooter", {"body": 4}, actor_id="s", state=shooter)
    t.add_actor("Target", {"body": 1}, actor_id="t")
    return t, t.resolve("attack", actor="s", targets=["t"], params=params, dice=dice)


@pytest.mark.parametrize(
    ("rounds", "compensation", "recoil"),
    [(1, 0, 0), (2, 0, 2), (3, 1, 2), (3, 3, 0), (2, 5, 0), (6, 6, 0), (6, 4, 2)],
)
def test_sr2_7_recoil(rounds, compensation, recoil):
    """SR-7: "With n ≥ 2 rounds the attacker's TN rises by max(0, n − recoil
    compensation)"; one round has no recoil. Attack TN = short 4 + recoil (SR-8); the
    two attack dice both show 1, a botched miss, so no resistance test follows."""
    _, done = shoot(
        {
            "code": "7M",
            "skill": 2,
            "rounds": rounds,
            "recoil_compensation": compensation,
            "range": "short",
        },
        [1, 1],
    )
    assert done["data"]["outcome"]["attack"]["tn"] == 4 + recoil


@pytest.mark.parametrize(("band", "tn"), [("short", 4), ("medium", 5), ("long", 6), ("extreme", 9)])
def test_sr2_8_range_tns(band, tn):
    """SR-8: "range TN (short 4, medium 5, long 6, extreme 9 …)"."""
    _, done = shoot({"code": "7M", "skill": 1, "range": band}, [2])
    assert done["data"]["outcome"]["attack"]["tn"] == tn


def test_sr2_8_attack_tn_adds_recoil_wound_and_situational():
    """SR-8: TN = range TN + recoil + the attacker's wound modifier + situational
    modifiers. Long 6 + recoil (3 rounds, no compensation) 3 + Physical 3 boxes
    (Moderate, +2, SR-12) + situational −1 = 10."""
    _, done = shoot(
        {"code": "7M", "skill": 1, "rounds": 3, "range": "long", "modifier": -1},
        [2],
        shooter={"physical": 3},
    )
    assert done["data"]["outcome"]["attack"]["tn"] == 10


def test_sr2_8_negative_situational_floors_the_attack_tn():
    """SR-8 with SR-2: short 4 + situational −5 = −1, which counts as 2: a 2 hits."""
    # the attack's 2; the target's one die, 3 against TN 1 − 0 → 2
    _, done = shoot({"code": "1L", "skill": 1, "range": "short", "modifier": -5}, [2, 3])
    out = done["data"]["outcome"]
    assert out["attack"]["tn"] == 2
    assert out["attack"]["successes"] == 1
    assert out["hit"] is True


def test_sr2_8_zero_attack_successes_miss_and_deal_nothing():
    """SR-8: "0 successes: the attack misses and deals nothing"."""
    t, done = shoot({"code": "12D", "skill": 2, "range": "short"}, [3, 2])
    out = done["data"]["outcome"]
    assert out["hit"] is False
    assert out["boxes"] == 0
    assert t.state("t")["physical"] == 0


def test_sr2_9_resistance_tn_uses_the_weapons_armour():
    """SR-9: "power − armour (ballistic or impact, by the weapon)": 6M resisted with
    impact 2 (ballistic 5 does not count) is TN 4."""
    t = table()
    t.add_actor("Target", {"body": 1, "armor": {"ballistic": 5, "impact": 2}}, actor_id="t")
    done = t.resolve(
        "damage",
        targets=["t"],
        params={"code": "6M", "attack_successes": 1, "armor_type": "impact"},
        dice=[3],
    )
    assert done["data"]["outcome"]["resistance"]["tn"] == 4


def test_sr2_9_floor_comes_after_the_wound_modifier():
    """SR-9: "TN = power − armour … + the defender's wound modifier, floored per SR-2":
    the floor applies to the whole sum. 4 − 6 + 2 (Physical 3: Moderate) = 0 → 2,
    not (4 − 6 → 2) + 2 = 4. The one die shows 3: a success against 2."""
    t = table()
    t.add_actor(
        "Target", {"body": 1, "armor": {"ballistic": 6}}, actor_id="t", state={"physical": 3}
    )
    done = t.resolve(
        "damage", targets=["t"], params={"code": "4L", "attack_successes": 1}, dice=[3]
    )
    res = done["data"]["outcome"]["resistance"]
    assert res["tn"] == 2
    assert res["successes"] == 1


def _staged(code: str, attack: int, resistance_dice: list[int]) -> tuple[dict, dict]:
    """A ``damage`` of ``code`` against ``attack`` successes on a fresh Body-N target
    with no armour (N = len(resistance_dice)); the outcome and the target's state."""
    t = table()
    t.add_actor("Target", {"body": max(1, len(resistance_dice))}, actor_id="t")
    done = t.resolve(
        "damage",
        targets=["t"],
        params={"code": code, "attack_successes": attack},
        dice=resistance_dice,
    )
    return done["data"]["outcome"], t.state("t")


@pytest.mark.parametrize(
    ("code", "attack", "level", "overflow_steps"),
    [
        ("10M", 1, "M", 0),  # net +1: ⌊1/2⌋ = 0 steps
        ("10M", 2, "S", 0),  # net +2: one step
        ("10M", 3, "S", 0),  # net +3: one step, one spare
        ("10M", 7, "D", 1),  # net +7: 3 steps: S, D, then one overflow box
        ("10D", 4, "D", 2),  # net +4 on D: both steps are overflow
        ("10S", 6, "D", 2),  # net +6: S→D, then two overflow boxes
    ],
)
def test_sr2_10_staging_up(code, attack, level, overflow_steps):
    """SR-10: "net > 0 raises the level ⌊net/2⌋ steps … Each step that would go past D
    instead adds one overflow box." The one resistance die shows 2 against TN 10:
    no success, so net = attack successes."""
    out, _ = _staged(code, attack, [2])
    assert out["net"] == attack
    assert (out["level"], out["overflow_steps"]) == (level, overflow_steps)


@pytest.mark.parametrize(
    ("code", "successes", "level", "boxes"),
    [
        ("3M", 1, "M", 3),  # net −1: ⌊1/2⌋ = 0 steps
        ("3M", 2, "L", 1),  # net −2: one step down
        ("3M", 3, "L", 1),  # net −3: one step down
        ("3L", 2, None, 0),  # "Lowered below L: no damage"
        ("3S", 4, "L", 1),  # net −4: S→M→L
        ("3D", 6, "L", 1),  # net −6: D→S→M→L
        ("3D", 8, None, 0),  # net −8: four steps down from D, below L
    ],
)
def test_sr2_10_staging_down(code, successes, level, boxes):
    """SR-10: "net < 0 lowers it ⌊−net/2⌋ steps. Lowered below L: no damage." Zero
    attack successes given (the ``damage`` action resolves them, a documented
    decision); each resistance die shows 5 against TN 3."""
    out, state = _staged(code, 0, [5] * successes)
    assert out["net"] == -successes
    assert out["level"] == level
    assert out["boxes"] == boxes
    assert state["physical"] == boxes


@pytest.mark.parametrize(("level", "boxes"), [("L", 1), ("M", 3), ("S", 6), ("D", 10)])
def test_sr2_5_boxes_per_level(level, boxes):
    """SR-5: "L = 1, M = 3, S = 6, D = 10" — net 0 keeps the level."""
    out, state = _staged(f"9{level}", 0, [2])
    assert out["boxes"] == boxes
    assert state["physical"] == boxes


def moderate_on(state: dict[str, int], monitor: str, **settings: Any) -> dict[str, Any]:
    """The state of a Body 4 target in ``state`` after a 9M on ``monitor`` with net 0
    (no attack successes, its four resistance dice show 2 against TN 9)."""
    t = table(**settings)
    t.add_actor("Target", {"body": 4}, actor_id="t", state=state)
    params = {"code": "9M", "attack_successes": 0, "damage_type": monitor}
    t.resolve("damage", targets=["t"], params=params, dice=[2] * 4)
    return {**t.state("t"), "status": t.actor("t")["common"]["status"]}


def test_sr2_11_physical_past_ten_is_overflow():
    """SR-11: "Physical boxes past 10 become overflow one for one": 8 + M (3) = 10,
    overflow 1; Body 4, so dying, not dead (SR-13)."""
    state = moderate_on({"physical": 8}, "physical")
    assert (state["physical"], state["overflow"], state["status"]) == (10, 1, "dying")


def test_sr2_11_stun_past_ten_carries_into_physical():
    """SR-11: "Stun past 10 carries into Physical one for one": Stun 9 + M (3) = Stun
    10 and Physical 2."""
    state = moderate_on({"stun": 9}, "stun")
    assert (state["stun"], state["physical"], state["overflow"]) == (10, 2, 0)


def test_sr2_11_stun_carry_off_loses_the_excess():
    """SR-11's carry is a Decision with the setting ``stun_carry``: off, Stun 9 + M
    is Stun 10 and nothing else."""
    state = moderate_on({"stun": 9}, "stun", stun_carry=False)
    assert (state["stun"], state["physical"], state["overflow"]) == (10, 0, 0)


def test_sr2_11_stun_carry_through_physical_into_overflow():
    """SR-11: Stun 10, Physical 9, another Stun M: the 3 boxes carry into Physical (9 →
    10) and the 2 past it become overflow."""
    state = moderate_on({"stun": 10, "physical": 9}, "stun")
    assert (state["stun"], state["physical"], state["overflow"]) == (10, 10, 2)


@pytest.mark.parametrize(("overflow_before", "status"), [(1, "dying"), (2, "dead")])
def test_sr2_11_overflow_above_body_is_dead(overflow_before, status):
    """SR-11/SR-13: "overflow can reach Body; overflow above Body means dead". Body 2,
    Physical 10 with overflow 1 or 2, then an L: overflow 2 (= Body, dying) or 3 (dead)."""
    t = table()
    t.add_actor(
        "Target", {"body": 2}, actor_id="t", state={"physical": 10, "overflow": overflow_before}
    )
    t.resolve("damage", targets=["t"], params={"code": "9L", "attack_successes": 0}, dice=[2, 2])
    assert t.state("t")["overflow"] == overflow_before + 1
    assert t.actor("t")["common"]["status"] == status


@pytest.mark.parametrize(
    ("stun", "physical", "modifier"),
    [
        (0, 1, 1),
        (0, 2, 1),
        (0, 3, 2),
        (0, 5, 2),
        (0, 6, 3),
        (0, 9, 3),
        (1, 1, 2),  # the two monitors' modifiers add
        (3, 6, 5),
        (5, 2, 3),
    ],
)
def test_sr2_12_wound_modifier_thresholds(stun, physical, modifier):
    """SR-12: "1–2 boxes = Light (+1 TN), 3–5 = Moderate (+2), 6–9 = Serious (+3) …
    The two monitors' modifiers add." Read from the common state and from a
    success test that asks for the wound modifier (TN 4 + modifier)."""
    t = table()
    t.add_actor("Runner", {"body": 4}, actor_id="r", state={"stun": stun, "physical": physical})
    assert t.actor("r")["common"]["modifier"] == modifier
    done = t.resolve(
        "success_test", actor="r", params={"dice": 1, "tn": 4, "wound_modifier": True}, dice=[2]
    )
    assert done["data"]["outcome"]["tn"] == 4 + modifier


@pytest.mark.parametrize(
    ("state", "status"),
    [
        ({"stun": 10}, "down"),  # "Stun 10: unconscious."
        ({"physical": 10}, "dying"),  # "Physical 10: unconscious and dying."
        ({"physical": 10, "overflow": 4}, "dying"),  # overflow = Body: not yet dead
        ({"physical": 10, "overflow": 5}, "dead"),  # "Overflow > Body: dead."
        ({"stun": 9, "physical": 9}, "impaired"),
    ],
)
def test_sr2_13_down_dying_dead(state, status):
    """SR-13 on a Body 4 character."""
    t = table()
    t.add_actor("Runner", {"body": 4}, actor_id="r", state=state)
    assert t.actor("r")["common"]["status"] == status


def test_sr2_14_spending_more_than_left_changes_nothing():
    """SR-14: "Spending more than is left is a clear error and changes nothing."
    Pool 2 left; asking 3 is ``pool_exhausted``; asking exactly 2 leaves 0; a new
    combat turn refills it to the rating."""
    t = table()
    t.add_actor("Runner", {"body": 4, "combat_pool": 5}, actor_id="r", state={"pool": 2})
    with pytest.raises(RuleViolation) as refused:
        t.resolve(
            "success_test", actor="r", params={"dice": 1, "tn": 4, "pool": 3}, dice=[5, 5, 5, 5]
        )
    assert refused.value.code == "pool_exhausted"
    assert t.state("r")["pool"] == 2
    t.resolve("success_test", actor="r", params={"dice": 1, "tn": 4, "pool": 2}, dice=[5, 5, 5])
    assert t.state("r")["pool"] == 0
    t.resolve("new_turn", params={})
    assert t.state("r")["pool"] == 5


def test_sr2_15_healing_physical_removes_overflow_first():
    """SR-15: "healing Physical removes overflow first": Physical 10, overflow 2, heal
    3 → overflow 0 and Physical 9."""
    t = table()
    t.add_actor("Runner", {"body": 4}, actor_id="r", state={"physical": 10, "overflow": 2})
    t.resolve("heal", targets=["r"], params={"monitor": "physical", "boxes": 3})
    state = t.state("r")
    assert (state["physical"], state["overflow"]) == (9, 0)


def test_sr2_15_healing_stun_leaves_overflow():
    """SR-15: healing Stun removes Stun boxes only."""
    t = table()
    t.add_actor(
        "Runner", {"body": 4}, actor_id="r", state={"stun": 4, "physical": 10, "overflow": 1}
    )
    t.resolve("heal", targets=["r"], params={"monitor": "stun", "boxes": 2})
    state = t.state("r")
    assert (state["stun"], state["physical"], state["overflow"]) == (2, 10, 1)


def test_sr2_acceptance_tukan_a_and_b_through_damage():
    """SR-10's reference: "10S, armour 4, 7 vs 2 → D plus 1 overflow box; 10S, armour
    5, 5 vs 7 → M, 3 boxes"."""
    t = table()
    t.add_actor("A", {"body": 4, "armor": {"ballistic": 4}}, actor_id="a")
    t.add_actor("B", {"body": 7, "armor": {"ballistic": 5}}, actor_id="b")
    t.resolve(
        "damage",
        targets=["a"],
        params={"code": "10S", "attack_successes": 7},
        dice=[6, 1, 6, 2, 3, 4],
    )
    t.resolve("damage", targets=["b"], params={"code": "10S", "attack_successes": 5}, dice=[5] * 7)
    assert (t.state("a")["physical"], t.state("a")["overflow"]) == (10, 1)
    assert (t.state("b")["physical"], t.state("b")["overflow"]) == (3, 0)


def test_sr2_6_rounds_on_a_deadly_code_add_no_overflow():
    """SR-6: "the level rises ⌊n/3⌋ steps, never past D": 7D fired 3 rounds is 10D —
    10 boxes, no overflow box (overflow comes from staging, SR-10, not from rounds)."""
    t = table()
    t.add_actor("Target", {"body": 2}, actor_id="t")
    done = t.resolve(
        "damage",
        targets=["t"],
        params={"code": "7D", "attack_successes": 0, "rounds": 3},
        dice=[2, 2],
    )
    out = done["data"]["outcome"]
    assert (out["code"], out["level"], out["overflow_steps"], out["boxes"]) == ("10D", "D", 0, 10)
    assert (t.state("t")["physical"], t.state("t")["overflow"]) == (10, 0)


def test_sr2_13_bleeding_past_body_is_dead_and_no_help():
    """SR-13: bleeding "adds overflow boxes to a dying, unstabilised character";
    SR-11: "overflow above Body means dead"; SR-15 with the seed: "past the last
    overflow point there is no help" — Body 2, bleeding 3 from overflow 0: dead, and
    healing is refused."""
    t = table()
    t.add_actor("Target", {"body": 2}, actor_id="t", state={"physical": 10})
    t.resolve("bleed", targets=["t"], params={"boxes": 3})
    assert t.state("t")["overflow"] == 3
    assert t.actor("t")["common"]["status"] == "dead"
    with pytest.raises(RuleViolation) as refused:
        t.resolve("heal", targets=["t"], params={"monitor": "physical", "boxes": 1})
    assert refused.value.code == "actor_dead"
    assert t.state("t")["overflow"] == 3


@pytest.mark.parametrize("code", ["7V", "-1M", "7X", "M"])
def test_sr2_4_codes_use_the_english_letters(code):
    """SR-4: "Power (integer ≥ 0) and level L < M < S < D. The API uses the English
    letters" — the seed's Czech V (Serious) is not a level, a negative power is not a
    power; refused as ``invalid_params``, nothing changes."""
    t = table()
    t.add_actor("Target", {"body": 1}, actor_id="t")
    before = t.state("t")
    with pytest.raises(RollbridgeError) as refused:
        t.resolve("damage", targets=["t"], params={"code": code, "attack_successes": 0}, dice=[1])
    assert refused.value.code == "invalid_params"
    assert t.state("t") == before


def test_sr2_4_s_is_serious_not_the_czech_deadly():
    """SR-4: "V→S, S→D": in the API ``S`` is Serious (6 boxes), not the seed's Czech S
    (Deadly)."""
    out, state = _staged("9S", 0, [2])
    assert (out["level"], out["boxes"], state["physical"]) == ("S", 6, 6)


def test_sr2_8_an_explicit_tn_instead_of_a_range():
    """SR-8: "range TN (… or an explicit TN) + recoil + …": TN 7 given, one round, no
    wounds: the attack die 6 then 1 (= 7, SR-1) hits with 1 success. The target's
    one die (Body 1, against 7 − 0) shows 1: every die of the test, a botch (SR-3),
    0 successes; net +1 stages nothing (SR-10): 7M, 3 boxes."""
    t, done = shoot({"code": "7M", "skill": 1, "tn": 7}, [6, 1, 1])
    out = done["data"]["outcome"]
    assert (out["attack"]["tn"], out["attack"]["successes"], out["hit"]) == (7, 1, True)
    assert (out["resistance"]["successes"], out["resistance"]["botch"]) == (0, True)
    assert (out["level"], t.state("t")["physical"]) == ("M", 3)


def test_sr2_acceptance_4_four_boxes_plus_m_is_serious():
    """Acceptance 4: "A target at 4 physical boxes who takes another M has 7 boxes:
    Serious, +3 TN"."""
    state = moderate_on({"physical": 4}, "physical")
    assert state["physical"] == 7
    t = table()
    t.add_actor("Runner", {"body": 4}, actor_id="r", state={"physical": state["physical"]})
    assert t.actor("r")["common"]["modifier"] == 3


def test_sr2_13_stabilised_is_down_and_does_not_bleed():
    """SR-13: "offer a GM action that adds overflow boxes to a dying, unstabilised
    character (bleeding), a stabilise action": stabilised at Physical 10, overflow 1,
    the character is unconscious but no longer dying, and bleeding is refused."""
    t = table()
    t.add_actor("Runner", {"body": 4}, actor_id="r", state={"physical": 10, "overflow": 1})
    assert t.actor("r")["common"]["status"] == "dying"
    t.resolve("stabilise", targets=["r"], params={})
    assert t.actor("r")["common"]["status"] == "down"
    with pytest.raises(RuleViolation) as refused:
        t.resolve("bleed", targets=["r"], params={"boxes": 1})
    assert refused.value.code == "stabilised"
    assert t.state("r")["overflow"] == 1


def test_sr2_14_pool_spent_on_attack_and_resistance():
    """SR-14: "Dice spent on attack or resistance come out of what is left this
    combat turn": the shooter (pool 3) spends 2 on the attack, the target (pool 2)
    spends 1 resisting; 1 and 1 left. 7M, skill 1 + 2 pool: dice 5, 5, 5 against TN 4
    (short) — 3 successes; the target's Body 1 + 1 pool against 7: 2, 2, none; net 3
    → S, 6 boxes."""
    t = table()
    t.add_actor("Shooter", {"body": 4, "combat_pool": 3}, actor_id="s")
    t.add_actor("Target", {"body": 1, "combat_pool": 2}, actor_id="t")
    params = {"code": "7M", "skill": 1, "range": "short", "attacker_pool": 2, "defender_pool": 1}
    done = t.resolve("attack", actor="s", targets=["t"], params=params, dice=[5, 5, 5, 2, 2])
    out = done["data"]["outcome"]
    assert (out["attack"]["successes"], out["resistance"]["successes"]) == (3, 0)
    assert (out["level"], t.state("t")["physical"]) == ("S", 6)
    assert (t.state("s")["pool"], t.state("t")["pool"]) == (1, 1)
