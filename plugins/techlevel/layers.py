"""TL-2 and TL-3: the stack of layers, outermost first, and which one a hit strikes.

State keys per layer::

    vehicle_shield  state["vehicle"]["shield"]   (only while mounted)
    vehicle_armour  state["vehicle"]["armour"]   (only while mounted)
    vehicle         state["vehicle"]             (sections)
    shield          state["shield"]
    armour          state["armour"]
    body            state["ksk"]                 (10 KSK at the sheet's body TL)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rollbridge.contract import Actor

__all__ = [
    "LAYERS",
    "WEARABLE",
    "first_intact",
    "item_on",
    "own_state",
    "slot_of",
    "thaw",
]

#: TL-2: the seed's order, outermost first.
LAYERS = ("vehicle_shield", "vehicle_armour", "vehicle", "shield", "armour", "body")
#: Layers an item is worn on (don, doff, enchant, dispel).
WEARABLE = ("vehicle_shield", "vehicle_armour", "shield", "armour")


def thaw(value: Any) -> Any:
    """A deep, mutable copy of JSON-like data (Mappings → dict, sequences → list),
    so a ruleset never writes into the actor it was given."""
    if isinstance(value, Mapping):
        return {str(k): thaw(v) for k, v in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return [thaw(v) for v in value]
    return value


def own_state(actor: Actor) -> dict[str, Any]:
    """The state an action changes and returns: the actor's own, which
    :meth:`TechLevel.resolve <rollbridge.plugins.techlevel.TechLevel.resolve>` has
    loaded afresh (:func:`~rollbridge.plugins.techlevel.state.load_state` builds a new
    copy), so writing it never touches the actor the engine passed in, and a refused
    action leaves nothing behind."""
    return actor.state  # type: ignore[return-value]


def slot_of(layer: str) -> tuple[bool, str]:
    """``(on_vehicle, kind)`` of a wearable layer: ``vehicle_armour`` → ``(True, "armour")``."""
    if layer.startswith("vehicle_"):
        return True, layer[len("vehicle_") :]
    return False, layer


def item_on(state: Mapping[str, Any], layer: str) -> Any:
    """The item worn on a wearable layer, or None (also when not mounted)."""
    on_vehicle, kind = slot_of(layer)
    holder = state.get("vehicle") if on_vehicle else state
    return None if holder is None else holder.get(kind)


def first_intact(state: Mapping[str, Any]) -> tuple[str, list[dict[str, str]]]:
    """TL-3: the outermost layer present and not destroyed, and why each
    layer above it was passed (``absent`` or ``destroyed``). The body is
    always present and ends the search."""
    skipped: list[dict[str, str]] = []
    for layer in LAYERS:
        if layer == "body":
            return layer, skipped
        thing = state.get("vehicle") if layer == "vehicle" else item_on(state, layer)
        if thing is None:
            skipped.append({"layer": layer, "reason": "absent"})
        elif thing["destroyed"]:
            skipped.append({"layer": layer, "reason": "destroyed", "name": thing["name"]})
        else:
            return layer, skipped
    raise AssertionError("unreachable: the body is always present")  # pragma: no cover
