"""Sheet checks the schema cannot express, and the initial state.

The sheet describes the being — race, body TL, immunities — and its starting
equipment. The *state* holds what is worn and mounted now, with its damage,
so actions change it purely.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rollbridge.exceptions import InvalidSheet
from rollbridge.text import Text

from . import messages as m
from .items import item_state, vehicle_state, worn_by_kind

__all__ = ["check_sheet", "initial_state"]


def _fail(path: str, problem: Text) -> InvalidSheet:
    return InvalidSheet(m.INVALID(path=path, problem=problem), details={"field": path})


def initial_state(sheet: Mapping[str, Any]) -> dict[str, Any]:
    """The state of a fresh being: nothing on KSK or GSK, the sheet's worn
    items on their layers, its carried items, its vehicles in the stable and
    the one named by ``mounted`` under it. Damage already recorded on the
    sheet's items and vehicles (``crossed``) is kept.

    :raises InvalidSheet: two items on a layer, an armour of other than 10 or
        20 boxes, a vehicle named twice, ``mounted`` naming no vehicle.
    """
    slots = worn_by_kind(sheet.get("worn", ()), "sheet.worn", _fail)
    carried = [
        item_state(data, f"sheet.carried[{i}]", _fail)
        for i, data in enumerate(sheet.get("carried", ()))
    ]
    stable = []
    for index, data in enumerate(sheet.get("vehicles", ())):
        vehicle = vehicle_state(data, f"sheet.vehicles[{index}]", _fail)
        if any(v["name"] == vehicle["name"] for v in stable):
            raise _fail(
                f"sheet.vehicles[{index}].name", m.VEHICLE_TWICE(name=repr(vehicle["name"]))
            )
        stable.append(vehicle)
    mounted = None
    wanted = sheet.get("mounted")
    if wanted is not None:
        index = next((i for i, v in enumerate(stable) if v["name"] == wanted), None)
        if index is None:
            raise _fail("sheet.mounted", m.NO_VEHICLE_IN_SHEET(name=repr(wanted)))
        mounted = stable.pop(index)
    return {
        "ksk": {"lethal": 0, "shock": 0},
        "gsk": 0,
        "shield": slots["shield"],
        "armour": slots["armour"],
        "vehicle": mounted,
        "carried": carried,
        "stable": stable,
    }


def check_sheet(sheet: Mapping[str, Any]) -> None:
    """Raise :class:`InvalidSheet` if the sheet cannot make a state."""
    initial_state(sheet)
