"""TL-9 and TL-10: what is worn and mounted, changed by actions.

``don``, ``doff``, ``enchant``, ``dispel``, ``destroy``, ``mount`` and
``dismount``. Every refusal raises :class:`RuleViolation` with a stable code
before anything is written, and works on a copy of the state, so a refused
action changes nothing.
"""

from __future__ import annotations

from typing import Any

from rollbridge.contract import ActionContext, Actor, Resolution
from rollbridge.exceptions import InvalidParams, RuleViolation

from .items import (
    ITEM_KINDS,
    check_armour_boxes,
    item_data,
    item_state,
    normalise_immune,
    settle_item,
    settle_vehicle,
    vehicle_data,
    vehicle_state,
)
from .layers import LAYER_LABELS, slot_of, thaw

__all__ = [
    "resolve_destroy",
    "resolve_dismount",
    "resolve_dispel",
    "resolve_doff",
    "resolve_don",
    "resolve_enchant",
    "resolve_mount",
]


def invalid(path: str, problem: str) -> InvalidParams:
    return InvalidParams(f"{path}: {problem}", details={"field": path})


def _label(layer: str) -> str:
    return LAYER_LABELS[layer].lower()


def _holder(state: dict[str, Any], layer: str, who: Actor) -> dict[str, Any]:
    """The dict that holds a wearable layer's item: the state or the mounted vehicle."""
    on_vehicle, _ = slot_of(layer)
    if not on_vehicle:
        return state
    vehicle = state.get("vehicle")
    if vehicle is None:
        raise RuleViolation(
            f"{who.name} is not mounted, so there is no {_label(layer)} (TL-2)",
            code="not_mounted",
            details={"layer": layer},
        )
    return vehicle


def _refuse_magical(item: dict[str, Any], layer: str, doing: str) -> None:
    """TL-9: an intact magical item stays until destroyed or dispelled."""
    if item["magical"] and not item["destroyed"]:
        raise RuleViolation(
            f"cannot {doing}: {item['name']!r} on the {_label(layer)} is magical and stays "
            f"until it is destroyed or dispelled (TL-9)",
            code="magical_armour_present",
            details={"layer": layer, "item": item["name"]},
        )


def _refuse_occupied(item: dict[str, Any], layer: str, new_name: str) -> None:
    """TL-9: one item per layer; no stacking, no swapping for the better."""
    wreck = " (destroyed, but still worn)" if item["destroyed"] else ""
    raise RuleViolation(
        f"cannot put on {new_name!r}: the {_label(layer)} already holds {item['name']!r}"
        f"{wreck}; items do not stack or replace each other, take it off first (TL-9)",
        code="layer_occupied",
        details={"layer": layer, "item": item["name"]},
    )


def _require_item(state: dict[str, Any], layer: str, who: Actor) -> dict[str, Any]:
    item = _holder(state, layer, who).get(slot_of(layer)[1])
    if item is None:
        raise RuleViolation(
            f"{who.name} wears nothing on the {_label(layer)}",
            code="layer_empty",
            details={"layer": layer},
        )
    return item


def _done(
    narration: str, who: Actor, state: dict[str, Any], steps: list[str], **outcome: Any
) -> Resolution:
    return Resolution(narration=narration, outcome=outcome, states={who.id: state}, steps=steps)


# -- don / doff ------------------------------------------------------------------


def resolve_don(ctx: ActionContext) -> Resolution:
    who = ctx.actor
    assert who is not None
    params = ctx.params
    state = thaw(who.state)
    by_name, data = params.get("name"), params.get("item")
    if (by_name is None) == (data is None):
        raise invalid("params", "give exactly one of 'item' (the item's data) or 'name'")
    source = "params"
    if by_name is not None:
        carried = state["carried"]
        index = next((i for i, it in enumerate(carried) if it["name"] == by_name), None)
        if index is None:
            names = ", ".join(repr(it["name"]) for it in carried) or "nothing"
            raise RuleViolation(
                f"{who.name} carries no item named {by_name!r} (carried: {names})",
                code="unknown_item",
                details={"name": by_name},
            )
        item = carried[index]
        source = "carried"
    else:
        item = item_state(data, "params.item", invalid)
    on_vehicle = params["on"] == "vehicle"
    layer = f"vehicle_{item['kind']}" if on_vehicle else item["kind"]
    holder = _holder(state, layer, who)
    current = holder.get(item["kind"])
    if current is not None:
        _refuse_magical(current, layer, f"put on {item['name']!r}")
        _refuse_occupied(current, layer, item["name"])
    if source == "carried":
        del state["carried"][index]
    holder[item["kind"]] = item
    magic = " (magical)" if item["magical"] else ""
    steps = [
        f"the {_label(layer)} was empty: {item['name']}{magic} is worn there, "
        f"{item['crossed']} of {item['boxes']} boxes crossed, TL{item['tl']} (TL-9)"
    ]
    return _done(
        f"{who.name} puts on {item['name']} ({_label(layer)})",
        who,
        state,
        steps,
        layer=layer,
        item=item_data(item),
        source=source,
    )


