"""Items and vehicles (TL-2, TL-10, TL-11): their schemas, and how data
(from a sheet or an action's parameters) becomes state and back.

An *item* is something worn on a layer: an ``armour`` or a personal or
vehicle energy ``shield``. A *vehicle* is a vehicle or a mount: a TL,
sections of 20 boxes each, immunities, and the items it wears (its own
energy shield and armour).

State shapes (plain JSON; see docs/rulesets/techlevel.md)::

    item    = {name, kind, boxes, crossed, destroyed, tl, magical, spell, base, immune}
    vehicle = {name, kind, tl, immune, destroyed,
               sections: [{name, boxes: 20, crossed, destroyed}],
               shield: item | None, armour: item | None}

``base`` is None, or ``{"boxes", "tl", "immune"}`` when a spell improved a worn armour
(TL-9): what a dispel gives back.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rollbridge.exceptions import InvalidRequest
from rollbridge.text import Text

from . import messages as m

__all__ = [
    "ARMOUR_BOXES",
    "IMMUNE_SCHEMA",
    "ITEM_KINDS",
    "ITEM_SCHEMA",
    "SECTION_BOXES",
    "TL_SCHEMA",
    "VEHICLE_SCHEMA",
    "check_armour_boxes",
    "item_data",
    "item_state",
    "normalise_immune",
    "settle_item",
    "settle_vehicle",
    "vehicle_data",
    "vehicle_state",
    "worn_by_kind",
]

#: TL-11: an armour has 10 or 20 boxes.
ARMOUR_BOXES = (10, 20)
#: TL-10: a vehicle has 20 boxes per section.
SECTION_BOXES = 20
ITEM_KINDS = ("shield", "armour")

TL_SCHEMA: dict[str, Any] = {"type": "integer", "minimum": 1, "maximum": 5}
IMMUNE_SCHEMA: dict[str, Any] = {
    "type": "array",
    "items": {"type": "string", "minLength": 1, "maxLength": 40},
    "maxItems": 20,
    "default": [],
    "description": "damage types this layer ignores (TL-6), e.g. fire, energy",
}
NAME_SCHEMA: dict[str, Any] = {"type": "string", "minLength": 1, "maxLength": 80}

ITEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "an armour or energy shield (TL-11)",
    "properties": {
        "name": NAME_SCHEMA,
        "kind": {"type": "string", "enum": list(ITEM_KINDS)},
        "boxes": {
            "type": "integer",
            "minimum": 1,
            "maximum": 1000,
            "description": "capacity; an armour has 10 or 20",
        },
        "tl": TL_SCHEMA,
        "magical": {"type": "boolean", "default": False},
        "spell": {"type": ["string", "null"], "maxLength": 80, "default": None},
        "immune": IMMUNE_SCHEMA,
        "crossed": {"type": "integer", "minimum": 0, "maximum": 1000, "default": 0},
        "base": {
            "type": ["object", "null"],
            "description": "boxes and TL before a spell improved it (set by enchant)",
            "properties": {
                "boxes": {"type": "integer", "minimum": 1, "maximum": 1000},
                "tl": TL_SCHEMA,
                "immune": IMMUNE_SCHEMA,
            },
            "required": ["boxes", "tl"],
            "default": None,
        },
    },
    "required": ["name", "kind", "boxes", "tl"],
}

#: The one section a vehicle or mount has when its sheet names none.
DEFAULT_SECTION = "main"
SECTION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 40},
        "crossed": {"type": "integer", "minimum": 0, "maximum": SECTION_BOXES, "default": 0},
    },
    "required": ["name"],
}

VEHICLE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "a vehicle or mount (TL-10): 20 boxes per section",
    "properties": {
        "name": NAME_SCHEMA,
        "kind": {"type": "string", "enum": ["vehicle", "mount"], "default": "vehicle"},
        "tl": TL_SCHEMA,
        "immune": IMMUNE_SCHEMA,
        "sections": {
            "type": "array",
            "items": SECTION_SCHEMA,
            "minItems": 1,
            "maxItems": 20,
            "default": [{"name": DEFAULT_SECTION}],
        },
        "worn": {
            "type": "array",
            "items": ITEM_SCHEMA,
            "maxItems": 2,
            "default": [],
            "description": "the vehicle's energy shield and armour, at most one of each",
        },
    },
    "required": ["name", "tl"],
}

Fail = Callable[[str, Text], InvalidRequest]


def normalise_immune(values: Sequence[str]) -> list[str]:
    """Immunities compare case-insensitively; kept lower-case, each once, in order."""
    out: list[str] = []
    for value in values:
        key = str(value).strip().lower()
        if key and key not in out:
            out.append(key)
    return out


def settle_item(item: dict[str, Any]) -> dict[str, Any]:
    """Keep ``crossed`` within capacity and ``destroyed`` in step with it (TL-5)."""
    item["crossed"] = max(0, min(item["crossed"], item["boxes"]))
    item["destroyed"] = item["crossed"] >= item["boxes"]
    return item


def settle_vehicle(vehicle: dict[str, Any]) -> dict[str, Any]:
    """Settle each section; the vehicle is destroyed when every section is (TL-10)."""
    for section in vehicle["sections"]:
        section["crossed"] = max(0, min(section["crossed"], section["boxes"]))
        section["destroyed"] = section["crossed"] >= section["boxes"]
    vehicle["destroyed"] = all(s["destroyed"] for s in vehicle["sections"])
    return vehicle


def check_armour_boxes(kind: str, boxes: int, path: str, fail: Fail) -> None:
    """TL-11: armour has 10 or 20 boxes."""
    if kind == "armour" and boxes not in ARMOUR_BOXES:
        raise fail(path, m.ARMOUR_BOXES(boxes=boxes))


def _base(base: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "boxes": int(base["boxes"]),
        "tl": int(base["tl"]),
        "immune": normalise_immune(base.get("immune", ())),
    }


def item_state(data: Mapping[str, Any], path: str, fail: Fail) -> dict[str, Any]:
    """State of an item from (schema-validated) data; semantic checks raise ``fail``."""
    kind = data["kind"]
    boxes = int(data["boxes"])
    check_armour_boxes(kind, boxes, f"{path}.boxes", fail)
    crossed = int(data.get("crossed", 0))
    if crossed > boxes:
        raise fail(f"{path}.crossed", m.CROSSED_PAST_BOXES(crossed=crossed, boxes=boxes))
    base = data.get("base")
    magical = bool(data.get("magical", False))
    spell = data.get("spell")
    if base is not None and not magical:
        raise fail(f"{path}.base", m.ONLY_MAGICAL_BASE)
    item = {
        "name": data["name"],
        "kind": kind,
        "boxes": boxes,
        "crossed": crossed,
        "destroyed": False,
        "tl": int(data["tl"]),
        "magical": magical,
        "spell": (spell or data["name"]) if magical else None,
        "base": _base(base) if base else None,
        "immune": normalise_immune(data.get("immune", ())),
    }
    return settle_item(item)


def item_data(item: Mapping[str, Any]) -> dict[str, Any]:
    """An item state as data that ``don`` (or a sheet) accepts again, damage included."""
    data = {
        "name": item["name"],
        "kind": item["kind"],
        "boxes": item["boxes"],
        "tl": item["tl"],
        "magical": item.get("magical", False),
        "spell": item.get("spell"),
        "immune": list(item.get("immune", ())),
        "crossed": item.get("crossed", 0),
        "base": _base(item["base"]) if item.get("base") else None,
    }
    return data


def worn_by_kind(
    worn: Sequence[Mapping[str, Any]], path: str, fail: Fail
) -> dict[str, dict[str, Any] | None]:
    """``{"shield": item|None, "armour": item|None}`` from a list of worn items;
    two items of one kind are refused (TL-9: one per layer)."""
    slots: dict[str, dict[str, Any] | None] = {"shield": None, "armour": None}
    for index, data in enumerate(worn):
        item = item_state(data, f"{path}[{index}]", fail)
        if slots[item["kind"]] is not None:
            raise fail(
                f"{path}[{index}]",
                m.SECOND_ON_LAYER(kind=item["kind"], name=repr(item["name"])),
            )
        slots[item["kind"]] = item
    return slots


def vehicle_state(data: Mapping[str, Any], path: str, fail: Fail) -> dict[str, Any]:
    """State of a vehicle or mount from (schema-validated) data."""
    sections = []
    seen: set[str] = set()
    for index, section in enumerate(data.get("sections") or [{"name": DEFAULT_SECTION}]):
        name = section["name"]
        if name in seen:
            raise fail(f"{path}.sections[{index}].name", m.NAMED_TWICE(name=repr(name)))
        seen.add(name)
        sections.append(
            {
                "name": name,
                "boxes": SECTION_BOXES,
                "crossed": int(section.get("crossed", 0)),
                "destroyed": False,
            }
        )
    slots = worn_by_kind(data.get("worn", ()), f"{path}.worn", fail)
    vehicle = {
        "name": data["name"],
        "kind": data.get("kind", "vehicle"),
        "tl": int(data["tl"]),
        "immune": normalise_immune(data.get("immune", ())),
        "destroyed": False,
        "sections": sections,
        "shield": slots["shield"],
        "armour": slots["armour"],
    }
    return settle_vehicle(vehicle)


def vehicle_data(vehicle: Mapping[str, Any]) -> dict[str, Any]:
    """A vehicle state as data that ``mount`` accepts again, damage included."""
    return {
        "name": vehicle["name"],
        "kind": vehicle["kind"],
        "tl": vehicle["tl"],
        "immune": list(vehicle["immune"]),
        "sections": [{"name": s["name"], "crossed": s["crossed"]} for s in vehicle["sections"]],
        "worn": [item_data(vehicle[k]) for k in ITEM_KINDS if vehicle.get(k) is not None],
    }
