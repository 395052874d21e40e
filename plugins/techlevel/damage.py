"""The ``hit`` action: TL-1 to TL-8 and TL-10.

A hit rolls (or is given) the weapon's damage, finds the outermost intact
layer (TL-3), stops at an immune layer (TL-6), turns the roll into boxes
through the TL table (TL-4) and crosses them on that layer only; what the
layer cannot take is lost (TL-5). A vehicle takes the hit on a named
section or its first intact one (TL-10). On the body, ``shock`` damage
crosses shock boxes (TL-7); ``mental`` damage skips the physical layers and
strikes the GSK at TL 1 (TL-8). The target's details — names, TLs, the TL
factor, immunities, the boxes lost — are marked private where they are put in
the outcome and the texts (:mod:`.details`, :mod:`.hit_texts`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rollbridge.contract import ActionContext, Actor, Resolution
from rollbridge.dice import DiceSource
from rollbridge.exceptions import InvalidParams
from rollbridge.text import Text

from . import messages as m
from .body import GSK, KSK, cross_lethal, cross_mental, cross_shock, status_of
from .details import detail, detail_or
from .hit_texts import MENTAL_WHY, hidden_tl_step, narration, tl_step, why_struck
from .items import settle_item, settle_vehicle
from .layers import first_intact, item_on, own_state
from .tl import TlFactor, tl_factor
from .weapon import roll_damage

__all__ = ["MENTAL", "SHOCK", "HitPlan", "no_section", "plan_hit", "resolve_hit", "strike"]

SHOCK = "shock"
MENTAL = "mental"


def no_section(vehicle: dict[str, Any], wanted: str, owner: str) -> InvalidParams:
    """TL-10: ``invalid_params`` for a section ``owner``'s vehicle does not have. The
    sections are public (``player_view``), the vehicle's name is ``owner``'s detail:
    players who may not see it read the vehicle's kind instead."""
    names = ", ".join(s["name"] for s in vehicle["sections"])
    said = {"section": repr(wanted), "names": names}
    problem = detail_or(
        m.NO_SECTION_OF(vehicle=repr(vehicle["name"]), **said),
        owner,
        m.NO_SECTION_OF_PUBLIC(kind=m.KIND[vehicle["kind"]], **said),
    )
    return InvalidParams(
        m.INVALID(path="params.section", problem=problem), details={"field": "params.section"}
    )


def _pick_section(
    vehicle: dict[str, Any], wanted: str | None, owner: str
) -> tuple[dict[str, Any], Text]:
    """TL-10: the named section, or else the first intact one (and which it was)."""
    if wanted is not None:
        for section in vehicle["sections"]:
            if section["name"] == wanted:
                return section, m.NAMED_BY_HIT
        raise no_section(vehicle, wanted, owner)  # checked before any change; kept for safety
    for section in vehicle["sections"]:
        if not section["destroyed"]:
            return section, m.FIRST_INTACT
    raise AssertionError("an intact vehicle has an intact section")  # pragma: no cover


def _cross_object(thing: dict[str, Any], boxes: int) -> dict[str, int]:
    free = thing["boxes"] - thing["crossed"]
    crossed = min(boxes, free)
    thing["crossed"] += crossed
    return {"crossed": crossed, "converted": 0, "lost": boxes - crossed}


#: What striking a layer did: boxes newly crossed, boxes lost, and the text of
#: the GSK excess carried into KSK (None but for such a mental hit).
Struck = tuple[int, int, Any]


def _strike_mind(
    state: dict[str, Any], boxes: int, carry: bool, owner: str, outcome: dict, steps: list
) -> Struck:
    """TL-8: cross GSK; the excess carries into KSK as lethal (or is lost)."""
    result = cross_mental(state, boxes, carry)
    crossed, lost, excess = result["crossed"], result["lost"], result["excess"]
    mind: dict[str, Any] = {
        "crossed": crossed,
        "excess": detail(excess, owner),
        "body": None,
        "lost": detail(lost, owner),
    }
    outcome["mind"] = mind
    steps.append(m.GSK_STEP(crossed=crossed, gsk=state["gsk"], of=GSK))
    body = result["body"]
    if body is None:
        if excess:
            lost_said = m.GSK_EXCESS_LOST(excess=excess)
            steps.append(detail_or(lost_said, owner, m.GSK_EXCESS_LOST_PUBLIC))
        return crossed, lost, None
    mind["body"] = {
        "crossed": body["crossed"],
        "converted": body["converted"],
        "lost": detail(body["lost"], owner),
    }
    outcome["converted"] = body["converted"]
    said = {"crossed": body["crossed"], "converted": body["converted"]}
    carried = m.GSK_CARRIED(excess=excess, lost=body["lost"], **said)
    steps.append(detail_or(carried, owner, m.GSK_CARRIED_PUBLIC(**said)))
    into = detail_or(m.EXCESS_INTO_KSK(excess=excess), owner, m.EXCESS_INTO_KSK_PUBLIC)
    return crossed, body["lost"], into


