"""The wilddie odds hook: exact against icepool, and against the real resolver.

icepool builds each roll independently of rollbridge: the trait die and, for a
pc, the wild d6, each exploding (WD-2), the higher kept (WD-3), plus the
modifiers (untrained −2, −1 a wound, the request's). rollbridge's compounding at
depth 10 equals icepool's ``explode(depth=11)`` on every total below 11 × faces;
icepool's mass from there on is rollbridge's ``truncated`` (docs/dice.md, "Exact
odds"). A seeded chi-square check then resolves a trait test 20,000 times and
compares where the results land with the computed odds.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import pytest

from rollbridge import ActionContext
from rollbridge.dice import SeededDice
from rollbridge.exceptions import InvalidParams, RuleViolation
from rollbridge.odds import Odds
from rollbridge.schema import validate

icepool = pytest.importorskip("icepool")

DEPTH = 10  # rollbridge's default explosion depth
CUT = 10**6  # a total that stands for "cut off by the depth"
SEED = 23
ROLLS = 20_000


def expected_name(total: int, difficulty: int) -> str:
    """WD-3, read from the rules: below → failure; each full 4 above → a raise."""
    if total < difficulty:
        return "failure"
    count = (total - difficulty) // 4
    return "success" if count == 0 else f"{count} raise" + ("s" if count > 1 else "")


def acing(faces: int):
    """One acing die, its totals past rollbridge's depth mapped to CUT."""
    limit = (DEPTH + 1) * faces
    exploded = icepool.d(faces).explode(depth=DEPTH + 1)
    return exploded.map(lambda t: t if t < limit else CUT)


def icepool_odds(faces: int, pc: bool, modifier: int, difficulty: int):
    """(outcomes, truncated) computed with icepool."""
    die = acing(faces)
    kept = icepool.highest(die, acing(6)) if pc else die
    outcomes: dict[str, Fraction] = {}
    truncated = Fraction(0)
    denominator = kept.denominator()
    for total, weight in kept.items():
        p = Fraction(weight, denominator)
        if total == CUT:
            truncated += p
            continue
        name = expected_name(total + modifier, difficulty)
        outcomes[name] = outcomes.get(name, Fraction(0)) + p
    return outcomes, truncated


def context(wd, action: str, params: dict[str, Any], actor, targets=()) -> ActionContext:
    """A context as the table engine builds it (parameters validated, settings filled)."""
    checked = validate(wd.ruleset.actions[action].params, params)
    return ActionContext(
        action=action,
        params=checked,
        actor=actor,
        targets=tuple(targets),
        settings=wd.settings(),
        request_id="r1",
        by_gm=True,
    )


def get_odds(wd, action, params, actor, targets=()) -> Odds:
    odds = wd.ruleset.odds(context(wd, action, params, actor, targets))
    assert isinstance(odds, Odds)
    return odds


def nonzero(outcomes) -> dict[str, Fraction]:
    return {name: p for name, p in outcomes.items() if p}


@pytest.mark.parametrize("die", ["d4", "d6", "d8", "d10", "d12"])
@pytest.mark.parametrize("kind", ["pc", "npc"])
@pytest.mark.parametrize(("modifiers", "wounds"), [((), 0), ((2,), 0), ((-1, -2), 0), ((1,), 1)])
@pytest.mark.parametrize("difficulty", [2, 4, 7, 12])
def test_trait_odds_equal_icepool(wd, die, kind, modifiers, wounds, difficulty):
    state = {"wounds": wounds} if wounds else None
    actor = wd.actor(kind=kind, state=state, vigor=die)
    params = {
        "trait": "vigor",
        "difficulty": difficulty,
        "modifiers": [{"value": v, "note": "x"} for v in modifiers],
    }
    odds = get_odds(wd, "trait", params, actor)
    outcomes, truncated = icepool_odds(
        int(die[1:]), kind == "pc", sum(modifiers) - wounds, difficulty
    )
    assert nonzero(odds.outcomes) == outcomes
    assert odds.truncated == truncated
    assert sum(odds.outcomes.values()) + odds.truncated == 1
    assert list(odds.outcomes)[:2] == ["failure", "success"]


