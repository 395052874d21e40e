"""The exact odds of an attack (SR-6 to SR-10, SR-14), of a ``damage`` action
(SR-9, SR-10) and of a success test (SR-16).

Each follows the resolver's own plan (:func:`.combat.plan_attack`,
:func:`.combat.plan_damage`, :func:`.checks.plan_success_test`: the same dice,
TNs, wound modifiers of both actors, Combat Pool spends, rounds, recoil, armour,
settings and refusals); no die is drawn and no state changes.

One open-ended d6 (SR-1) against an effective TN t (SR-2: at least 2) succeeds
with an exact probability and no truncation: with t = 6k + r + 1 (0 ≤ r ≤ 5) it
must show 6 on its first k rolls and at least r + 1 on the next, so
P = (6 − r) / 6^(k+1) (TN 12 and 13 are both 1/36). The dice of a test are
independent, so its successes are binomial; SR-3's botch (every die's first roll
a 1, only with at least one die and the ``rule_of_one`` setting) has probability
(1/6)^n and always scores 0. The attack and the resistance test are independent;
staging (SR-10) is :func:`.codes.stage` itself, applied to each pair of counts.
All sums are exact integer weights over one common denominator, reduced to
:class:`~fractions.Fraction` once per outcome. The laws of tests are remembered
per (dice, effective TN, setting) in a cache bounded by bytes
(:data:`LAWS`, :mod:`rollbridge.odds.cache`): a test's law is a kilobyte or a
few, 100 dice against TN 100 about 40 KiB, 200 against 150 about 0.2 MiB.

Outcomes, disjoint and in this order:

* ``attack``: ``botch`` (SR-3, with ``rule_of_one``), ``miss`` (0 successes, not a
  botch), ``no damage`` (staged below L), ``L``, ``M``, ``S``, ``D``, then
  ``D+1``, ``D+2``, … (D with that many overflow boxes from staging), up to the
  most the dice can reach: the level the target takes, as the resolver's
  ``level`` and ``overflow_steps`` say. The target's boxes, and so its condition
  after the hit, are not part of it (docs/rulesets/sr2.md, "Odds").
* ``damage``: ``no damage``, ``L`` … ``D``, ``D+1`` …, as for the attack (the
  attack successes are given). A resistance botch scores 0 successes and stages
  as such: it is not an outcome of its own.
* ``success_test``: ``botch`` (with ``rule_of_one``), ``no success``, then
  ``1 success``, ``2 successes``, … up to every die.

The words are :class:`~rollbridge.text.Text` labels (:data:`.messages.ODDS_BOTCH`
and the others); a level reads as its word beside its letter (``Serious (S)``,
``Deadly (D) + 1 overflow``), as the resolution's "Damage:" step says it: a letter
alone misled a Czech reader, whose seed writes Serious V and Deadly S.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from fractions import Fraction
from functools import lru_cache
from math import comb

from rollbridge.contract import ActionContext, Odds
from rollbridge.odds.cache import BoundedCache
from rollbridge.text import Text

from .checks import plan_success_test
from .codes import LEVELS, stage
from .combat import ResistPlan, plan_attack, plan_damage
from .messages import LEVELS as LEVEL_WORDS
from .messages import say
from .rolls import effective_tn
from .words import successes as successes_text

__all__ = [
    "BOTCH",
    "LAWS",
    "MISS",
    "NO_DAMAGE",
    "NO_SUCCESS",
    "SuccessLaw",
    "attack_odds",
    "damage_odds",
    "die_chance",
    "odds",
    "staged_name",
    "success_law",
    "success_name",
    "success_test_odds",
]

#: Outcome names that are words (each has a label).
BOTCH = "botch"
MISS = "miss"
NO_DAMAGE = "no damage"
NO_SUCCESS = "no success"

_LEVEL_OUTCOMES = (NO_DAMAGE, *LEVELS)

# The outcome labels (of ``rollbridge odds sr2 attack|damage|success_test``),
# declared here rather than in :mod:`.messages`, whose every message some
# resolution says (tests/plugins/sr2/test_sr2_privacy.py); a label only an
# :class:`Odds` carries.
# Translators: an outcome in a table of odds: SR-3, every die of the test shows 1.
ODDS_BOTCH = say("odds.botch", "botch")
# Translators: an outcome in a table of odds: the attack scores no success (SR-8).
ODDS_MISS = say("odds.miss", "miss")
# Translators: an outcome in a table of odds: staged below Light (SR-10), nothing crossed.
ODDS_NO_DAMAGE = say("odds.no_damage", "no damage")
# Translators: an outcome of a success test in a table of odds: 0 successes, not a botch.
ODDS_FAILURE = say("odds.failure", "no success")
# Translators: an outcome in a table of odds: the damage level the target takes, its word
# ({level}: level.S) beside its letter ({letter}: L, M, S, D), as "Damage: …" says it.
ODDS_LEVEL = say("odds.level", "{level} ({letter})")
# Translators: an outcome in a table of odds: Deadly with {count} overflow boxes from
# staging (SR-10), as damage.overflow says them.
ODDS_LEVEL_OVERFLOW = say.plural(
    "odds.level_overflow",
    "{level} ({letter}) + {count} overflow",
    "{level} ({letter}) + {count} overflow",
)


def die_chance(tn: int) -> tuple[int, int]:
    """SR-1, SR-2: one open-ended d6 against ``tn`` succeeds with probability
    ``hits / sides`` (unreduced: ``sides`` is 6^(k+1) for a TN above 6k)."""
    k, r = divmod(effective_tn(tn) - 1, 6)
    return 6 - r, 6 ** (k + 1)


class SuccessLaw:
    """The law of a test's successes: ``weights[k]`` over :attr:`denominator` is
    P(k successes), ``botch`` over it P(botch) (a part of ``weights[0]``).

    :ivar dice: the dice rolled; :ivar tn: the effective TN (SR-2).
    """

    __slots__ = ("botch", "denominator", "dice", "tn", "weights")

    def __init__(self, dice: int, tn: int, weights: tuple[int, ...], botch: int, den: int) -> None:
        self.dice = dice
        self.tn = tn
        self.weights = weights
        self.botch = botch
        self.denominator = den


def _law(dice: int, tn: int, rule_of_one: bool) -> SuccessLaw:
    hits, sides = die_chance(tn)
    misses = sides - hits
    weights = tuple(comb(dice, k) * hits**k * misses ** (dice - k) for k in range(dice + 1))
    botch = (sides // 6) ** dice if rule_of_one and dice > 0 else 0
    return SuccessLaw(dice, tn, weights, botch, sides**dice)


def _law_size(law: SuccessLaw) -> int:
    """What ``law`` takes in memory, in bytes: its numbers (each rounded up as the
    allocator does), the object, its key."""
    size = sys.getsizeof
    numbers = (*law.weights, law.botch, law.denominator)
    return size(law) + size(law.weights) + sum(size(n) + 16 for n in numbers) + 300


#: The laws of tests, per (dice, effective TN, ``rule_of_one``): at most 4,096 of
#: them and 8 MiB together (4,096 of the largest a success test allows took ~60 MiB).
LAWS: BoundedCache[tuple[int, int, bool], SuccessLaw] = BoundedCache(
    entries=4096, budget=8 * 2**20, largest=2**20, size=_law_size
)


def success_law(dice: int, tn: int, *, rule_of_one: bool = True) -> SuccessLaw:
    """The :class:`SuccessLaw` of ``dice`` open-ended d6 against ``tn`` (SR-1 to
    SR-3), remembered per (dice, TN, setting) in :data:`LAWS`."""
    key = (dice, effective_tn(tn), bool(rule_of_one))
    return LAWS.cached(key, lambda: _law(*key))


@lru_cache(maxsize=4096)
def staged_name(level: str, net: int) -> str:
    """SR-10: the outcome of ``level`` staged by ``net`` successes, as
    :func:`.codes.stage` stages it: ``no damage``, ``L`` … ``D``, ``D+1`` …"""
    staged = stage(level, net)
    if staged.level is None:
        return NO_DAMAGE
    return f"D+{staged.overflow}" if staged.overflow else staged.level


def success_name(count: int) -> str:
    """The outcome name of ``count`` successes that are not a botch."""
    if count == 0:
        return NO_SUCCESS
    return f"{count} success" if count == 1 else f"{count} successes"


def _label(name: str) -> Text | None:
    if name == BOTCH:
        return ODDS_BOTCH()
    if name == MISS:
        return ODDS_MISS()
    if name == NO_DAMAGE:
        return ODDS_NO_DAMAGE()
    if name == NO_SUCCESS:
        return ODDS_FAILURE()
    if name.endswith(("success", "successes")):
        return successes_text(int(name.split()[0]))
    if name in LEVEL_WORDS:  # a letter alone misled: the Czech seed's S is our D
        return ODDS_LEVEL(level=LEVEL_WORDS[name](), letter=name)
    if name.startswith("D+"):
        deadly = LEVEL_WORDS["D"]()
        return ODDS_LEVEL_OVERFLOW(level=deadly, letter="D", count=int(name[2:]))
    return None


def _odds(weights: dict[str, int], denominator: int) -> Odds:
    """Integer weights over one denominator → an :class:`Odds` with word labels."""
    outcomes = {name: Fraction(w, denominator) for name, w in weights.items()}
    labels = {name: text for name in outcomes if (text := _label(name)) is not None}
    return Odds(outcomes, labels=labels)


def _overflow_order(name: str) -> int:
    return int(name[2:])


def _staged(
    level: str, attack: tuple[tuple[int, int], ...], resist: SuccessLaw
) -> tuple[dict[str, int], int]:
    """Weights of each staged outcome for ``attack`` (pairs of successes ≥ 0 and
    weight) against the resistance law, over ``resist.denominator`` times the
    attack's own denominator."""
    weights = dict.fromkeys(_LEVEL_OUTCOMES, 0)
    overflow: dict[str, int] = {}
    resisted = resist.weights
    for successes, weight in attack:
        # group the resistance counts by outcome first: few big multiplications
        grouped: dict[str, int] = {}
        for count, w in enumerate(resisted):
            name = staged_name(level, successes - count)
            grouped[name] = grouped.get(name, 0) + w
        for name, w in grouped.items():
            if name in weights:
                weights[name] += weight * w
            else:
                overflow[name] = overflow.get(name, 0) + weight * w
    for name in sorted(overflow, key=_overflow_order):
        weights[name] = overflow[name]
    return weights, resist.denominator