def _strike_body(
    state: dict[str, Any], boxes: int, shock: bool, owner: str, outcome: dict, steps: list
) -> Struck:
    """TL-7: cross KSK as shock (free boxes only) or as lethal damage."""
    ksk = state["ksk"]
    result = (cross_shock if shock else cross_lethal)(ksk, boxes)
    lost_said = detail_or(m.AND_LOST(lost=result["lost"]), owner, "")
    if shock:
        steps.append(m.SHOCK_STEP(crossed=result["crossed"], lost=lost_said))
    else:
        said = {"crossed": result["crossed"], "converted": result["converted"]}
        steps.append(m.LETHAL_STEP(lost=lost_said, **said))
    outcome["converted"] = result["converted"]
    steps.append(m.KSK_STEP(lethal=ksk["lethal"], shock=ksk["shock"], of=KSK))
    return result["crossed"], result["lost"], None


def _strike_vehicle(
    state: dict[str, Any], boxes: int, wanted: str | None, owner: str, outcome: dict, steps: list
) -> Struck:
    """TL-10: cross the boxes of one section; a destroyed one takes nothing."""
    vehicle = state["vehicle"]
    section, reason = _pick_section(vehicle, wanted, owner)
    outcome["section"] = section["name"]
    quoted = repr(section["name"])
    if section["destroyed"]:
        effect = detail_or(m.BOXES_LOST(lost=boxes), owner, m.NOTHING_CROSSED)
        steps.append(m.SECTION_GONE(section=quoted, reason=reason, effect=effect))
        outcome["destroyed"] = False  # this hit destroyed nothing (the odds read it too)
        return 0, boxes, None
    result = _cross_object(section, boxes)
    crossed, lost = result["crossed"], result["lost"]
    settle_vehicle(vehicle)
    outcome["destroyed"] = section["destroyed"]
    outcome["vehicle_destroyed"] = vehicle["destroyed"]
    steps.append(
        m.SECTION_STEP(
            section=quoted,
            reason=reason,
            crossed=crossed,
            now=section["crossed"],
            boxes=section["boxes"],
            lost=detail_or(m.THEN_LOST(lost=lost), owner, ""),
        )
    )
    return crossed, lost, None


def _strike_item(
    state: dict[str, Any], layer: str, boxes: int, owner: str, outcome: dict, steps: list
) -> Struck:
    """TL-5: cross the item's free boxes; the rest is lost, nothing passes inward."""
    item = item_on(state, layer)
    result = _cross_object(item, boxes)
    crossed, lost = result["crossed"], result["lost"]
    settle_item(item)
    outcome["destroyed"] = item["destroyed"]
    steps.append(
        m.ITEM_STEP(
            item=detail_or(item["name"], owner, m.LAYER_TITLE[layer]),
            crossed=crossed,
            now=item["crossed"],
            boxes=item["boxes"],
            excess=detail_or(m.LOST_NOTHING_PASSES(lost=lost), owner, m.NOTHING_PASSES),
        )
    )
    return crossed, lost, None


@dataclass(frozen=True)
class HitPlan:
    """What a hit is before any die (TL-1 to TL-8, TL-10): the weapon, the layer it
    strikes (TL-3; ``mind`` for mental damage, TL-8) with that layer's name, TL and
    immunities, why it is that layer, the TL factor (TL-4), whether the layer is
    immune (TL-6), the vehicle section asked for and whether GSK excess carries.

    :func:`resolve_hit` rolls and strikes from it, :mod:`.odds` counts from it.
    """

    weapon_tl: int
    damage_type: str
    formula: str
    wanted_section: str | None
    layer: str
    name: str | None
    layer_tl: int
    skipped: list[dict[str, Any]]
    why_step: Any
    why: Any
    factor: TlFactor
    immune: bool
    carry: bool

    def boxes(self, roll: int) -> int:
        """TL-4, TL-6: the boxes a damage ``roll`` crosses on the layer struck."""
        return 0 if self.immune else self.factor.apply(roll)


def _check_section(target: Actor, state: dict[str, Any], wanted_section: str | None) -> None:
    """TL-10: a named section exists on the vehicle ridden (refused before any change)."""
    if wanted_section is None:
        return
    vehicle = state.get("vehicle")
    if vehicle is None:
        raise InvalidParams(
            m.INVALID(path="params.section", problem=m.NOT_MOUNTED_NO_SECTION(actor=target.name)),
            details={"field": "params.section"},
        )
    if wanted_section not in [s["name"] for s in vehicle["sections"]]:
        raise no_section(vehicle, wanted_section, target.id)


