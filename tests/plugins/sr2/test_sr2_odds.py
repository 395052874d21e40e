"""The sr2 odds hook: exact against icepool, and against the real resolver.

icepool builds every test independently of rollbridge, from the rules text:
one open-ended d6 (SR-1) is ``d6.explode(depth=⌊t/6⌋ + 1)``, deep enough that a
chain icepool stops is already at least the TN t (so it is exact); the TN is
floored at 2 (SR-2); each die is coded 1 for a success, ``ONE`` when it shows a
1 (SR-3) and 0 otherwise, and the test is the sum of n such dice, so the sum
tells both the successes and whether every die showed 1. The attack's TN,
the fired code, recoil and wound modifiers are rebuilt here from SR-6, SR-7,
SR-8, SR-9 and SR-12, and staging from SR-10 (the seed's examples). A seeded
chi-square check then resolves an attack 20,000 times and compares where the
results land with the computed odds.
"""

from __future__ import annotations

import copy
import math
from fractions import Fraction
from typing import Any

import pytest

from rollbridge.dice import SeededDice
from rollbridge.exceptions import InvalidParams, RuleViolation
from rollbridge.odds import Odds
from rollbridge.plugins.sr2 import combat
from rollbridge.plugins.sr2.odds import success_law
from rollbridge.text import render

icepool = pytest.importorskip("icepool")

ONE = 1000  # the code of a die that shows 1: more than any test's dice
SEED = 18
ROLLS = 20_000
LEVELS = "LMSD"
#: SR-8: range TNs.
RANGE = {"short": 4, "medium": 5, "long": 6, "extreme": 9}


# -- the rules, read independently ---------------------------------------------


def wound(boxes: int) -> int:
    """SR-12: 1–2 boxes +1, 3–5 +2, 6–9 +3, 10 +3 (Deadly keeps Serious's figure)."""
    if boxes <= 0:
        return 0
    return 1 if boxes <= 2 else 2 if boxes <= 5 else 3


