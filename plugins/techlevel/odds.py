"""The exact odds of a ``hit`` (TL-1 to TL-8, TL-10): the boxes each layer takes.

A hit strikes one layer (TL-3, TL-5: nothing passes inward), so its outcome is
short: which layer takes how many boxes. The odds follow the resolver's own plan
(:func:`.damage.plan_hit`: the layer struck, its TL factor, immunity, the section,
the GSK carry setting) and its own strike (:func:`.damage.strike`, on a scratch
copy of the layer) for every number of boxes that matters; no die is drawn. The
roll's law is :func:`rollbridge.odds.distribution` of the weapon's expression at
the default explosion depth (``1d6x`` explodes; what goes past the depth is
``truncated``), each total made a roll as the resolver does (rounded down, never
below 0: :func:`.weapon.roll_value`), then boxes (TL-4, TL-6). Boxes past what
the struck layers can hold are lost alike (TL-5), so they are counted once.

Outcome names, disjoint, in increasing order of boxes: ``<layer> <n>`` — the
layer struck takes ``n`` boxes (``armour 3``, ``vehicle 5`` on the planned
section, ``body 4``; ``armour 0`` is a hit that crosses nothing, immune or
divided away); a lethal hit on the body that turns shock boxes lethal (TL-7)
reads ``body 4+2 lethal``; mental damage (TL-8) ``mind 6``, or with its excess
carried into KSK ``mind 10, body 3``. A hit given its ``roll`` draws no dice: its
odds are that one outcome, certain.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from rollbridge.contract import ActionContext, Distribution, Odds, distribution
from rollbridge.text import Text

from . import messages as m
from .body import GSK, KSK
from .damage import HitPlan, plan_hit, strike
from .layers import item_on, slot_of
from .weapon import parse_dice, roll_value

__all__ = ["hit_odds", "roll_law"]


def roll_law(formula: str, given: int | None) -> tuple[dict[int, int], int, Distribution | None]:
    """The law of the damage roll (TL-1): weights of each roll over a denominator,
    and the formula's distribution (None for a ``given`` roll). The expression is
    checked as the resolver checks it, also when the roll is given."""
    parsed = parse_dice(formula)
    if given is not None:
        return {given: 1}, 1, None
    totals = distribution(str(parsed))  # by text: computed once per expression
    weights: dict[int, int] = {}
    for total, weight in totals.weights.items():
        roll = roll_value(total)
        weights[roll] = weights.get(roll, 0) + weight
    return weights, totals.denominator, totals


def _capacity(plan: HitPlan, state: Mapping[str, Any]) -> int:
    """Boxes past this many are lost on the planned layer whatever it holds (TL-5,
    TL-7, TL-8, TL-10): counting them once is exact."""
    if plan.layer == "mind":
        return GSK + KSK
    if plan.layer == "body":
        return KSK
    if plan.layer == "vehicle":
        return max(s["boxes"] for s in state["vehicle"]["sections"])
    return int(item_on(state, plan.layer)["boxes"])


def _scratch(plan: HitPlan, state: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of the part of ``state`` the planned strike changes."""
    if plan.layer in ("mind", "body"):
        return {"gsk": state["gsk"], "ksk": dict(state["ksk"])}
    vehicle = state.get("vehicle")
    if plan.layer == "vehicle":
        return {"vehicle": {**vehicle, "sections": [dict(s) for s in vehicle["sections"]]}}
    on_vehicle, kind = slot_of(plan.layer)
    item = dict(item_on(state, plan.layer))
    return {"vehicle": {kind: item}} if on_vehicle else {kind: item}


def _body_name(crossed: int, converted: int) -> str:
    return f"body {crossed}" + (f"+{converted} lethal" if converted else "")


def _outcome(plan: HitPlan, state: Mapping[str, Any], owner: str, boxes: int) -> tuple[str, Text]:
    """The name and label of the planned layer taking ``boxes`` (the resolver's strike)."""
    outcome: dict[str, Any] = {}
    crossed, _, _ = strike(plan, _scratch(plan, state), boxes, owner, outcome, [])
    layer = m.LAYER_TITLE[plan.layer]
    if plan.layer == "mind":
        label = m.ODDS_BOXES(layer=layer, count=crossed)
        body = outcome["mind"]["body"]
        if body is None or not (body["crossed"] or body["converted"]):
            return f"mind {crossed}", label
        name = f"mind {crossed}, " + _body_name(body["crossed"], body["converted"])
        return name, m.ODDS_AND(first=label, second=_body_label(body, plan))
    if plan.layer == "body":
        body = {"crossed": crossed, "converted": outcome["converted"]}
        return _body_name(crossed, outcome["converted"]), _body_label(body, plan)
    if plan.layer == "vehicle":
        layer = m.ODDS_SECTION(layer=layer, section=outcome["section"])
    said = m.ODDS_DESTROYED if outcome["destroyed"] else m.ODDS_BOXES
    return f"{plan.layer} {crossed}", said(layer=layer, count=crossed)


def _body_label(body: Mapping[str, int], plan: HitPlan) -> Text:
    layer = m.LAYER_TITLE["body"]
    if plan.damage_type == "shock":
        return m.ODDS_SHOCK_BOXES(layer=layer, count=body["crossed"])
    label = m.ODDS_BOXES(layer=layer, count=body["crossed"])
    if body["converted"]:
        return m.ODDS_CONVERTED(boxes=label, count=body["converted"])
    return label


def hit_odds(ctx: ActionContext) -> Odds:
    """TL-1 to TL-8, TL-10: the ``hit`` action's odds, refused as the resolver refuses
    (``ctx``'s target state loaded as :meth:`TechLevel.resolve` loads it)."""
    target = ctx.targets[0]
    state: dict[str, Any] = target.state  # type: ignore[assignment]
    plan = plan_hit(ctx, target, state)
    weights, denominator, totals = roll_law(plan.formula, ctx.params.get("roll"))
    cap = _capacity(plan, state)
    by_boxes: dict[int, int] = {}
    for roll, weight in weights.items():
        boxes = min(plan.boxes(roll), cap)
        by_boxes[boxes] = by_boxes.get(boxes, 0) + weight
    named: dict[str, int] = {}
    labels: dict[str, Text] = {}
    for boxes in sorted(by_boxes):
        name, label = _outcome(plan, state, target.id, boxes)
        named[name] = named.get(name, 0) + by_boxes[boxes]
        labels[name] = label
    outcomes = {name: Fraction(weight, denominator) for name, weight in named.items()}
    truncated = Fraction(0) if totals is None else totals.truncated
    return Odds(outcomes, truncated, totals, labels=labels)
