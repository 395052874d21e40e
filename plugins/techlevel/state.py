"""Loading a state that may have been written by hand.

The engine lets a GM create or update an actor with a state of their own
(``actor.create`` with ``state``, ``actor.update``). :func:`load_state` fills
what is missing with the defaults of a fresh state, keeps boxes within
capacity and re-derives the ``destroyed`` flags, so every action and view
works on a complete, consistent state. A state this plugin wrote comes back
unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rollbridge.exceptions import InvalidRequest
from rollbridge.schema import validate

from .body import GSK, KSK
from .items import (
    ITEM_KINDS,
    ITEM_SCHEMA,
    VEHICLE_SCHEMA,
    item_data,
    item_state,
    vehicle_data,
    vehicle_state,
)

__all__ = ["load_state"]


def _fail(path: str, problem: Any) -> InvalidRequest:
    # A stored state the server itself wrote is broken: a message for the operator's
    # log, in English (a problem of :mod:`.items` is a Text: its English rendering).
    return InvalidRequest(f"{path}: {problem}", details={"field": path})


def _count(value: Any, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(path, f"must be a whole number, got {value!r}")
    return value


def _item(data: Any, path: str, kind: str | None = None) -> dict[str, Any]:
    if not isinstance(data, Mapping):
        raise _fail(path, "must be an item object")
    try:
        as_data = item_data(data)
    except (KeyError, TypeError) as problem:
        raise _fail(path, f"is not an item (missing {problem})") from None
    checked = validate(ITEM_SCHEMA, as_data, where=path, error=InvalidRequest)
    if kind is not None and checked["kind"] != kind:
        raise _fail(f"{path}.kind", f"a {checked['kind']} cannot be worn on the {kind} layer")
    return item_state(checked, path, _fail)


def _vehicle(data: Any, path: str) -> dict[str, Any]:
    if not isinstance(data, Mapping):
        raise _fail(path, "must be a vehicle object")
    try:
        as_data = vehicle_data(
            {
                **data,
                "kind": data.get("kind", "vehicle"),
                "immune": data.get("immune", []),
                "sections": [
                    {"name": s["name"], "crossed": s.get("crossed", 0)}
                    for s in data.get("sections") or [{"name": "main"}]
                ],
                **{k: data.get(k) for k in ITEM_KINDS},
            }
        )
    except (KeyError, TypeError) as problem:
        raise _fail(path, f"is not a vehicle (missing {problem})") from None
    checked = validate(VEHICLE_SCHEMA, as_data, where=path, error=InvalidRequest)
    return vehicle_state(checked, path, _fail)


def load_state(raw: Mapping[str, Any] | None) -> dict[str, Any]:
    """A complete, consistent copy of ``raw`` (see the module's docstring).

    :raises InvalidRequest: naming the field when a part cannot be read.
    """
    state = raw or {}  # read only: every part of ``out`` is built anew from it
    ksk = state.get("ksk") or {}
    lethal = max(0, min(KSK, _count(ksk.get("lethal", 0), "state.ksk.lethal")))
    shock = max(0, min(KSK - lethal, _count(ksk.get("shock", 0), "state.ksk.shock")))
    out: dict[str, Any] = {
        "ksk": {"lethal": lethal, "shock": shock},
        "gsk": max(0, min(GSK, _count(state.get("gsk", 0), "state.gsk"))),
    }
    for kind in ITEM_KINDS:
        item = state.get(kind)
        out[kind] = None if item is None else _item(item, f"state.{kind}", kind)
    vehicle = state.get("vehicle")
    out["vehicle"] = None if vehicle is None else _vehicle(vehicle, "state.vehicle")
    out["carried"] = [
        _item(item, f"state.carried[{i}]") for i, item in enumerate(state.get("carried") or [])
    ]
    out["stable"] = [
        _vehicle(v, f"state.stable[{i}]") for i, v in enumerate(state.get("stable") or [])
    ]
    return out
