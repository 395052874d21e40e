"""What of an NPC players may see in a resolution: the aspects, the setting that
reveals each, and the public form of the values players get in place of hidden ones.

``player_view`` shows players an NPC's status, wound levels and modifier; its
boxes only with ``show_npc_details`` and its sheet only with ``show_npc_sheet``.
Resolutions follow the same rule by marking what is an actor's own with
:class:`~rollbridge.text.Private` (where :mod:`.combat`, :mod:`.care` and
:mod:`.refill` build them), in three aspects:

``sheet`` (:data:`SHEET`, revealed by ``show_npc_sheet``)
    Body, armour, Combat Pool split, an attacker's skill and recoil compensation,
    and what is built from them: the resistance TN, and an NPC attacker's TN when
    it fired two or more rounds (the recoil in it gives the compensation away).
``details`` (:data:`DETAILS`, revealed by ``show_npc_details``)
    the boxes: crossed, had, bled or healed.
``pool`` (:data:`POOL`, revealed by either setting)
    the Combat Pool a new combat turn refills: the sheet's rating and the state's pool.

The engine shows a player's own actors' values to everyone, and the GM everything.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from rollbridge.text import Private

from .codes import LEVEL_NAMES
from .monitor import wound_level

__all__ = [
    "ASPECTS",
    "DETAILS",
    "POOL",
    "SHEET",
    "public_after",
    "reveals",
    "sheet_value",
    "sheet_value_or",
    "wound_levels",
]

#: An actor's sheet and the numbers built from it.
SHEET = "sheet"
#: An actor's boxes (its state).
DETAILS = "details"
#: The Combat Pool a new turn refills (the sheet's rating, the state's pool).
POOL = "pool"
#: Each aspect and the settings that reveal it to players (any one of them).
ASPECTS: dict[str, tuple[str, ...]] = {
    SHEET: ("show_npc_sheet",),
    DETAILS: ("show_npc_details",),
    POOL: ("show_npc_sheet", "show_npc_details"),
}


def reveals(aspect: str, settings: Mapping[str, Any]) -> bool:
    """Whether the table's ``settings`` show players the NPCs' values of ``aspect``."""
    return any(map(settings.get, ASPECTS.get(aspect, ())))  # (no generator made per question)


@lru_cache(maxsize=4096)
def sheet_value(value: Any, actor_id: str) -> Private:
    """``value`` (a number or a word) marked as ``actor_id``'s sheet: dropped for
    players who may not see it. One shared record per value and actor (a Private
    is immutable, and a table marks the same few values again and again)."""
    return Private(value, actor_id, SHEET)


@lru_cache(maxsize=4096)
def sheet_value_or(value: Any, actor_id: str, instead: Any) -> Private:
    """``value`` marked as ``actor_id``'s sheet, shown as ``instead`` to players
    who may not see it (``None``: a null in its place)."""
    return Private(value, actor_id, SHEET, instead)


#: Boxes on a monitor (0 to 10) → the name of its wound level (SR-12).
_LEVEL_NAME_BY_BOXES = tuple(
    None if wound_level(boxes) is None else LEVEL_NAMES[wound_level(boxes)]  # type: ignore[index]
    for boxes in range(11)
)


def wound_levels(state: Mapping[str, Any]) -> dict[str, str | None]:
    """The wound level of each monitor, by name (``{"stun": None, "physical": "Deadly"}``)."""
    names = _LEVEL_NAME_BY_BOXES
    stun, physical = state.get("stun", 0), state.get("physical", 0)
    return {
        "stun": names[min(max(stun, 0), 10)],
        "physical": names[min(max(physical, 0), 10)],
    }


def public_after(after: Mapping[str, Any]) -> Mapping[str, Any]:
    """What players see of a defender's ``defender_after`` without its boxes: its
    status, wound modifier and wound levels (read-only)."""
    return MappingProxyType(
        {
            "status": after["status"],
            "wound_modifier": after["wound_modifier"],
            "wound_levels": MappingProxyType(wound_levels(after)),
        }
    )
