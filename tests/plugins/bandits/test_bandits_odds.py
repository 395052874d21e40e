"""The bandits odds hook: exact against icepool, and against the real resolver.

icepool (a test dependency) builds each roll independently of rollbridge: 2d6,
3d6 keeping the highest or lowest two, plus the clamped modifier (BD-1, BD-2),
or 2d6 plus the harm terms (BD-3); the bands are read here from the rules
(BD-1, BD-5), not from the plugin. A seeded chi-square check then resolves the
actions 20,000 times each and compares where they land with the computed odds.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from rollbridge.dice import SeededDice
from rollbridge.exceptions import RuleViolation
from rollbridge.odds import Odds

icepool = pytest.importorskip("icepool")

MOVE_BANDS = ("6-", "7-9", "10-11", "12+")
HARM_BANDS = ("3-", "4-6", "7-9", "10-12", "13-15", "16-18", "19-21", "22+")
SEED = 18
ROLLS = 20_000


def move_band(total: int) -> str:
    """BD-1: 6− miss, 7–9 partial, 10+ full, 12+ flagged as the extra."""
    return "12+" if total >= 12 else "10-11" if total >= 10 else "7-9" if total >= 7 else "6-"


def harm_band(total: int) -> str:
    """BD-5: the row of the harm table, by range."""
    if total <= 3:
        return "3-"
    if total >= 22:
        return "22+"
    low = 4 + 3 * ((total - 4) // 3)
    return f"{low}-{low + 2}"


def banded(die, names: tuple[str, ...], band) -> dict[str, Fraction]:
    out = dict.fromkeys(names, Fraction(0))
    denominator = die.denominator()
    for total, weight in die.items():
        out[band(total)] += Fraction(weight, denominator)
    return out


def icepool_move(mode: str, modifier: int):
    dice = {
        "normal": icepool.d6.pool(2).sum(),
        "advantage": icepool.d6.pool(3).highest(2).sum(),
        "disadvantage": icepool.d6.pool(3).lowest(2).sum(),
    }[mode]
    return dice + max(-4, min(4, modifier))


def move_params(stat="cool", modifiers=(), advantage=False, disadvantage=False):
    return {
        "stat": stat,
        "modifiers": list(modifiers),
        "advantage": advantage,
        "disadvantage": disadvantage,
    }


def move_odds(kit, actor, settings=None, **params) -> Odds:
    odds = kit.ruleset.odds(kit.context("move", move_params(**params), actor=actor,
                                        settings=settings))  # fmt: skip
    assert isinstance(odds, Odds)
    return odds


@pytest.mark.parametrize("stat", [-2, 0, 1, 3])
@pytest.mark.parametrize("modifiers", [(), (1,), (-3, -2), (2, 2, 1), (5,), (-6,)])
@pytest.mark.parametrize(
    ("advantage", "disadvantage", "mode"),
    [
        (False, False, "normal"),
        (True, False, "advantage"),
        (False, True, "disadvantage"),
        (True, True, "normal"),
    ],
)
def test_move_odds_equal_icepool(kit, stat, modifiers, advantage, disadvantage, mode):
    actor = kit.bandit(stats={"cool": stat})
    odds = move_odds(kit, actor, modifiers=modifiers, advantage=advantage,
                     disadvantage=disadvantage)  # fmt: skip
    expected = icepool_move(mode, stat + sum(modifiers))
    assert dict(odds.outcomes) == banded(expected, MOVE_BANDS, move_band)
    assert list(odds.outcomes) == list(MOVE_BANDS)
    assert odds.truncated == 0 and sum(odds.outcomes.values()) == 1
    assert odds.totals is not None
    assert {int(t): p for t, p in odds.totals.outcomes.items()} == {
        t: Fraction(w, expected.denominator()) for t, w in expected.items()
    }


def test_the_bd1_cap_is_reflected(kit):
    capped = move_odds(kit, kit.bandit(stats={"cool": 3}), modifiers=[3])
    assert capped.totals is not None and capped.totals.formula == "2d6 + 4"
    four = move_odds(kit, kit.bandit(stats={"cool": 4}))
    assert capped.outcomes == four.outcomes
    assert capped.outcomes["6-"] == Fraction(1, 36) and capped.outcomes["12+"] == Fraction(5, 12)
    floor = move_odds(kit, kit.bandit(stats={"cool": -3}), modifiers=[-5])
    assert floor.totals is not None and floor.totals.formula == "2d6 - 4"
    assert floor.outcomes["10-11"] == floor.outcomes["12+"] == 0
    assert floor.outcomes["7-9"] == Fraction(1, 12)


def test_bd7_heavily_wounded_rolls_with_disadvantage(kit):
    plain = move_odds(kit, kit.bandit(stats={"cool": 1}, slots={3}), disadvantage=True)
    heavy = move_odds(kit, kit.bandit(stats={"cool": 1}, slots={3}))
    assert heavy.totals is not None and heavy.totals.formula == "3d6kl2 + 1"
    assert heavy.outcomes == plain.outcomes
    assert heavy.outcomes == banded(icepool_move("disadvantage", 1), MOVE_BANDS, move_band)
    cancelled = move_odds(kit, kit.bandit(stats={"cool": 1}, slots={3}), advantage=True)
    assert cancelled.outcomes == move_odds(kit, kit.bandit(stats={"cool": 1})).outcomes
    # Lighter wounds leave the roll alone.
    light = move_odds(kit, kit.bandit(stats={"cool": 1}, slots={1, 2}))
    assert light.outcomes == move_odds(kit, kit.bandit(stats={"cool": 1})).outcomes


def test_bd7_variant_keeps_the_disadvantage_the_state_records(kit):
    settings = {"heavy_wound_lasts_the_raid": True}
    healed = kit.bandit(stats={"cool": 1}, slots={2}, heavy_this_raid=True)
    odds = move_odds(kit, healed, settings=settings)
    assert odds.totals is not None and odds.totals.formula == "3d6kl2 + 1"


def test_move_odds_refuse_as_the_resolver_does(kit):
    with pytest.raises(RuleViolation) as asked:
        move_odds(kit, kit.bandit(dead=True, stats={"cool": 1}))
    with pytest.raises(RuleViolation) as resolved:
        kit.run("move", move_params(), actor=kit.bandit(dead=True, stats={"cool": 1}))
    assert asked.value.code == resolved.value.code == "actor_dead"


@pytest.mark.parametrize("direction", ["dealt", "taken"])
@pytest.mark.parametrize(("steady", "armour", "pierce"), [(0, 0, 0), (2, 1, 3), (1, 4, 0),
                                                          (0, 0, 10)])  # fmt: skip
@pytest.mark.parametrize(("attacker_pair", "target_pair"), [(None, None), ("pierce", "armour")])
def test_harm_odds_equal_icepool(kit, direction, steady, armour, pierce, attacker_pair,
                                 target_pair):  # fmt: skip
    attacker = kit.bandit("ana", pierce=pierce, two_light_weapons=True)
    target = kit.bandit("boris", stats={"steady": steady}, armour=armour, two_light_weapons=True)
    params = {"direction": direction, "attacker_dual_wield": attacker_pair,
              "target_dual_wield": target_pair}  # fmt: skip
    odds = kit.ruleset.odds(kit.context("harm", params, actor=attacker, targets=[target]))
    assert isinstance(odds, Odds)
    modifier = pierce - armour - (steady if direction == "taken" else 0)
    modifier += (attacker_pair == "pierce") - (target_pair == "armour")
    expected = icepool.d6.pool(2).sum() + modifier
    assert dict(odds.outcomes) == banded(expected, HARM_BANDS, harm_band)
    assert list(odds.outcomes) == list(HARM_BANDS)
    assert sum(odds.outcomes.values()) == 1 and odds.truncated == 0


def test_harm_odds_with_a_given_pierce_and_no_attacker(kit):
    params = {"direction": "taken", "pierce": 12}
    odds = kit.ruleset.odds(kit.context("harm", params, targets=[kit.extra(armour=1)]))
    assert isinstance(odds, Odds)
    assert odds.outcomes == banded(icepool.d6.pool(2).sum() + 11, HARM_BANDS, harm_band)
    assert odds.outcomes["22+"] == Fraction(1, 12)


def test_actions_without_dice_have_no_odds(kit):
    ana = kit.bandit(slots={2})
    assert kit.ruleset.odds(kit.context("medpack", {"n": 1}, targets=[ana])) is None
    assert kit.ruleset.odds(kit.context("end_of_turn", {}, actor=ana)) is None


def test_odds_to_dict(kit):
    data = move_odds(kit, kit.bandit(stats={"cool": 2})).to_dict()
    assert data["outcomes"][0] == {"outcome": "6-", "label": "6-", "probability": "1/6",
                                   "float": 1 / 6}  # fmt: skip
    assert data["truncated"] == "0/1" and data["truncated_float"] == 0
    assert data["totals"]["formula"] == "2d6 + 2"


# -- the real resolver lands where the odds say --------------------------------


def _critical_001(dof: int) -> float:
    """The chi-square 0.999 quantile (Wilson–Hilferty; well under 1% off here)."""
    z = 3.090232306167813
    return dof * (1 - 2 / (9 * dof) + z * math.sqrt(2 / (9 * dof))) ** 3


def _p_above_001(odds: Odds, observed: dict[str, int]) -> None:
    names = [n for n, p in odds.outcomes.items() if p]
    assert set(observed) <= set(names), "a result fell in an outcome of probability 0"
    expected = [float(odds.outcomes[n]) * ROLLS for n in names]
    assert min(expected) >= 5, "merge bands so that each expects at least 5 rolls"
    statistic = sum((observed.get(n, 0) - e) ** 2 / e for n, e in zip(names, expected,
                                                                      strict=True))  # fmt: skip
    dof = len(names) - 1
    try:
        from scipy.stats import chi2
    except ImportError:
        assert statistic < _critical_001(dof)
    else:
        assert chi2.sf(statistic, dof) > 0.001


def test_seeded_moves_match_the_odds(kit):
    actor = kit.bandit(stats={"cool": 1}, slots={3})  # BD-7: 3d6kl2 + 1 … then + 2
    params = move_params(modifiers=[1])
    context = kit.context("move", params, actor=actor)
    odds = kit.ruleset.odds(context)
    assert isinstance(odds, Odds)
    source = SeededDice(SEED, limit=10**9)
    observed: dict[str, int] = {}
    for _ in range(ROLLS):
        outcome = kit.ruleset.resolve(context, source).outcome
        name = "12+" if outcome["extra_result"] else {"full": "10-11", "partial": "7-9",
                                                       "miss": "6-"}[outcome["band"]]  # fmt: skip
        observed[name] = observed.get(name, 0) + 1
    _p_above_001(odds, observed)


def test_seeded_harm_rolls_match_the_odds(kit):
    attacker = kit.bandit("ana", pierce=4)
    target = kit.extra("guard", armour=1)
    context = kit.context("harm", {"direction": "dealt"}, actor=attacker, targets=[target])
    odds = kit.ruleset.odds(context)
    assert isinstance(odds, Odds)
    # 2d6 + 3 reaches 5..15: the rows 4-6 … 13-15 (16-18 and up have probability 0).
    source = SeededDice(SEED, limit=10**9)
    observed: dict[str, int] = {}
    for _ in range(ROLLS):
        table = kit.ruleset.resolve(context, source).outcome["table"]
        name = str(table["range"]).replace("–", "-").replace("−", "-")
        observed[name] = observed.get(name, 0) + 1
    _p_above_001(odds, observed)