@pytest.mark.parametrize("kind", ["pc", "npc"])
def test_untrained_skill_rolls_d4_minus_2(wd, kind):
    actor = wd.actor(kind=kind)
    odds = get_odds(wd, "trait", {"trait": "stealth", "difficulty": 4}, actor)
    outcomes, truncated = icepool_odds(4, kind == "pc", -2, 4)
    assert nonzero(odds.outcomes) == outcomes and odds.truncated == truncated


def test_the_default_difficulty_is_4(wd):
    actor = wd.actor(intuition="d8")
    assert get_odds(wd, "trait", {"trait": "intuition"}, actor) == get_odds(
        wd, "trait", {"trait": "intuition", "difficulty": 4}, actor
    )


def test_a_known_value(wd):
    # npc d4 against 4: 1-3 fail (3/4); an ace then 1-3 is 5-7, a success (3/16);
    # two aces then 1-3 is 9-11, one raise (3/64)
    npc = wd.actor(kind="npc", vigor="d4")
    odds = get_odds(wd, "trait", {"trait": "vigor", "difficulty": 4}, npc)
    assert odds.outcomes["failure"] == Fraction(3, 4)
    assert odds.outcomes["success"] == Fraction(3, 16)
    assert odds.outcomes["1 raise"] == Fraction(3, 64)


def test_melee_attack_is_fighting_against_defense(wd):
    attacker = wd.actor(skills={"fighting": "d8"})
    target = wd.actor("guard", kind="npc", skills={"fighting": "d10"})  # Defense 7
    odds = get_odds(
        wd, "attack", {"mode": "melee", "modifiers": [{"value": 1}]}, attacker, [target]
    )
    outcomes, truncated = icepool_odds(8, True, 1, 7)
    assert nonzero(odds.outcomes) == outcomes and odds.truncated == truncated


def test_ranged_attack_is_shooting_against_range_and_size(wd):
    attacker = wd.actor(kind="npc", skills={"shooting": "d6"})
    target = wd.actor("guard", kind="npc")
    params = {"mode": "ranged", "range": "medium"}
    odds = get_odds(wd, "attack", params, attacker, [target])
    outcomes, truncated = icepool_odds(6, False, 0, 6)
    assert nonzero(odds.outcomes) == outcomes and odds.truncated == truncated


def test_odds_refuse_as_the_resolver_does(wd):
    down = wd.actor(kind="npc", state={"incapacitated": True})
    with pytest.raises(RuleViolation) as asked:
        get_odds(wd, "trait", {"trait": "vigor"}, down)
    with pytest.raises(RuleViolation) as resolved:
        wd.resolve("trait", {"trait": "vigor"}, actor=down)
    assert asked.value.code == resolved.value.code == "incapacitated"
    attacker, target = wd.actor(), wd.actor("guard", kind="npc")
    with pytest.raises(InvalidParams):
        get_odds(wd, "attack", {"mode": "ranged"}, attacker, [target])


def test_actions_without_odds(wd):
    actor = wd.actor(state={"shaken": True})
    assert wd.ruleset.odds(context(wd, "recover", {}, actor)) is None


# -- the real resolver lands where the odds say --------------------------------


def _critical_001(dof: int) -> float:
    """The chi-square 0.999 quantile (Wilson–Hilferty; well under 1% off here)."""
    z = 3.090232306167813
    return dof * (1 - 2 / (9 * dof) + z * math.sqrt(2 / (9 * dof))) ** 3