def resolve_doff(ctx: ActionContext) -> Resolution:
    who = ctx.actor
    assert who is not None
    layer = ctx.params["layer"]
    state = thaw(who.state)
    item = _require_item(state, layer, who)
    _refuse_magical(item, layer, f"take off {item['name']!r}")
    _holder(state, layer, who)[slot_of(layer)[1]] = None
    drop = bool(ctx.params.get("drop", False))
    if not drop:
        state["carried"].append(item)
    where = "dropped" if drop else "carried"
    steps = [f"{item['name']} taken off the {_label(layer)} and {where}"]
    return _done(
        f"{who.name} takes off {item['name']} ({_label(layer)})",
        who,
        state,
        steps,
        layer=layer,
        item=item_data(item),
        dropped=drop,
    )


# -- magic -------------------------------------------------------------------------


def resolve_enchant(ctx: ActionContext) -> Resolution:
    target = ctx.targets[0]
    params = ctx.params
    layer, mode, spell = params["layer"], params["mode"], params["spell"]
    boxes = params["boxes"]
    state = thaw(target.state)
    holder = _holder(state, layer, target)
    _, kind = slot_of(layer)
    check_armour_boxes(kind, boxes, "params.boxes", invalid)
    current = holder.get(kind)
    caster = ctx.actor.name if ctx.actor is not None else "A spell"
    if mode == "cast":
        if current is not None:
            _refuse_magical(current, layer, f"cast {spell!r}")
            raise RuleViolation(
                f"cannot cast {spell!r}: no magical armour may be cast onto the "
                f"{_label(layer)} while {current['name']!r} is worn there; improve it with "
                f"the same magic (mode 'improve') or take it off first (TL-9)",
                code="cast_onto_armour",
                details={"layer": layer, "item": current["name"]},
            )
        if params.get("tl") is None:
            raise invalid("params.tl", "casting a magical armour needs the spell's TL")
        item = item_state(
            {
                "name": spell,
                "kind": kind,
                "boxes": boxes,
                "tl": params["tl"],
                "magical": True,
                "spell": spell,
                "immune": params.get("immune", []),
            },
            "params",
            invalid,
        )
        holder[kind] = item
        steps = [
            f"the {_label(layer)} was empty: {spell} is cast there, {boxes} boxes, "
            f"TL{item['tl']}, magical (TL-9)"
        ]
        narration = f"{caster} casts {spell} on {target.name} ({_label(layer)})"
        return _done(narration, target, state, steps, layer=layer, mode=mode, item=item_data(item))
    if current is None:
        raise RuleViolation(
            f"nothing to improve: {target.name} wears nothing on the {_label(layer)}",
            code="layer_empty",
            details={"layer": layer},
        )
    _refuse_magical(current, layer, f"improve {current['name']!r} with {spell!r}")
    if current["destroyed"]:
        raise RuleViolation(
            f"cannot improve {current['name']!r}: it is destroyed",
            code="item_destroyed",
            details={"layer": layer, "item": current["name"]},
        )
    before = f"{current['boxes']} boxes TL{current['tl']}"
    current["base"] = {
        "boxes": current["boxes"],
        "tl": current["tl"],
        "immune": list(current["immune"]),
    }
    current["boxes"] = boxes
    if params.get("tl") is not None:
        current["tl"] = params["tl"]
    current["immune"] = normalise_immune([*current["immune"], *params.get("immune", [])])
    current["magical"] = True
    current["spell"] = spell
    settle_item(current)
    steps = [
        f"{current['name']} improved by {spell}: {before} → {current['boxes']} boxes "
        f"TL{current['tl']}, {current['crossed']} crossed (TL-9: it takes the spell's boxes)"
    ]
    narration = f"{caster} improves {target.name}'s {current['name']} with {spell}"
    return _done(narration, target, state, steps, layer=layer, mode=mode, item=item_data(current))


def resolve_dispel(ctx: ActionContext) -> Resolution:
    target = ctx.targets[0]
    layer = ctx.params["layer"]
    state = thaw(target.state)
    item = _require_item(state, layer, target)
    if not item["magical"]:
        raise RuleViolation(
            f"{item['name']!r} on the {_label(layer)} is not magical; nothing to dispel",
            code="not_magical",
            details={"layer": layer, "item": item["name"]},
        )
    holder = _holder(state, layer, target)
    kind = slot_of(layer)[1]
    spell = item["spell"] or item["name"]
    base = item.get("base")
    if base:
        item.update(
            boxes=base["boxes"], tl=base["tl"], immune=list(base.get("immune", [])),
            magical=False, spell=None, base=None,
        )  # fmt: skip
        settle_item(item)
        steps = [
            f"{spell} dispelled: {item['name']} is back to {item['boxes']} boxes "
            f"TL{item['tl']}, {item['crossed']} crossed"
        ]
        result = "reverted"
    else:
        holder[kind] = None
        steps = [f"{item['name']} dispelled: the {_label(layer)} is empty"]
        result = "removed"
    by = ctx.actor.name if ctx.actor is not None else "A spell"
    return _done(
        f"{by} dispels {target.name}'s {spell} ({_label(layer)})"
        if result == "removed"
        else f"{by} dispels the magic on {target.name}'s {item['name']}",
        target,
        state,
        steps,
        layer=layer,
        result=result,
        spell=spell,
        item=item_data(item) if result == "reverted" else None,
    )


