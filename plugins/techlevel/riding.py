"""TL-2 and TL-10: riding a vehicle or mount — ``mount`` and ``dismount``.

The vehicle is part of its rider's state; mounting puts its layers above the
rider's own, dismounting keeps it (with its damage) in the rider's stable or
leaves it behind. A refusal raises before anything is written.
"""

from __future__ import annotations

from typing import Any

from rollbridge.contract import ActionContext, Resolution
from rollbridge.exceptions import RuleViolation

from . import messages as m
from .details import detail_or, item_details, vehicle_details
from .items import ITEM_KINDS, item_data, vehicle_data, vehicle_state
from .layers import own_state
from .wearing import gear_resolution, invalid

__all__ = ["resolve_dismount", "resolve_mount"]


def resolve_mount(ctx: ActionContext) -> Resolution:
    """TL-2, TL-10: ride a vehicle (given, or from the stable by name)."""
    who = ctx.actor
    assert who is not None
    params = ctx.params
    state = own_state(who)
    by_name, data = params.get("name"), params.get("vehicle")
    if (by_name is None) == (data is None):
        raise invalid("params", m.VEHICLE_OR_NAME)
    if state.get("vehicle") is not None:
        raise RuleViolation(
            m.ALREADY_MOUNTED(actor=who.name, vehicle=repr(state["vehicle"]["name"])),
            code="already_mounted",
            details={"vehicle": state["vehicle"]["name"]},
        )
    if by_name is not None:
        stable = state["stable"]
        index = next((i for i, v in enumerate(stable) if v["name"] == by_name), None)
        if index is None:
            names: Any = ", ".join(repr(v["name"]) for v in stable) or m.NONE
            raise RuleViolation(
                m.NO_VEHICLE_NAMED(actor=who.name, name=repr(by_name), names=names),
                code="unknown_vehicle",
                details={"name": by_name},
            )
        vehicle = stable.pop(index)
        source = "stable"
    else:
        vehicle = vehicle_state(data, "params.vehicle", invalid)
        source = "params"
    state["vehicle"] = vehicle
    owner, kind = who.id, m.KIND[vehicle["kind"]]
    crossed = sum(s["crossed"] for s in vehicle["sections"])
    size = sum(s["boxes"] for s in vehicle["sections"])
    worn = [k for k in ITEM_KINDS if vehicle[k] is not None]
    wearing: Any = ""
    if worn:
        wearing = detail_or(
            m.WEARING(items=[vehicle[k]["name"] for k in worn]),
            owner,
            m.WEARING_LAYERS(layers=[m.LAYER[k] for k in worn]),
        )
    named = m.VEHICLE_NAMED(name=vehicle["name"], kind=kind, tl=vehicle["tl"])
    steps = [
        m.MOUNTED(
            vehicle=detail_or(named, owner, m.A_KIND(kind=kind)),
            sections=len(vehicle["sections"]),
            crossed=crossed,
            boxes=size,
            wearing=wearing,
        ),
        m.ABOVE_THE_RIDER,
    ]
    if vehicle["kind"] == "mount":
        rides = detail_or(m.MOUNTS(vehicle=vehicle["name"]), owner, m.MOUNTS_UP)
    else:
        rides = detail_or(m.BOARDS(vehicle=vehicle["name"]), owner, m.BOARDS_A_VEHICLE)
    marked = {
        **params,
        "vehicle": vehicle_details(params.get("vehicle"), owner),
        "name": detail_or(by_name, owner, None) if by_name is not None else None,
    }
    return gear_resolution(
        m.RIDES(actor=who.name, rides=rides),
        who,
        state,
        steps,
        marked,
        vehicle=vehicle_details(vehicle_data(vehicle), owner),
        source=source,
    )


def resolve_dismount(ctx: ActionContext) -> Resolution:
    """Get off the vehicle, keeping it in the stable (or leaving it behind)."""
    who = ctx.actor
    assert who is not None
    state = own_state(who)
    vehicle = state.get("vehicle")
    if vehicle is None:
        raise RuleViolation(m.NOT_MOUNTED(actor=who.name), code="not_mounted")
    state["vehicle"] = None
    leave = bool(ctx.params.get("leave", False))
    if not leave:
        state["stable"] = [v for v in state["stable"] if v["name"] != vehicle["name"]]
        state["stable"].append(vehicle)
    owner = who.id
    damage = {
        "sections": [
            {"name": s["name"], "crossed": s["crossed"], "boxes": s["boxes"],
             "destroyed": s["destroyed"]}
            for s in vehicle["sections"]
        ],
        "destroyed": vehicle["destroyed"],
        "shield": item_details(item_data(vehicle["shield"]), owner) if vehicle["shield"] else None,
        "armour": item_details(item_data(vehicle["armour"]), owner) if vehicle["armour"] else None,
    }  # fmt: skip
    crossed = sum(s["crossed"] for s in vehicle["sections"])
    named = detail_or(vehicle["name"], owner, m.THE(what=m.KIND[vehicle["kind"]]))
    steps = [
        m.LEAVES_THE_STACK(
            vehicle=named,
            crossed=crossed,
            destroyed=m.WRECKED if vehicle["destroyed"] else "",
            kept=m.LEFT_BEHIND if leave else m.KEPT,
        )
    ]
    return gear_resolution(
        m.GETS_OFF(actor=who.name, vehicle=named),
        who,
        state,
        steps,
        vehicle=vehicle_details(vehicle_data(vehicle), owner),
        damage=damage,
        left=leave,
    )