def test_seeded_trait_tests_match_the_odds(wd):
    actor = wd.actor(state={"wounds": 1}, skills={"notice": "d8"})  # pc: d8 and wild d6
    params = {"trait": "notice", "difficulty": 5, "modifiers": [{"value": 2, "note": "x"}]}
    ctx = context(wd, "trait", params, actor)
    odds = wd.ruleset.odds(ctx)
    assert isinstance(odds, Odds)
    # merge the raises from 3 on, so that each band expects at least 5 rolls
    bands = ["failure", "success", "1 raise", "2 raises", "3+ raises"]

    def band(name: str) -> str:
        return name if name in bands else "3+ raises"

    probability = dict.fromkeys(bands, Fraction(0))
    for name, p in odds.outcomes.items():
        probability[band(name)] += p
    source = SeededDice(SEED, limit=10**9)
    observed = dict.fromkeys(bands, 0)
    for _ in range(ROLLS):
        outcome = wd.ruleset.resolve(ctx, source).outcome
        name = (
            "failure"
            if not outcome["success"]
            else expected_name(outcome["total"], outcome["difficulty"])
        )
        observed[band(name)] += 1
    expected = [float(probability[n]) * ROLLS for n in bands]
    assert min(expected) >= 5
    statistic = sum((observed[n] - e) ** 2 / e for n, e in zip(bands, expected, strict=True))
    dof = len(bands) - 1
    try:
        from scipy.stats import chi2
    except ImportError:
        assert statistic < _critical_001(dof)
    else:
        assert chi2.sf(statistic, dof) > 0.001


# -- damage (WD-7) -------------------------------------------------------------

DIE_FACES = {"d4": 4, "d6": 6, "d8": 8, "d10": 10, "d12": 12}


def expected_effect(
    total: int, toughness: int, *, shaken: bool, per_raise: bool, pc: bool, state
) -> str:
    """WD-7 and WD-8, read from the rules: below Toughness nothing; meeting it Shakes
    (a wound if already Shaken); each full 4 above it a wound (one, or one per raise
    with the per_raise setting). A pc holds 3 wounds, the 4th incapacitates; an NPC
    is out at its first; a target already incapacitated stays so."""
    margin = total - toughness
    if margin < 0:
        return "none"
    if margin < 4:
        if not shaken:
            return "shaken"
        wounds = 1
    else:
        wounds = margin // 4 if per_raise else 1
    down = state.get("incapacitated", False)
    if not pc or down or state.get("wounds", 0) + wounds > 3:
        return "incapacitated"
    return f"{wounds} wound" + ("s" if wounds > 1 else "")


