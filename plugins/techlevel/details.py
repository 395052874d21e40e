"""An actor's own details, marked private for players.

``player_view`` shows players which layers an NPC has and how damaged they are,
never the names, TLs, magic or immunities of its items, vehicle and body.
Resolutions mark the same things :class:`~rollbridge.text.Private` of the aspect
:data:`DETAILS` where they are built, in the text arguments, the outcome and the
parameters; the table setting ``show_npc_details`` reveals them (:func:`reveals`).
A player's own actor's details are always shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rollbridge.text import Private

__all__ = [
    "DETAILS",
    "detail",
    "detail_or",
    "item_details",
    "public_item",
    "reveals",
    "vehicle_details",
]

#: The one aspect techlevel marks: names, TLs, TL factors, magic, immunities and
#: the boxes a layer lost (which, with the roll, would give the factor away).
DETAILS = "details"


def reveals(aspect: str, settings: Mapping[str, Any]) -> bool:
    """Whether players see the NPCs' ``aspect``: the details, with ``show_npc_details``."""
    return aspect == DETAILS and bool(settings.get("show_npc_details", False))


def detail(value: Any, owner: str) -> Private:
    """``value`` as ``owner``'s detail: left out for players who may not see it
    (in a text: "(hidden)")."""
    return Private(value, of=owner, aspect=DETAILS)


def detail_or(value: Any, owner: str, instead: Any) -> Private:
    """``value`` as ``owner``'s detail; players who may not see it get ``instead``."""
    return Private(value, of=owner, aspect=DETAILS, instead=instead)


def public_item(item: Mapping[str, Any]) -> dict[str, Any]:
    """What players see of an NPC's item: its kind and boxes (``player_view``'s shape)."""
    return {"kind": item.get("kind"), "boxes": item.get("boxes"), "crossed": item.get("crossed", 0)}


def item_details(item: Mapping[str, Any] | None, owner: str) -> Private | None:
    """An item's data as ``owner``'s detail: players who may not see it get
    :func:`public_item` of it."""
    if item is None:
        return None
    return detail_or(item, owner, public_item(item))


def vehicle_details(vehicle: Mapping[str, Any] | None, owner: str) -> Private | None:
    """A vehicle's data as ``owner``'s detail: players who may not see it get its
    kind, its sections and the items it wears as :func:`public_item`."""
    if vehicle is None:
        return None
    public = {
        "kind": vehicle.get("kind", "vehicle"),
        "sections": [dict(s) for s in vehicle.get("sections") or ()],
        "worn": [public_item(item) for item in vehicle.get("worn") or ()],
    }
    return detail_or(vehicle, owner, public)
