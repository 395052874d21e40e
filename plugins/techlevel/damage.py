"""The ``hit`` action: TL-1 to TL-8 and TL-10.

A hit rolls (or is given) the weapon's damage, finds the outermost intact
layer (TL-3), stops at an immune layer (TL-6), turns the roll into boxes
through the TL table (TL-4) and crosses them on that layer only; what the
layer cannot take is lost (TL-5). A vehicle takes the hit on a named
section or its first intact one (TL-10). On the body, ``shock`` damage
crosses shock boxes (TL-7); ``mental`` damage skips the physical layers and
strikes the GSK at TL 1 (TL-8).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rollbridge.contract import ActionContext, Resolution
from rollbridge.dice import DiceSource
from rollbridge.exceptions import InvalidParams

from .body import KSK, cross_lethal, cross_mental, cross_shock, status_of
from .items import settle_item, settle_vehicle
from .layers import LAYER_LABELS, first_intact, item_on, thaw
from .tl import tl_factor
from .weapon import roll_damage

__all__ = ["MENTAL", "SHOCK", "hit_words", "resolve_hit"]

SHOCK = "shock"
MENTAL = "mental"


def _pick_section(vehicle: dict[str, Any], wanted: str | None) -> tuple[dict[str, Any], str]:
    """TL-10: the named section, or else the first intact one."""
    if wanted is not None:
        for section in vehicle["sections"]:
            if section["name"] == wanted:
                return section, "named by the hit"
        raise InvalidParams(  # checked before any change; kept here for safety
            f"params.section: {vehicle['name']!r} has no section {wanted!r}",
            details={"field": "params.section"},
        )
    for section in vehicle["sections"]:
        if not section["destroyed"]:
            return section, "first intact section"
    raise AssertionError("an intact vehicle has an intact section")  # pragma: no cover


def _why(layer: str, skipped: list[dict[str, str]]) -> str:
    passed = ", ".join(f"{LAYER_LABELS[s['layer']].lower()} {s['reason']}" for s in skipped)
    head = f"{LAYER_LABELS[layer].lower()} is the outermost layer present and intact"
    return f"{head} ({passed})" if passed else head


def _cross_object(thing: dict[str, Any], boxes: int) -> dict[str, int]:
    free = thing["boxes"] - thing["crossed"]
    crossed = min(boxes, free)
    thing["crossed"] += crossed
    return {"crossed": crossed, "converted": 0, "lost": boxes - crossed}


def hit_words(outcome: Mapping[str, Any], *, public: bool = False) -> str:
    """What a hit did, as the narration says it after the arrow: ``armour 'Plate',
    /4, 1 box crossed`` — or, ``public``, as players see it of an NPC:
    ``armour, 1 box crossed`` (no item name, TL factor, immunity or lost boxes)."""
    layer, name, crossed = outcome["layer"], outcome["name"], outcome["crossed"]
    where = LAYER_LABELS[layer].lower() + (f" {name!r}" if name and not public else "")
    if outcome["section"]:
        where += f" ({outcome['section']})"
    boxes = f"{crossed} box{'es' if crossed != 1 else ''} crossed"
    if public:
        tail = boxes
    elif outcome["immune"]:
        tail = f"immune to {outcome['weapon']['type']}, no effect"
    else:
        tail = f"{outcome['factor']}, {boxes}"
        if outcome["lost"]:
            tail += f", {outcome['lost']} lost"
    mind = outcome["mind"]
    if mind is not None and mind["body"] is not None:
        tail += ", excess into KSK" if public else f", {mind['excess']} excess into KSK"
    return f"{where}, {tail}"


def resolve_hit(ctx: ActionContext, dice: DiceSource) -> Resolution:
    params = ctx.params
    target = ctx.targets[0]
    sheet = target.sheet
    state = thaw(target.state)
    weapon_tl: int = params["tl"]
    damage_type = params["type"].strip().lower()
    formula = params["dice"].strip()
    wanted_section = params.get("section")
    if wanted_section is not None:
        vehicle = state.get("vehicle")
        if vehicle is None:
            raise InvalidParams(
                f"params.section: {target.name} is not mounted, so no section can be hit",
                details={"field": "params.section"},
            )
        if wanted_section not in [s["name"] for s in vehicle["sections"]]:
            names = ", ".join(s["name"] for s in vehicle["sections"])
            raise InvalidParams(
                f"params.section: {vehicle['name']!r} has no section {wanted_section!r} "
                f"(sections: {names})",
                details={"field": "params.section"},
            )

    rolled = roll_damage(formula, weapon_tl, dice, params.get("roll"))
    roll: int = rolled["roll"]
    status_before = status_of(state)
    steps = [rolled["step"]]
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

    if damage_type == MENTAL:
        layer, name, layer_tl, immune_list = "mind", None, 1, sheet.get("immune", ())
        skipped: list[dict[str, str]] = []
        why = "mental damage bypasses the physical layers and strikes the GSK at TL 1 (TL-8)"
    else:
        layer, skipped = first_intact(state)
        why = _why(layer, skipped) + " (TL-3)"
        if layer == "body":
            name, layer_tl, immune_list = None, int(sheet["body_tl"]), sheet.get("immune", ())
        elif layer == "vehicle":
            vehicle = state["vehicle"]
            name, layer_tl, immune_list = vehicle["name"], vehicle["tl"], vehicle["immune"]
        else:
            item = item_on(state, layer)
            name, layer_tl, immune_list = item["name"], item["tl"], item["immune"]
    steps.append(f"layer hit: {why}")
    outcome.update(
        {"layer": layer, "name": name, "why": why, "skipped": skipped, "layer_tl": layer_tl}
    )

    factor = tl_factor(weapon_tl, layer_tl)
    immune = damage_type in {str(x).strip().lower() for x in immune_list}
    outcome["factor"] = str(factor)
    outcome["immune"] = immune
    if immune:
        boxes = 0
        steps.append(f"{LAYER_LABELS[layer].lower()} is immune to {damage_type}: 0 boxes (TL-6)")
    else:
        boxes = factor.apply(roll)
        how = f"{roll} × {factor.n}" if factor.op == "×" else f"⌊{roll} / {factor.n}⌋"
        steps.append(
            f"weapon TL{weapon_tl} against TL{layer_tl}: {factor} → {how} = {boxes} boxes (TL-4)"
        )
    outcome["boxes"] = boxes

    if layer == "mind":
        carry = bool(ctx.settings.get("mental_excess_to_body", True))
        result = cross_mental(state, boxes, carry)
        outcome["mind"] = result
        crossed, lost = result["crossed"], result["lost"]
        steps.append(f"GSK: {crossed} crossed, now {state['gsk']} of 10")
        if result["body"] is not None:
            body = result["body"]
            lost = body["lost"]
            outcome["converted"] = body["converted"]
            steps.append(
                f"{result['excess']} GSK excess carried into KSK as lethal (TL-8): "
                f"{body['crossed']} crossed, {body['converted']} shock turned lethal, "
                f"{body['lost']} lost"
            )
        elif result["excess"]:
            steps.append(f"{result['excess']} GSK excess lost (table setting)")
    elif layer == "body":
        ksk = state["ksk"]
        if damage_type == SHOCK:
            result = cross_shock(ksk, boxes)
            steps.append(
                f"shock: {result['crossed']} KSK crossed as shock, {result['lost']} lost (TL-7)"
            )
        else:
            result = cross_lethal(ksk, boxes)
            steps.append(
                f"lethal: {result['crossed']} free KSK crossed, {result['converted']} shock "
                f"turned lethal, {result['lost']} lost (TL-7)"
            )
        crossed, lost = result["crossed"], result["lost"]
        outcome["converted"] = result["converted"]
        steps.append(f"KSK now {ksk['lethal']} lethal + {ksk['shock']} shock of {KSK}")
    elif layer == "vehicle":
        vehicle = state["vehicle"]
        section, reason = _pick_section(vehicle, wanted_section)
        outcome["section"] = section["name"]
        if section["destroyed"]:
            crossed, lost = 0, boxes
            steps.append(
                f"section {section['name']!r} ({reason}) is already destroyed: "
                f"{boxes} boxes lost (TL-10)"
            )
        else:
            result = _cross_object(section, boxes)
            crossed, lost = result["crossed"], result["lost"]
            settle_vehicle(vehicle)
            outcome["destroyed"] = section["destroyed"]
            outcome["vehicle_destroyed"] = vehicle["destroyed"]
            steps.append(
                f"section {section['name']!r} ({reason}): {crossed} crossed, now "
                f"{section['crossed']} of {section['boxes']}; {lost} lost (TL-5, TL-10)"
            )
    else:
        item = item_on(state, layer)
        result = _cross_object(item, boxes)
        crossed, lost = result["crossed"], result["lost"]
        settle_item(item)
        outcome["destroyed"] = item["destroyed"]
        steps.append(
            f"{item['name']}: {crossed} crossed, now {item['crossed']} of {item['boxes']}; "
            f"{lost} lost, nothing passes inward (TL-5)"
        )
    outcome["crossed"] = crossed
    outcome["lost"] = lost
    status = status_of(state)
    outcome["status_before"] = status_before
    outcome["status"] = status

    who = ctx.actor.name if ctx.actor is not None else "A hit"
    verb = "hits" if ctx.actor is not None else "strikes"
    tail = hit_words(outcome)
    if outcome["destroyed"]:
        tail += f"; {'section' if layer == 'vehicle' else LAYER_LABELS[layer].lower()} destroyed"
    if outcome["vehicle_destroyed"]:
        tail += f"; {state['vehicle']['kind']} destroyed"
    if status != status_before:
        tail += f"; {target.name} is {status}"
    narration = f"{who} {verb} {target.name}: {roll} on {formula} TL{weapon_tl} → {tail}"
    return Resolution(
        narration=narration,
        outcome=outcome,
        dice=list(rolled["groups"]),
        states={target.id: state},
        steps=steps,
    )