def icepool_damage(faces: list[int], constant: int, effect) -> dict[str, Fraction]:
    """The law of WD-7's effect, from acing icepool dice (WD-2) summed.

    Past ``Toughness + 16`` nothing changes (four wounds are past any track), so
    each die explodes deep enough that every total below that bound is exact and
    the rest (totals at or past it) is lumped at the bound."""
    bound = 60  # above any Toughness (≤ 28) + 16 here
    total = None
    for f in faces:
        die = icepool.d(f).explode(depth=bound // f + 1).map(lambda v: min(v, bound))
        total = die if total is None else total + die
    outcomes: dict[str, Fraction] = {}
    denominator = total.denominator()
    for value, weight in total.items():
        name = effect(value + constant)
        outcomes[name] = outcomes.get(name, Fraction(0)) + Fraction(weight, denominator)
    return outcomes


DAMAGE_EXPRESSIONS = {  # expression → (faces, constant)
    "d6": ([6], 0),
    "2d6": ([6, 6], 0),
    "d8+1": ([8], 1),
    "d10+d6-1": ([10, 6], -1),
    "3d4+2": ([4, 4, 4], 2),
    "2d12-3": ([12, 12], -3),
}
TARGETS = {  # name → (kind, vigor, armor, state)
    "fresh pc": ("pc", "d6", 0, None),
    "shaken npc": ("npc", "d8", 0, {"shaken": True}),
    "armoured npc": ("npc", "d12", 3, None),
    "wounded shaken pc": ("pc", "d4", 2, {"wounds": 2, "shaken": True}),
    "downed pc": ("pc", "d6", 0, {"wounds": 3, "incapacitated": True, "shaken": True}),
}


def damage_target(wd, name: str):
    kind, vigor, armor, state = TARGETS[name]
    return wd.actor("guard", kind=kind, vigor=vigor, armor=armor, state=state)


def damage_odds_of(wd, params, attacker, target, per_raise: bool) -> Odds:
    setting = {"wounds_per_hit": "per_raise" if per_raise else "one"}
    checked = validate(wd.ruleset.actions["damage"].params, params)
    ctx = ActionContext(
        action="damage",
        params=checked,
        actor=attacker,
        targets=(target,),
        settings=wd.settings(**setting),
        request_id="r1",
        by_gm=True,
    )
    odds = wd.ruleset.odds(ctx)
    assert isinstance(odds, Odds)
    return odds


@pytest.mark.parametrize("expression", list(DAMAGE_EXPRESSIONS))
@pytest.mark.parametrize("target_name", list(TARGETS))
@pytest.mark.parametrize("per_raise", [False, True])
def test_damage_odds_equal_icepool(wd, expression, target_name, per_raise):
    target = damage_target(wd, target_name)
    kind, vigor, armor, state = TARGETS[target_name]
    toughness = 2 + DIE_FACES[vigor] // 2 + armor  # WD-5
    faces, constant = DAMAGE_EXPRESSIONS[expression]
    odds = damage_odds_of(wd, {"dice": expression}, None, target, per_raise)

    def effect(total: int) -> str:
        return expected_effect(
            total,
            toughness,
            shaken=bool((state or {}).get("shaken")),
            per_raise=per_raise,
            pc=kind == "pc",
            state=state or {},
        )

    assert odds.outcomes == icepool_damage(faces, constant, effect)
    assert odds.truncated == 0
    assert sum(odds.outcomes.values()) == 1


@pytest.mark.parametrize("strength", ["d4", "d12"])
@pytest.mark.parametrize("per_raise", [False, True])
def test_melee_damage_adds_the_strength_die(wd, strength, per_raise):
    # WD-7 Decision: melee damage is Strength die + weapon die, both acing
    attacker = wd.actor(strength=strength)
    target = wd.actor("guard", kind="pc", vigor="d8")  # Toughness 6, fresh
    odds = damage_odds_of(wd, {"dice": "d8", "melee": True}, attacker, target, per_raise)

    def effect(total: int) -> str:
        return expected_effect(total, 6, shaken=False, per_raise=per_raise, pc=True, state={})

    assert odds.outcomes == icepool_damage([DIE_FACES[strength], 8], 0, effect)


def test_damage_known_value(wd):
    # d6 against an NPC of Toughness 4 (Vigor d4): 1-3 nothing (1/2); 4, 5 and 6+1
    # Shaken (1/3 + 1/36); 6+2 or more a wound, out of the fight (5/36)
    target = wd.actor("guard", kind="npc", vigor="d4")
    odds = damage_odds_of(wd, {"dice": "d6"}, None, target, False)
    assert odds.outcomes == {
        "none": Fraction(1, 2),
        "shaken": Fraction(13, 36),
        "incapacitated": Fraction(5, 36),
    }
    assert odds.label("incapacitated") == "out of the fight"
    assert odds.label("shaken", "de") != "shaken"


def test_damage_labels_are_read_in_each_language(wd):
    target = wd.actor("guard", kind="pc", vigor="d4")
    odds = damage_odds_of(wd, {"dice": "3d6"}, None, target, True)
    assert odds.label("2 wounds") == "2 wounds"
    assert odds.label("incapacitated") == "incapacitated"
    for locale in ("cs", "de", "ru"):
        for name in odds.outcomes:
            assert odds.label(name, locale) != odds.label(name, "en")


def test_damage_odds_refuse_as_the_resolver_does(wd):
    target = wd.actor("guard", kind="npc")
    for params, attacker in [
        ({"dice": "2d6kh1"}, None),
        ({"dice": "d6-d4"}, None),
        ({"dice": "21d6"}, None),
        ({"dice": "d8", "melee": True}, None),
    ]:
        with pytest.raises(InvalidParams) as asked:
            damage_odds_of(wd, params, attacker, target, False)
        with pytest.raises(InvalidParams) as resolved:
            wd.resolve("damage", params, actor=attacker, targets=[target], dice=[3, 3])
        assert asked.value.code == resolved.value.code
        assert asked.value.details == resolved.value.details


def test_damage_odds_change_nothing_and_draw_no_dice(wd, monkeypatch):
    import copy

    from rollbridge.plugins.wilddie import damage

    def no_dice(*args, **kwargs):
        raise AssertionError("odds drew a die")

    monkeypatch.setattr(damage, "roll_formula", no_dice)
    attacker = wd.actor(strength="d8")
    target = wd.actor("guard", kind="pc", state={"wounds": 1, "shaken": True})
    before = copy.deepcopy((attacker, target))
    damage_odds_of(wd, {"dice": "2d6+1", "melee": True}, attacker, target, True)
    assert (attacker, target) == before


def test_seeded_damage_rolls_match_the_odds(wd):
    attacker = wd.actor(strength="d8")
    target = wd.actor("guard", kind="pc", vigor="d6", state={"wounds": 1})  # Toughness 5
    params = {"dice": "d6+1", "melee": True}
    settings = {"wounds_per_hit": "per_raise"}
    odds = damage_odds_of(wd, params, attacker, target, True)
    checked = validate(wd.ruleset.actions["damage"].params, params)
    ctx = ActionContext(
        action="damage",
        params=checked,
        actor=attacker,
        targets=(target,),
        settings=wd.settings(**settings),
        request_id="r1",
        by_gm=True,
    )
    source = SeededDice(SEED, limit=10**9)
    observed = dict.fromkeys(odds.outcomes, 0)
    for _ in range(ROLLS):
        outcome = wd.ruleset.resolve(ctx, source).outcome
        state = outcome["new_state"]
        wounds = outcome["wounds_inflicted"]
        if wounds and state["incapacitated"]:
            name = "incapacitated"
        elif wounds:
            name = f"{wounds} wound" + ("s" if wounds > 1 else "")
        else:
            name = outcome["result"]
        observed[name] += 1
    bands = list(odds.outcomes)
    expected = [float(odds.outcomes[n]) * ROLLS for n in bands]
    assert min(expected) >= 5
    statistic = sum((observed[n] - e) ** 2 / e for n, e in zip(bands, expected, strict=True))
    dof = len(bands) - 1
    try:
        from scipy.stats import chi2
    except ImportError:
        assert statistic < _critical_001(dof)
    else:
        assert chi2.sf(statistic, dof) > 0.001


@pytest.mark.parametrize("dice", ["2d6+20", "1d4+40", "20d12+99"])
def test_damage_odds_with_a_constant_past_the_cap_are_the_resolvers_certain_effect(dice):
    """WD-7: a damage constant at or past the last total that matters leaves one
    effect for every roll; the odds say so, and the resolver agrees (seeded)."""
    from rollbridge.cli.offline import offline_host
    from rollbridge.engine.model import Principal
    from rollbridge.offline import TableService
    from rollbridge.stores.memory import MemoryStore

    gm = Principal("gm", "gm", "k")
    host = offline_host()
    sheets = host.ruleset("wilddie").example_sheets
    outcomes = set()
    for seed in range(6):
        service = TableService(MemoryStore(), host, dice=lambda s=seed: SeededDice(s))
        service.create_table("t", "wilddie", table_id="t")
        for i, name in enumerate(sheets):
            service.handle("t", {"type": "actor.create", "id": f"c{i}", "actor": {
                "id": name, "name": name, "sheet": sheets[name]}}, gm)  # fmt: skip
        fields = {"action": "damage", "actor": "Ana", "targets": ["Guard"],
                  "params": {"dice": dice, "melee": False}}  # fmt: skip
        odds = service.handle("t", {"type": "odds", "id": "o", **fields}, gm)["odds"]
        assert [o["probability"] for o in odds["outcomes"]] == ["1/1"]
        done = service.handle("t", {"type": "resolve", "id": "r", **fields}, gm)
        state = done["event"]["actors"][0]["state"] if done["event"]["actors"] else {}
        outcomes.add((odds["outcomes"][0]["outcome"], bool(state.get("incapacitated"))))
    assert outcomes == {("incapacitated", True)}
