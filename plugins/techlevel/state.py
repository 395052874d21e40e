"""The state's schema, and loading a state that may have been written by hand.

The engine lets a GM create or update an actor with a state of their own
(``actor.create`` with ``state``, ``actor.update``): the ruleset checks it against
:data:`STATE_SCHEMA`, lays it over the fresh state of the actor's sheet (the armour
and shield it wears, its vehicles: :meth:`~rollbridge.contract.Ruleset.validate_state`)
and loads it. :func:`load_state` fills what is missing with the defaults of an
empty state, keeps boxes within capacity and re-derives the ``destroyed`` flags,
so every action and view works on a complete, consistent state. A state this
plugin wrote comes back unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rollbridge.exceptions import InvalidRequest
from rollbridge.schema import validate

from .body import GSK, KSK
from .items import (
    DEFAULT_SECTION,
    IMMUNE_SCHEMA,
    ITEM_KINDS,
    ITEM_SCHEMA,
    NAME_SCHEMA,
    SECTION_BOXES,
    SECTION_SCHEMA,
    TL_SCHEMA,
    VEHICLE_SCHEMA,
    item_data,
    item_state,
    vehicle_data,
    vehicle_state,
)

__all__ = ["STATE_SCHEMA", "load_state"]

Fail = Callable[[str, Any], InvalidRequest]


def _item_state_schema(kind: str | None) -> dict[str, Any]:
    """An item as the state holds it: an item (defaults filled, so it is taken whole)
    and its ``destroyed`` flag; on a layer, of that layer's kind (TL-2, TL-9)."""
    props = {**ITEM_SCHEMA["properties"], "destroyed": {"type": "boolean", "default": False}}
    if kind is not None:
        props["kind"] = {"type": "string", "enum": [kind]}
    return {**ITEM_SCHEMA, "properties": props}


def _worn(kind: str) -> dict[str, Any]:
    """The item on a layer, or null; no default (a state's own layers are completed
    from the fresh state, not emptied)."""
    return {**_item_state_schema(kind), "type": ["object", "null"]}


_VEHICLE_STATE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "a vehicle or mount as the state holds it (TL-10)",
    "properties": {
        "name": NAME_SCHEMA,
        "kind": VEHICLE_SCHEMA["properties"]["kind"],
        "tl": TL_SCHEMA,
        "immune": IMMUNE_SCHEMA,
        "destroyed": {"type": "boolean", "default": False},
        "sections": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    **SECTION_SCHEMA["properties"],
                    "boxes": {"type": "integer", "minimum": 1, "maximum": SECTION_BOXES},
                    "destroyed": {"type": "boolean"},
                },
                "required": ["name"],
            },
            "minItems": 1,
            "maxItems": 20,
            "default": [{"name": DEFAULT_SECTION}],
        },
        "shield": {**_worn("shield"), "default": None},
        "armour": {**_worn("armour"), "default": None},
    },
    "required": ["name", "tl"],
}

#: The state (docs/rulesets/techlevel.md, "State fields"). A field a supplied state
#: leaves out is the fresh state's (the sheet's worn items and vehicles), ``ksk``
#: field by field; an item or a vehicle given is taken whole (its schema fills every
#: field it leaves out).
STATE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "ksk": {
            "type": "object",
            "description": "KSK boxes crossed, by mark (TL-2, TL-7); lethal + shock above 10 "
            "keeps lethal and cuts shock",
            "properties": {
                "lethal": {"type": "integer", "minimum": 0, "maximum": KSK},
                "shock": {"type": "integer", "minimum": 0, "maximum": KSK},
            },
        },
        "gsk": {
            "type": "integer",
            "minimum": 0,
            "maximum": GSK,
            "description": "GSK boxes crossed (TL-8)",
        },
        "shield": _worn("shield"),
        "armour": _worn("armour"),
        "vehicle": {**_VEHICLE_STATE_SCHEMA, "type": ["object", "null"]},
        "carried": {"type": "array", "items": _item_state_schema(None), "maxItems": 100},
        "stable": {"type": "array", "items": _VEHICLE_STATE_SCHEMA, "maxItems": 100},
    },
}


def _fail(path: str, problem: Any) -> InvalidRequest:
    # A stored state the server itself wrote is broken: a message for the operator's
    # log, in English (a problem of :mod:`.items` is a Text: its English rendering).
    return InvalidRequest(f"{path}: {problem}", details={"field": path})


def _count(value: Any, path: str, fail: Fail = _fail) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise fail(path, f"must be a whole number, got {value!r}")
    return value


def _item(data: Any, path: str, kind: str | None = None, fail: Fail = _fail) -> dict[str, Any]:
    if not isinstance(data, Mapping):
        raise fail(path, "must be an item object")
    try:
        as_data = item_data(data)
    except (KeyError, TypeError) as problem:
        raise fail(path, f"is not an item (missing {problem})") from None
    checked = validate(ITEM_SCHEMA, as_data, where=path, error=InvalidRequest)
    if kind is not None and checked["kind"] != kind:
        raise fail(f"{path}.kind", f"a {checked['kind']} cannot be worn on the {kind} layer")
    return item_state(checked, path, fail)


def _vehicle(data: Any, path: str, fail: Fail = _fail) -> dict[str, Any]:
    if not isinstance(data, Mapping):
        raise fail(path, "must be a vehicle object")
    try:
        as_data = vehicle_data(
            {
                **data,
                "kind": data.get("kind", "vehicle"),
                "immune": data.get("immune", []),
                "sections": [
                    {"name": s["name"], "crossed": s.get("crossed", 0)}
                    for s in data.get("sections") or [{"name": DEFAULT_SECTION}]
                ],
                **{k: data.get(k) for k in ITEM_KINDS},
            }
        )
    except (KeyError, TypeError) as problem:
        raise fail(path, f"is not a vehicle (missing {problem})") from None
    checked = validate(VEHICLE_SCHEMA, as_data, where=path, error=InvalidRequest)
    return vehicle_state(checked, path, fail)


def load_state(raw: Mapping[str, Any] | None, fail: Fail = _fail) -> dict[str, Any]:
    """A complete, consistent copy of ``raw`` (see the module's docstring).

    :param fail: makes the error for a part that cannot be read from its path and
        problem (default: an ``invalid_request`` for the operator's log; a supplied
        state, checked against :data:`STATE_SCHEMA` first, gets ``invalid_state``).
    :raises InvalidRequest: naming the field when a part cannot be read.
    """
    state = raw or {}  # read only: every part of ``out`` is built anew from it
    ksk = state.get("ksk") or {}
    lethal = max(0, min(KSK, _count(ksk.get("lethal", 0), "state.ksk.lethal", fail)))
    shock = max(0, min(KSK - lethal, _count(ksk.get("shock", 0), "state.ksk.shock", fail)))
    out: dict[str, Any] = {
        "ksk": {"lethal": lethal, "shock": shock},
        "gsk": max(0, min(GSK, _count(state.get("gsk", 0), "state.gsk", fail))),
    }
    for kind in ITEM_KINDS:
        item = state.get(kind)
        out[kind] = None if item is None else _item(item, f"state.{kind}", kind, fail)
    vehicle = state.get("vehicle")
    out["vehicle"] = None if vehicle is None else _vehicle(vehicle, "state.vehicle", fail)
    out["carried"] = [
        _item(item, f"state.carried[{i}]", None, fail)
        for i, item in enumerate(state.get("carried") or [])
    ]
    out["stable"] = [
        _vehicle(v, f"state.stable[{i}]", fail) for i, v in enumerate(state.get("stable") or [])
    ]
    return out
