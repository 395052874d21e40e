"""The exact odds of a trait test (WD-3), an attack (WD-6) and a damage roll (WD-7).

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

Damage follows the resolver's plan too (:func:`.harm.plan_damage`: the weapon's
dice, the Strength die of a melee hit, the target's Toughness and Shaken, the
wounds setting) and its own verdict (:func:`.harm.damage_result`) for every total
that matters. Every total at or above the cap ``Toughness + 4`` (with the
``per_raise`` setting ``Toughness + 16``: four wounds, past any track) has the
same effect, so each die's law is computed exactly up to that cap and the rest
lumped there (:func:`capped_die`): no explosion is cut off, ``truncated`` is 0.
Outcomes, disjoint, in this order, those that can happen: ``none`` (below
Toughness), ``shaken``, ``1 wound``, ``2 wounds``, ``3 wounds`` (the target still
standing), ``incapacitated`` (the wound leaves the target incapacitated, WD-8: an
NPC's first, a pc's past three; also any wound to a target already down).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from rollbridge.contract import ActionContext, Distribution, Odds, distribution
from rollbridge.text import Text

from .checks import RollPlan, plan_attack, plan_trait
from .harm import DamagePlan, damage_result, plan_damage
from .messages import (
    ODDS_FAILURE,
    ODDS_INCAPACITATED,
    ODDS_NO_EFFECT,
    ODDS_OUT,
    ODDS_RAISES,
    ODDS_SHAKEN,
    ODDS_SUCCESS,
    ODDS_WOUNDS,
)
from .rolling import WILD_FACES, formula, raises
from .state import PC_MAX_WOUNDS

__all__ = [
    "attack_odds",
    "damage_odds",
    "odds",
    "outcome_name",
    "roll_odds",
    "total_distribution",
    "trait_odds",
]


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


# -- damage (WD-7) ---------------------------------------------------------------

#: A damage total this far above Toughness has every effect a larger one has:
#: one wound, or (per raise) four wounds, past any wound track (WD-7, WD-8).
_ONE_WOUND_CAP = 4
_PER_RAISE_CAP = 4 * (PC_MAX_WOUNDS + 1)


def capped_die(faces: int, cap: int) -> tuple[dict[int, int], int]:
    """The exact law of ``min(X, cap)`` for one acing die ``X`` (WD-2): weights over
    a denominator. A total ``faces·k + r`` (``1 ≤ r < faces``) needs ``k`` aces then
    ``r``, probability ``faces^-(k+1)``; whatever is left reaches ``cap`` or more."""
    if cap <= 1:
        return {cap: 1}, 1
    levels = (cap - 1) // faces + 1  # rolls enough to reach any total below cap
    denominator = faces**levels
    weights: dict[int, int] = {}
    for total in range(1, cap):
        aces, face = divmod(total, faces)
        if face:
            weights[total] = faces ** (levels - aces - 1)
    weights[cap] = denominator - sum(weights.values())
    return weights, denominator


def capped_sum(dice: list[int], cap: int) -> tuple[dict[int, int], int]:
    """The exact law of ``min(X₁ + … + Xₙ, cap)`` for acing dice of ``dice`` faces."""
    law, denominator = {0: 1}, 1
    for faces in dice:
        die, under = capped_die(faces, cap)
        out: dict[int, int] = {}
        for a, wa in law.items():
            for b, wb in die.items():
                key = min(a + b, cap)
                out[key] = out.get(key, 0) + wa * wb
        law, denominator = out, denominator * under
    return law, denominator


def damage_name(effect: dict[str, object], state: dict[str, object]) -> str:
    """The outcome a damage effect and the target's new state fall in."""
    wounds = int(effect["wounds"])  # type: ignore[call-overload]
    if wounds:
        if state["incapacitated"]:
            return "incapacitated"
        return f"{wounds} wound" if wounds == 1 else f"{wounds} wounds"
    return "none" if effect["result"] == "none" else "shaken"


def _damage_order(name: str) -> int:
    if name == "none":
        return 0
    if name == "shaken":
        return 1
    if name == "incapacitated":
        return 99
    return 1 + int(name.split()[0])


def _damage_label(name: str, pc: bool) -> Text:
    if name == "none":
        return ODDS_NO_EFFECT()
    if name == "shaken":
        return ODDS_SHAKEN()
    if name == "incapacitated":
        return ODDS_INCAPACITATED() if pc else ODDS_OUT()
    return ODDS_WOUNDS(count=int(name.split()[0]))


def plan_damage_odds(plan: DamagePlan) -> Odds:
    """The odds of a planned damage roll: each effect's exact probability."""
    cap = plan.toughness + (_PER_RAISE_CAP if plan.per_raise else _ONE_WOUND_CAP)
    constant = plan.constant
    # a constant at or past the cap: every roll has the cap's effect (at least 1 rolled)
    weights, denominator = capped_sum(plan.dice, max(1, cap - constant))
    outcomes: dict[str, Fraction] = {}
    for dice_total, weight in weights.items():
        if not weight:
            continue
        name = damage_name(*damage_result(plan, dice_total + constant))
        outcomes[name] = outcomes.get(name, Fraction(0)) + Fraction(weight, denominator)
    ordered = {name: outcomes[name] for name in sorted(outcomes, key=_damage_order)}
    return Odds(ordered, labels={n: _damage_label(n, plan.pc) for n in ordered})


def damage_odds(context: ActionContext) -> Odds:
    """WD-7: the ``damage`` action's odds: no effect, Shaken, wounds, incapacitated."""
    return plan_damage_odds(plan_damage(context))


_ODDS: dict[str, Callable[[ActionContext], Odds]] = {
    "trait": trait_odds,
    "attack": attack_odds,
    "damage": damage_odds,
}


def odds(context: ActionContext) -> Odds | None:
    """The odds of ``context``'s action; None for an action not computed."""
    compute = _ODDS.get(context.action)
    return compute(context) if compute is not None else None