def fired(power: int, level: str, rounds: int) -> tuple[int, str]:
    """SR-6: n ≥ 2 rounds add n to the power and ⌊n/3⌋ level steps, never past D."""
    if rounds < 2:
        return power, level
    return power + rounds, LEVELS[min(3, LEVELS.index(level) + rounds // 3)]


def staged(level: str, net: int) -> str:
    """SR-10: ⌊|net|/2⌋ steps toward the side with more; below L no damage; each
    step past D one overflow box (``D+k``)."""
    steps = abs(net) // 2
    index = LEVELS.index(level) + (steps if net > 0 else -steps)
    if index < 0:
        return "no damage"
    return LEVELS[index] if index <= 3 else f"D+{index - 3}"


def sr1_die(tn: int):
    """One SR-1 die against ``tn`` (SR-2 floor), coded 1 success / ONE a 1 / 0."""
    target = max(tn, 2)
    die = icepool.d6.explode(depth=target // 6 + 1)
    return die.map(lambda total: ONE if total == 1 else int(total >= target))


def sr1_pool(dice: int, tn: int):
    """The sum of ``dice`` coded dice (see :func:`sr1_die`)."""
    return dice @ sr1_die(tn)


def read(total: int, dice: int, rule_of_one: bool) -> tuple[int, bool]:
    """(successes, botch) of a coded pool's sum (SR-3: every die a 1)."""
    ones, hits = divmod(total, ONE)
    return hits, rule_of_one and dice > 0 and ones == dice


def fractions(die) -> dict[Any, Fraction]:
    denominator = die.denominator()
    return {outcome: Fraction(w, denominator) for outcome, w in die.items() if w}


def nonzero(outcomes) -> dict[str, Fraction]:
    return {name: p for name, p in outcomes.items() if p}


def icepool_attack(na, ta, nr, tr, level, rule_of_one=True) -> dict[str, Fraction]:
    def outcome(a_total: int, r_total: int) -> str:
        hits, botch = read(a_total, na, rule_of_one)
        if botch:
            return "botch"
        if hits == 0:
            return "miss"
        return staged(level, hits - read(r_total, nr, rule_of_one)[0])

    return fractions(icepool.map(outcome, sr1_pool(na, ta), sr1_pool(nr, tr)))


def get_odds(kit, action, params, actor=None, targets=(), settings=None) -> Odds:
    odds = kit.rs.odds(kit.context(action, params, actor, targets, settings))
    assert isinstance(odds, Odds)
    assert sum(odds.outcomes.values()) + odds.truncated == 1
    assert odds.truncated == 0  # SR-1 needs no depth: P(total ≥ TN) is exact
    return odds


# -- the attack (SR-6 to SR-10, SR-12, SR-14) against icepool --------------------

#: (skill, attacker pool): 1 to 20 attack dice.
ATTACKERS = [(1, 0), (2, 1), (5, 0), (6, 3), (10, 2), (12, 0), (14, 6), (20, 0)]
#: (Body, defender pool, Body override): 1 to 12 resistance dice.
DEFENDERS = [(1, 0, None), (4, 2, None), (3, 0, 9), (6, 6, None), (5, 1, 11)]
#: code, rounds, recoil compensation, range or TN, modifier, attacker's and
#: defender's boxes, armour (sheet, override), rule of one
SITUATIONS = {
    "short-9M-armor4": dict(code="9M", range="short", armor=(4, None)),
    "tn-floored-4L": dict(code="4L", tn=-3, armor=(6, None)),
    "extreme-auto6-wounds": dict(
        code="7M", rounds=6, comp=1, range="extreme", a_boxes=(0, 4), d_boxes=(6, 0)
    ),
    "long-burst3-comp3": dict(code="10S", rounds=3, comp=3, range="long", d_boxes=(0, 1)),
    "medium-mod2-tn8-override": dict(
        code="6D", range="medium", modifier=2, a_boxes=(1, 0), armor=(5, 0)
    ),
    "tn13-impact-no-rule-of-one": dict(
        code="12L", tn=10, rounds=2, comp=0, modifier=1, armor=(0, None), rule_of_one=False
    ),
}


@pytest.mark.parametrize("situation", list(SITUATIONS))
@pytest.mark.parametrize("defender", DEFENDERS, ids=lambda d: f"body{d[0]}+{d[1]}o{d[2]}")
@pytest.mark.parametrize("attacker", ATTACKERS, ids=lambda a: f"skill{a[0]}+{a[1]}")
def test_attack_odds_equal_icepool(kit, attacker, defender, situation):
    s = SITUATIONS[situation]
    skill, a_pool = attacker
    body, d_pool, body_override = defender
    rounds, comp, modifier = s.get("rounds", 1), s.get("comp", 0), s.get("modifier", 0)
    a_stun, a_phys = s.get("a_boxes", (0, 0))
    d_stun, d_phys = s.get("d_boxes", (0, 0))
    sheet_armor, armor_override = s.get("armor", (0, None))
    rule_of_one = s.get("rule_of_one", True)
    shooter = kit.actor(
        "shooter", {"body": 5, "combat_pool": 6}, stun=a_stun, physical=a_phys, pool=a_pool
    )
    target = kit.actor(
        "target",
        {"body": body, "combat_pool": 8, "armor": {"ballistic": sheet_armor, "impact": 0}},
        stun=d_stun,
        physical=d_phys,
        pool=d_pool + 1,
    )
    params: dict[str, Any] = {
        "code": s["code"],
        "skill": skill,
        "attacker_pool": a_pool,
        "defender_pool": d_pool,
        "rounds": rounds,
        "recoil_compensation": comp,
        "modifier": modifier,
    }
    if "range" in s:
        params["range"] = s["range"]
    else:
        params["tn"] = s["tn"]
    if body_override is not None:
        params["body"] = body_override
    if armor_override is not None:
        params["armor"] = armor_override
    settings = {"rule_of_one": rule_of_one}
    odds = get_odds(kit, "attack", params, shooter, [target], settings)

    power, level = fired(int(s["code"][:-1]), s["code"][-1], rounds)
    recoil = max(0, rounds - comp) if rounds >= 2 else 0  # SR-7
    base = RANGE[s["range"]] if "range" in s else s["tn"]
    attack_tn = base + recoil + wound(a_stun) + wound(a_phys) + modifier  # SR-8
    armour = sheet_armor if armor_override is None else armor_override
    resist_tn = power - armour + wound(d_stun) + wound(d_phys)  # SR-9
    resist_dice = (body if body_override is None else body_override) + d_pool
    expected = icepool_attack(skill + a_pool, attack_tn, resist_dice, resist_tn, level, rule_of_one)
    assert nonzero(odds.outcomes) == expected
    names = list(odds.outcomes)
    head = ["botch", "miss"] if rule_of_one else ["miss"]
    assert names[: len(head) + 5] == [*head, "no damage", "L", "M", "S", "D"]
    assert names[len(head) + 5 :] == [f"D+{k}" for k in range(1, len(names) - len(head) - 4)]


def test_attack_with_a_weapon_and_impact_armour(kit):
    """The weapon's code, skill, type, armour type and compensation (SR-6, SR-7, SR-9)."""
    baton = {"name": "Baton", "code": "6S", "type": "stun", "armor": "impact", "skill": 4}
    gun = {"name": "Uzi", "code": "6M", "skill": 5, "recoil_compensation": 2}
    shooter = kit.actor("shooter", {"body": 4, "weapons": [baton, gun]})
    target = kit.actor("target", {"body": 3, "armor": {"ballistic": 5, "impact": 2}})
    odds = get_odds(kit, "attack", {"weapon": "Baton", "range": "short"}, shooter, [target])
    assert nonzero(odds.outcomes) == icepool_attack(4, 4, 3, 6 - 2, "S")
    odds = get_odds(
        kit, "attack", {"weapon": "Uzi", "range": "long", "rounds": 3}, shooter, [target]
    )
    # 9M after three rounds, recoil 3 - 2 = +1 (SR-6, SR-7)
    assert nonzero(odds.outcomes) == icepool_attack(5, 6 + 1, 3, 9 - 5, "S")


def test_attacking_oneself_shares_the_pool(kit):
    """SR-14 with attacker and defender the same actor: one pool, both spends."""
    me = kit.actor("me", {"body": 3, "combat_pool": 4}, pool=4, physical=3)
    params = {"code": "8M", "skill": 3, "attacker_pool": 2, "defender_pool": 2, "tn": 4}
    odds = get_odds(kit, "attack", params, me, [me])
    assert nonzero(odds.outcomes) == icepool_attack(5, 4 + 2, 5, 8 + 2, "M")
    with pytest.raises(RuleViolation) as refused:
        get_odds(kit, "attack", {**params, "defender_pool": 3}, me, [me])
    assert refused.value.code == "pool_exhausted"


def test_the_seed_examples_by_hand(kit):
    """SR-10's reference, worked by hand. 10S against armour 4 and Body 4: TN 6, each
    die 1/6; 7 attack successes stage to D+1 when the guard rolls 2 or 3
    successes. 10S against armour 5, Body 4 + 3 pool: TN 5, each die 1/3; 5
    successes stage down to M only when all 7 dice succeed."""
    guard_a = kit.actor("guard_a", {"body": 4, "armor": {"ballistic": 4}})
    odds = get_odds(kit, "damage", {"code": "10S", "attack_successes": 7}, None, [guard_a])
    assert odds.outcomes["D+1"] == Fraction(6 * 25 + 4 * 5, 6**4)
    assert odds.outcomes["D"] == Fraction(1, 6**4)
    guard_b = kit.actor("guard_b", {"body": 4, "combat_pool": 3, "armor": {"ballistic": 5}})
    params = {"code": "10S", "attack_successes": 5, "defender_pool": 3}
    odds = get_odds(kit, "damage", params, None, [guard_b])
    assert odds.outcomes["M"] == Fraction(1, 3**7)


def test_the_schema_limits_compute(kit):
    """200 attack dice against 150 resistance dice (the schema's largest skill, pools
    and Body): exact, summing to 1, every overflow step up to the most reachable."""
    shooter = kit.actor("shooter", {"body": 6, "combat_pool": 100})
    target = kit.actor("target", {"body": 50, "combat_pool": 100, "armor": {"ballistic": 4}})
    params = {
        "code": "9M",
        "skill": 100,
        "attacker_pool": 100,
        "defender_pool": 100,
        "range": "short",
    }
    odds = get_odds(kit, "attack", params, shooter, [target])
    # 200 successes against 0: +100 steps from M, 98 of them past D
    assert list(odds.outcomes)[-1] == "D+98"
    assert all(p > 0 for name, p in odds.outcomes.items() if name.startswith("D+"))


# -- the damage action (SR-9, SR-10) ----------------------------------------------


@pytest.mark.parametrize("given", [0, 1, 3, 6, 11])
@pytest.mark.parametrize(
    ("code", "rounds", "body", "pool", "armor", "boxes"),
    [("9M", 1, 4, 0, 4, 0), ("7M", 6, 6, 3, 2, 4), ("4L", 1, 2, 0, 9, 1), ("12D", 3, 12, 0, 0, 7)],
)
def test_damage_odds_equal_icepool(kit, given, code, rounds, body, pool, armor, boxes):
    target = kit.actor(
        "target", {"body": body, "combat_pool": 3, "armor": {"ballistic": armor}}, physical=boxes
    )
    params = {"code": code, "attack_successes": given, "rounds": rounds, "defender_pool": pool}
    odds = get_odds(kit, "damage", params, None, [target])
    power, level = fired(int(code[:-1]), code[-1], rounds)
    resist = sr1_pool(body + pool, power - armor + wound(boxes))
    expected = fractions(resist.map(lambda total: staged(level, given - read(total, 1, False)[0])))
    assert nonzero(odds.outcomes) == expected
    assert list(odds.outcomes)[:5] == ["no damage", "L", "M", "S", "D"]


# -- the success test (SR-16) -----------------------------------------------------


@pytest.mark.parametrize("dice", [0, 1, 2, 5, 9, 20])
@pytest.mark.parametrize("tn", [-4, 2, 4, 6, 7, 11, 12, 13, 19])
@pytest.mark.parametrize("rule_of_one", [True, False])
def test_success_test_odds_equal_icepool(kit, dice, tn, rule_of_one):
    odds = get_odds(
        kit, "success_test", {"dice": dice, "tn": tn}, settings={"rule_of_one": rule_of_one}
    )

    def outcome(total: int) -> str:
        hits, botch = read(total, dice, rule_of_one)
        if botch:
            return "botch"
        if hits == 0:
            return "no success"
        return f"{hits} success" if hits == 1 else f"{hits} successes"

    assert nonzero(odds.outcomes) == fractions(sr1_pool(dice, tn).map(outcome))
    assert ("botch" in odds.outcomes) == rule_of_one
    assert len(odds.outcomes) == dice + 1 + rule_of_one


def test_success_test_pool_and_wound_modifier(kit):
    """SR-14 pool dice added, SR-12 the actor's modifier on the TN when asked."""
    actor = kit.actor("runner", {"body": 4, "combat_pool": 5}, pool=3, stun=3, physical=6)
    params = {"dice": 4, "tn": 3, "pool": 2, "wound_modifier": True}
    odds = get_odds(kit, "success_test", params, actor)
    plain = get_odds(kit, "success_test", {"dice": 6, "tn": 3 + 2 + 3})
    assert odds == plain


def test_known_values():
    """SR-1: one die vs TN 7 is 6-then-anything, 1/6; TN 12 and 13 are both 1/36
    (6, 6, then anything for 13); SR-3: 3 dice botch with (1/6)^3."""
    for tn, p in ((2, Fraction(5, 6)), (6, Fraction(1, 6)), (7, Fraction(1, 6))):
        law = success_law(1, tn)
        assert Fraction(law.weights[1], law.denominator) == p
    for tn in (12, 13):
        law = success_law(1, tn)
        assert Fraction(law.weights[1], law.denominator) == Fraction(1, 36)
    law = success_law(3, 5)
    assert Fraction(law.botch, law.denominator) == Fraction(1, 216)
    assert success_law(0, 5).weights == (1,) and success_law(0, 5).botch == 0


# -- refusals, no dice, nothing changed -------------------------------------------


def _refusal(call) -> tuple[type, str | None, str]:
    with pytest.raises((InvalidParams, RuleViolation)) as refused:
        call()
    return type(refused.value), getattr(refused.value, "code", None), str(refused.value)


REFUSED: list[tuple[str, str, dict[str, Any], dict[str, Any], dict[str, Any]]] = [
    # action, case, params, attacker state, defender state
    (
        "attack",
        "pool spent",
        {"code": "9M", "skill": 4, "attacker_pool": 4, "range": "short"},
        {"pool": 3},
        {},
    ),
    (
        "attack",
        "defender pool",
        {"code": "9M", "skill": 4, "defender_pool": 2, "range": "short"},
        {},
        {"pool": 1},
    ),
    ("attack", "incapacitated", {"code": "9M", "skill": 4, "range": "short"}, {"physical": 10}, {}),
    ("attack", "no code", {"skill": 4, "range": "short"}, {}, {}),
    ("attack", "no range", {"code": "9M", "skill": 4}, {}, {}),
    ("attack", "unknown weapon", {"weapon": "Laser", "range": "short"}, {}, {}),
    (
        "damage",
        "pool spent",
        {"code": "9M", "attack_successes": 2, "defender_pool": 5},
        {},
        {"pool": 2},
    ),
    ("success_test", "pool spent", {"dice": 3, "tn": 4, "pool": 4}, {"pool": 1}, {}),
]


@pytest.mark.parametrize(
    ("action", "case", "params", "a_state", "d_state"),
    REFUSED,
    ids=[f"{r[0]}-{r[1]}" for r in REFUSED],
)
def test_odds_refuse_as_resolve_does(kit, action, case, params, a_state, d_state):
    actor = kit.actor("actor", {"body": 4, "combat_pool": 6}, **a_state)
    target = kit.actor("target", {"body": 4, "combat_pool": 6}, **d_state)
    targets = [target] if action != "success_test" else []
    asked = _refusal(lambda: kit.rs.odds(kit.context(action, params, actor, targets)))
    resolved = _refusal(lambda: kit.resolve(action, params, actor, targets, dice=SeededDice(1)))
    assert asked == resolved


def test_pool_without_actor_is_refused(kit):
    params = {"dice": 3, "tn": 4, "pool": 1}
    asked = _refusal(lambda: kit.rs.odds(kit.context("success_test", params)))
    resolved = _refusal(lambda: kit.resolve("success_test", params))
    assert asked == resolved and asked[0] is InvalidParams


def test_odds_draw_no_dice_and_change_nothing(kit, monkeypatch):
    def no_dice(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a die was drawn")

    monkeypatch.setattr(combat, "roll_test", no_dice)
    shooter = kit.actor("shooter", {"body": 5, "combat_pool": 6}, pool=6, physical=2)
    target = kit.actor("target", {"body": 4, "combat_pool": 4, "armor": {"ballistic": 3}}, pool=4)
    params = {"code": "9M", "skill": 6, "attacker_pool": 3, "defender_pool": 2, "range": "short"}
    context = kit.context("attack", params, shooter, [target])
    before = copy.deepcopy((context.params, dict(shooter.state), dict(target.state)))
    first = kit.rs.odds(context)
    assert first == kit.rs.odds(context)
    assert (context.params, dict(shooter.state), dict(target.state)) == before
    with pytest.raises(AssertionError, match="a die was drawn"):
        kit.rs.resolve(context, SeededDice(0))  # the patch is in the resolver's path


@pytest.mark.parametrize("action", ["heal", "bleed", "stabilise", "new_turn"])
def test_actions_without_dice_have_no_odds(kit, action):
    target = kit.actor("target", physical=10)
    params = {"monitor": "physical"} if action == "heal" else {}
    targets = [] if action == "new_turn" else [target]
    assert kit.rs.odds(kit.context(action, params, None, targets)) is None


def test_word_outcomes_have_labels(kit):
    """Words are texts (translated), and so are the levels: a level's word beside its
    letter (a Czech reader took the letter S alone for the seed's smrtelné, Deadly)."""
    odds = get_odds(
        kit,
        "attack",
        {"code": "9M", "skill": 20, "tn": 2},
        kit.actor("a"),
        [kit.actor("b", {"body": 1})],
    )
    test = get_odds(kit, "success_test", {"dice": 2, "tn": 5})
    words = {"botch", "miss", "no damage"}
    assert set(odds.labels) == words | set(odds.outcomes)
    assert set(test.labels) == {"botch", "no success", "1 success", "2 successes"}
    assert odds.label("M") == "Moderate (M)" and odds.label("M", "cs") == "Mírné (M)"
    assert odds.label("S", "cs") == "Vážné (S)" and odds.label("D", "cs") == "Smrtelné (D)"
    assert odds.label("S", "de") == "Schwer (S)" and odds.label("D", "ru") == "Смертельное (D)"
    assert odds.label("D+3") == "Deadly (D) + 3 overflow"
    assert odds.label("D+2", "cs") == "Smrtelné (D) + 2 body overdamage"
    assert odds.label("D+5", "ru") == "Смертельное (D) + 5 клеток избыточного урона"
    for name in (*words, *test.labels):
        assert render((odds.labels | test.labels)[name]) == name  # English reads as the name
        for locale in ("cs", "de", "ru"):
            assert (odds if name in odds.labels else test).label(name, locale) != name


# -- the real resolver lands where the odds say -----------------------------------


def _upper_gamma(a: float, x: float) -> float:
    """The regularized upper incomplete gamma Q(a, x) (series below a + 1, Lentz's
    continued fraction above)."""
    if x <= 0:
        return 1.0
    log_front = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        n = a
        while abs(term) > abs(total) * 1e-15:
            n += 1
            term *= x / n
            total += term
        return 1.0 - total * math.exp(log_front)
    tiny = 1e-300
    b = x + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    i = 1
    while True:
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        i += 1
        if abs(delta - 1) < 1e-15:
            break
    return math.exp(log_front) * h


def chi2_pvalue(statistic: float, dof: int) -> float:
    return _upper_gamma(dof / 2, statistic / 2)


def test_the_pvalue_function():
    # P(chi2_1 > 3.841) = 0.05, P(chi2_2 > x) = exp(-x/2), P(chi2_10 > 23.209) = 0.01
    assert abs(chi2_pvalue(3.841458820694124, 1) - 0.05) < 1e-9
    assert abs(chi2_pvalue(5.0, 2) - math.exp(-2.5)) < 1e-12
    assert abs(chi2_pvalue(23.209251158954356, 10) - 0.01) < 1e-9


def resolved_name(outcome: dict[str, Any]) -> str:
    """What the resolver's outcome says, in the odds' names."""
    if outcome["attack"]["botch"]:
        return "botch"
    if not outcome["hit"]:
        return "miss"
    if outcome["level"] is None:
        return "no damage"
    return f"D+{outcome['overflow_steps']}" if outcome["overflow_steps"] else outcome["level"]


def test_seeded_attacks_match_the_odds(kit):
    shooter = kit.actor("shooter", {"body": 5, "combat_pool": 6}, stun=1)
    target = kit.actor("target", {"body": 4, "combat_pool": 4, "armor": {"ballistic": 4}}, pool=4)
    params = {
        "code": "8M",
        "skill": 3,
        "attacker_pool": 2,
        "defender_pool": 2,
        "rounds": 3,
        "recoil_compensation": 2,
        "range": "medium",
    }
    context = kit.context("attack", params, shooter, [target])
    odds = kit.rs.odds(context)
    assert isinstance(odds, Odds)
    # bands expecting at least 5 rolls each; the rarest outcomes merge into their neighbour
    bands = {name: name for name in odds.outcomes}
    for name in ("botch", "miss"):
        bands[name] = "botch or miss"
    for name in odds.outcomes:
        if name.startswith("D"):
            bands[name] = "D or worse"
        if name in ("no damage", "L"):
            bands[name] = "L or less"
    probability: dict[str, Fraction] = {}
    for name, p in odds.outcomes.items():
        probability[bands[name]] = probability.get(bands[name], Fraction(0)) + p
    source = SeededDice(SEED, limit=10**9)
    observed = dict.fromkeys(probability, 0)
    for _ in range(ROLLS):
        observed[bands[resolved_name(kit.rs.resolve(context, source).outcome)]] += 1
    expected = {name: float(p) * ROLLS for name, p in probability.items()}
    assert min(expected.values()) >= 5 and len(expected) >= 4
    statistic = sum((observed[n] - e) ** 2 / e for n, e in expected.items())
    assert chi2_pvalue(statistic, len(expected) - 1) > 0.001