def _resist_law(plan: ResistPlan) -> SuccessLaw:
    return success_law(plan.dice, plan.tn_raw, rule_of_one=plan.rule_of_one)


def attack_odds(context: ActionContext) -> Odds:
    """SR-6 to SR-10, SR-14: ``botch``, ``miss``, ``no damage`` and the level the
    target takes (``L`` … ``D``, ``D+1`` …) of the ``attack`` action."""
    plan = plan_attack(context)
    attack = success_law(plan.dice, plan.tn_raw, rule_of_one=plan.rule_of_one)
    resist = _resist_law(plan.resist)
    hits = tuple((k, w) for k, w in enumerate(attack.weights) if k > 0)
    staged, resist_den = _staged(plan.resist.level, hits, resist)
    weights: dict[str, int] = {}
    if plan.rule_of_one:
        weights[BOTCH] = attack.botch * resist_den
    weights[MISS] = (attack.weights[0] - attack.botch) * resist_den
    weights.update(staged)
    return _odds(weights, attack.denominator * resist_den)


def damage_odds(context: ActionContext) -> Odds:
    """SR-9, SR-10: ``no damage`` and the level the target takes of ``damage``."""
    plan = plan_damage(context)
    resist = _resist_law(plan.resist)
    staged, denominator = _staged(plan.resist.level, ((plan.successes, 1),), resist)
    return _odds(staged, denominator)


def success_test_odds(context: ActionContext) -> Odds:
    """SR-16: ``botch``, ``no success``, ``1 success`` … of ``success_test``."""
    plan = plan_success_test(context)
    law = success_law(plan.count, plan.tn_raw, rule_of_one=plan.rule_of_one)
    weights: dict[str, int] = {}
    if plan.rule_of_one:
        weights[BOTCH] = law.botch
    weights[NO_SUCCESS] = law.weights[0] - law.botch
    for count in range(1, plan.count + 1):
        weights[success_name(count)] = law.weights[count]
    return _odds(weights, law.denominator)


_ODDS: dict[str, Callable[[ActionContext], Odds]] = {
    "attack": attack_odds,
    "damage": damage_odds,
    "success_test": success_test_odds,
}


def odds(context: ActionContext) -> Odds | None:
    """The odds of ``context``'s action; None for an action without dice (``heal``,
    ``bleed``, ``stabilise``, ``new_turn``)."""
    compute = _ODDS.get(context.action)
    return compute(context) if compute is not None else None