def plan_hit(ctx: ActionContext, target: Actor, state: dict[str, Any]) -> HitPlan:
    """The :class:`HitPlan` of a ``hit`` on ``target`` whose (loaded) state is
    ``state``, refused as :func:`resolve_hit` refuses a section."""
    params = ctx.params
    sheet = target.sheet
    weapon_tl: int = params["tl"]
    damage_type = params["type"].strip().lower()
    wanted_section = params.get("section")
    _check_section(target, state, wanted_section)
    if damage_type == MENTAL:
        layer, name, layer_tl, immune_list = "mind", None, 1, sheet.get("immune", ())
        skipped: list[dict[str, Any]] = []
        why_step, why = MENTAL_WHY
    else:
        layer, skipped = first_intact(state)
        why_step, why = why_struck(layer, skipped)
        if layer == "body":
            name, layer_tl, immune_list = None, int(sheet["body_tl"]), sheet.get("immune", ())
        elif layer == "vehicle":
            vehicle = state["vehicle"]
            name, layer_tl, immune_list = vehicle["name"], vehicle["tl"], vehicle["immune"]
        else:
            item = item_on(state, layer)
            name, layer_tl, immune_list = item["name"], item["tl"], item["immune"]
    return HitPlan(
        weapon_tl=weapon_tl,
        damage_type=damage_type,
        formula=params["dice"].strip(),
        wanted_section=wanted_section,
        layer=layer,
        name=name,
        layer_tl=layer_tl,
        skipped=skipped,
        why_step=why_step,
        why=why,
        factor=tl_factor(weapon_tl, layer_tl),
        immune=damage_type in {str(x).strip().lower() for x in immune_list},
        carry=bool(ctx.settings.get("mental_excess_to_body", True)),
    )


def strike(
    plan: HitPlan, state: dict[str, Any], boxes: int, owner: str, outcome: dict, steps: list
) -> Struck:
    """Cross ``boxes`` on the planned layer of ``state`` (in place): TL-5, TL-7, TL-8,
    TL-10. The outcome and steps get what happened."""
    if plan.layer == "mind":
        return _strike_mind(state, boxes, plan.carry, owner, outcome, steps)
    if plan.layer == "body":
        return _strike_body(state, boxes, plan.damage_type == SHOCK, owner, outcome, steps)
    if plan.layer == "vehicle":
        return _strike_vehicle(state, boxes, plan.wanted_section, owner, outcome, steps)
    return _strike_item(state, plan.layer, boxes, owner, outcome, steps)


def _weapon_params(params: Any) -> dict[str, Any]:
    """The weapon's side of a hit (not the struck section, which is each target's)."""
    return {k: params[k] for k in ("weapon", "dice", "tl", "type") if k in params}


def resolve_hit(ctx: ActionContext, dice: DiceSource) -> Resolution:
    """TL-1 to TL-8 and TL-10: one hit on the target's outermost intact layer."""
    params = ctx.params
    target = ctx.targets[0]
    owner = target.id
    state = own_state(target)
    plan = plan_hit(ctx, target, state)
    weapon_tl, damage_type, formula = plan.weapon_tl, plan.damage_type, plan.formula

    rolled = roll_damage(formula, weapon_tl, dice, params.get("roll"))
    roll: int = rolled["roll"]
    status_before = status_of(state)
    steps: list[Any] = [rolled["step"]]
    outcome: dict[str, Any] = {
        "target": target.id,
        "attacker": ctx.actor.id if ctx.actor is not None else None,
        "weapon": {
            "name": params.get("weapon") or None,
            "dice": formula,
            "tl": weapon_tl,
            "type": damage_type,
        },
        "roll": roll,
        "rolled_by": rolled["rolled_by"],
        "section": None,
        "converted": 0,
        "destroyed": False,
        "vehicle_destroyed": False,
        "mind": None,
    }

    layer, name, layer_tl, skipped = plan.layer, plan.name, plan.layer_tl, plan.skipped
    why_step, why = plan.why_step, plan.why
    steps.append(why_step)
    outcome.update(
        {
            "layer": layer,
            "name": detail(name, owner),
            "why": why,
            "skipped": [
                {**s, "name": detail(s["name"], owner)} if "name" in s else s for s in skipped
            ],
            "layer_tl": detail(layer_tl, owner),
        }
    )

    factor, immune = plan.factor, plan.immune
    outcome["factor"] = detail(str(factor), owner)
    outcome["immune"] = detail(immune, owner)
    if immune:
        boxes = 0
        said: Text = m.IMMUNE_STEP(layer=m.LAYER[layer], type=damage_type)
    else:
        boxes = plan.boxes(roll)
        said = tl_step(factor, weapon_tl, layer_tl, roll, boxes)
    steps.append(detail_or(said, owner, hidden_tl_step(layer)))
    outcome["boxes"] = detail(boxes, owner)

    crossed, lost, excess = strike(plan, state, boxes, owner, outcome, steps)
    outcome["crossed"] = crossed
    outcome["lost"] = detail(lost, owner)
    outcome["status_before"] = status_before
    outcome["status"] = status_of(state)

    vehicle = state.get("vehicle")
    told = narration(
        ctx.actor.name if ctx.actor is not None else None,
        target.name,
        outcome,
        owner=owner,
        name=name,
        factor=factor,
        immune=immune,
        lost=lost,
        excess=excess,
        kind=vehicle["kind"] if vehicle is not None else None,
    )
    return Resolution(
        narration=told,
        outcome=outcome,
        dice=list(rolled["groups"]),
        states={target.id: state},
        steps=steps,
        # the same roll on other targets (TL-1: a given roll draws no dice)
        apply={"action": "hit", "params": {**_weapon_params(params), "roll": roll}},
    )