def resolve_destroy(ctx: ActionContext) -> Resolution:
    target = ctx.targets[0]
    layer, section_name = ctx.params["layer"], ctx.params.get("section")
    state = thaw(target.state)
    if layer == "vehicle":
        vehicle = state.get("vehicle")
        if vehicle is None:
            raise RuleViolation(
                f"{target.name} is not mounted", code="not_mounted", details={"layer": layer}
            )
        sections = vehicle["sections"]
        if section_name is not None:
            sections = [s for s in sections if s["name"] == section_name]
            if not sections:
                raise invalid("params.section", f"{vehicle['name']!r} has no such section")
        for section in sections:
            section["crossed"] = section["boxes"]
        settle_vehicle(vehicle)
        what = vehicle["name"] + (f" ({section_name})" if section_name else "")
        steps = [f"{what}: every box crossed (destroyed: {vehicle['destroyed']})"]
        name = vehicle["name"]
    else:
        if section_name is not None:
            raise invalid("params.section", "only the vehicle layer has sections")
        item = _require_item(state, layer, target)
        item["crossed"] = item["boxes"]
        settle_item(item)
        steps = [f"{item['name']}: every box crossed; it stays on the layer until taken off"]
        name = item["name"]
        what = name
    return _done(
        f"{target.name}'s {what} is destroyed",
        target,
        state,
        steps,
        layer=layer,
        name=name,
        section=section_name,
    )


# -- vehicles and mounts -------------------------------------------------------------


def resolve_mount(ctx: ActionContext) -> Resolution:
    who = ctx.actor
    assert who is not None
    params = ctx.params
    state = thaw(who.state)
    by_name, data = params.get("name"), params.get("vehicle")
    if (by_name is None) == (data is None):
        raise invalid("params", "give exactly one of 'vehicle' (its data) or 'name'")
    if state.get("vehicle") is not None:
        raise RuleViolation(
            f"{who.name} is already on {state['vehicle']['name']!r}; dismount first",
            code="already_mounted",
            details={"vehicle": state["vehicle"]["name"]},
        )
    if by_name is not None:
        stable = state["stable"]
        index = next((i for i, v in enumerate(stable) if v["name"] == by_name), None)
        if index is None:
            names = ", ".join(repr(v["name"]) for v in stable) or "none"
            raise RuleViolation(
                f"{who.name} has no vehicle or mount named {by_name!r} (has: {names})",
                code="unknown_vehicle",
                details={"name": by_name},
            )
        vehicle = stable.pop(index)
        source = "stable"
    else:
        vehicle = vehicle_state(data, "params.vehicle", invalid)
        source = "params"
    state["vehicle"] = vehicle
    crossed = sum(s["crossed"] for s in vehicle["sections"])
    size = sum(s["boxes"] for s in vehicle["sections"])
    worn = [vehicle[k]["name"] for k in ITEM_KINDS if vehicle[k] is not None]
    steps = [
        f"{vehicle['name']} ({vehicle['kind']}, TL{vehicle['tl']}): "
        f"{len(vehicle['sections'])} section(s), {crossed} of {size} boxes crossed"
        + (f", wearing {', '.join(worn)}" if worn else ""),
        "its layers now lie above the rider's own (TL-2)",
    ]
    verb = "mounts" if vehicle["kind"] == "mount" else "boards"
    return _done(
        f"{who.name} {verb} {vehicle['name']}",
        who,
        state,
        steps,
        vehicle=vehicle_data(vehicle),
        source=source,
    )


def resolve_dismount(ctx: ActionContext) -> Resolution:
    who = ctx.actor
    assert who is not None
    state = thaw(who.state)
    vehicle = state.get("vehicle")
    if vehicle is None:
        raise RuleViolation(f"{who.name} is not mounted", code="not_mounted")
    state["vehicle"] = None
    leave = bool(ctx.params.get("leave", False))
    if not leave:
        state["stable"] = [v for v in state["stable"] if v["name"] != vehicle["name"]]
        state["stable"].append(vehicle)
    damage = {
        "sections": [
            {"name": s["name"], "crossed": s["crossed"], "boxes": s["boxes"],
             "destroyed": s["destroyed"]}
            for s in vehicle["sections"]
        ],
        "destroyed": vehicle["destroyed"],
        "shield": item_data(vehicle["shield"]) if vehicle["shield"] else None,
        "armour": item_data(vehicle["armour"]) if vehicle["armour"] else None,
    }  # fmt: skip
    crossed = sum(s["crossed"] for s in vehicle["sections"])
    steps = [
        f"{vehicle['name']} leaves the stack with {crossed} boxes crossed"
        + (" (destroyed)" if vehicle["destroyed"] else "")
        + ("; left behind" if leave else "; kept, mount it again by name")
    ]
    return _done(
        f"{who.name} gets off {vehicle['name']}",
        who,
        state,
        steps,
        vehicle=vehicle_data(vehicle),
        damage=damage,
        left=leave,
    )
