"""The exact odds of a trait test (WD-3) and of an attack (WD-6).

Both follow the resolver's own plan (:func:`.checks.plan_trait`,
:func:`.checks.plan_attack`: the same trait die, untrained −2, wound and request
modifiers, wild die, difficulty and refusals); no die is drawn. Each die aces
(WD-2): its law is :func:`rollbridge.odds.distribution` of ``1dF!!`` at the
default explosion depth. A pc keeps the better of the trait die and the wild d6
(WD-3), so the total is the maximum of the two independent dice plus the
modifier; a roll that goes past the depth on either die is in ``truncated``.
WD-3 has no critical failure.

Outcomes, disjoint and in this order: ``failure`` (total below the difficulty),
``success`` (no raise), then ``1 raise``, ``2 raises``, … (each full 4 above the
difficulty, :func:`.rolling.raises`), up to the most raises the computed rolls reach.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from rollbridge.contract import ActionContext, Distribution, Odds, distribution
from rollbridge.text import Text

from .checks import RollPlan, plan_attack, plan_trait
from .messages import ODDS_FAILURE, ODDS_RAISES, ODDS_SUCCESS
from .rolling import WILD_FACES, formula, raises

__all__ = ["attack_odds", "odds", "outcome_name", "roll_odds", "total_distribution", "trait_odds"]


def outcome_name(total: int, difficulty: int) -> str:
    """The outcome a total falls in: ``failure``, ``success``, ``1 raise``, ``2 raises``…"""
    if total < difficulty:
        return "failure"
    count = raises(total, difficulty)
    if not count:
        return "success"
    return f"{count} raise" if count == 1 else f"{count} raises"


def _cumulative(law: Distribution) -> tuple[list[int], dict[int, int]]:
    """The totals of ``law`` and its weight at or below each of them."""
    running, out = 0, {}
    for total, weight in law.weights.items():
        running += weight
        out[int(total)] = running
    return list(out), out


def total_distribution(plan: RollPlan) -> Distribution:
    """The law of the kept total: the acing trait die, for a pc the better of it and
    the acing wild d6 (WD-2, WD-3), plus the plan's modifier."""
    modifier = plan.modifier
    label = formula({"faces": plan.faces, "wild_die": {} if plan.wild else None}, modifier)
    trait = distribution(f"1d{plan.faces}!!")
    if not plan.wild:
        weights = {int(t) + modifier: w for t, w in trait.weights.items()}
        return Distribution(label, weights, trait.denominator, trait.depth)
    wild = distribution(f"1d{WILD_FACES}!!")
    trait_totals, trait_cdf = _cumulative(trait)
    wild_totals, wild_cdf = _cumulative(wild)
    weights: dict[int, int] = {}
    below_trait = below_wild = previous = 0
    for total in sorted({*trait_totals, *wild_totals}):
        below_trait = trait_cdf.get(total, below_trait)
        below_wild = wild_cdf.get(total, below_wild)
        both = below_trait * below_wild  # P(max ≤ total), neither die cut off
        if both != previous:
            weights[total + modifier] = both - previous
        previous = both
    return Distribution(label, weights, trait.denominator * wild.denominator, trait.depth)


def roll_odds(plan: RollPlan) -> Odds:
    """The odds of a planned trait roll: failure, success and each number of raises."""
    totals = total_distribution(plan)
    outcomes: dict[str, Fraction] = {"failure": Fraction(0), "success": Fraction(0)}
    for total, p in totals.outcomes.items():
        name = outcome_name(int(total), plan.difficulty)
        outcomes[name] = outcomes.get(name, Fraction(0)) + p
    return Odds(outcomes, totals.truncated, totals, labels={n: _label(n) for n in outcomes})


def _label(name: str) -> Text:
    """What people read for an outcome name, in their language."""
    if name == "failure":
        return ODDS_FAILURE()
    if name == "success":
        return ODDS_SUCCESS()
    return ODDS_RAISES(count=int(name.split()[0]))


def trait_odds(context: ActionContext) -> Odds:
    """WD-3: the ``trait`` action's odds."""
    return roll_odds(plan_trait(context)[1])


def attack_odds(context: ActionContext) -> Odds:
    """WD-6: the ``attack`` action's odds (a hit is a success)."""
    return roll_odds(plan_attack(context)[2])


_ODDS: dict[str, Callable[[ActionContext], Odds]] = {"trait": trait_odds, "attack": attack_odds}


def odds(context: ActionContext) -> Odds | None:
    """The odds of ``context``'s action; None for an action not computed."""
    compute = _ODDS.get(context.action)
    return compute(context) if compute is not None else None
