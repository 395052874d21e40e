"""What players and observers see of an NPC, and which resolution values are its own.

Players see an NPC's common state and ``{shaken, wounds, incapacitated}``
(:func:`player_view`). Resolutions keep in step with that: the values an NPC's
sheet or hidden state would give away are marked :class:`~rollbridge.text.Private`
where the resolution is built, in one of two aspects:

``sheet``  numbers derived from the actor's sheet: a melee attack's difficulty
           (the target's Defense, 2 + half its Fighting die), damage's Toughness
           (2 + half its Vigor die + armour), its parts and the margin over it;
``state``  the actor's hidden state: its chips.

The table setting ``show_npc_details`` reveals both (:func:`reveals`); a player's
own character's values are always shown, and the GM sees everything. The dice
are never private: a die rolled in the open shows what it is, so the trait die
or Strength die an NPC rolls is public, and so are success, raises and the
damage result.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rollbridge.contract import Actor, CommonState, PlayerView
from rollbridge.plugins.wilddie.state import copy_state
from rollbridge.text import Private

__all__ = [
    "ASPECTS",
    "SHEET",
    "STATE",
    "VISIBLE_STATE",
    "chips",
    "from_sheet",
    "from_state",
    "player_view",
    "reveals",
    "state_summary",
]

#: Values derived from an actor's sheet (Defense, Toughness).
SHEET = "sheet"
#: An actor's hidden state (its chips).
STATE = "state"
#: The aspects wilddie marks; ``show_npc_details`` reveals them all.
ASPECTS: frozenset[str] = frozenset({SHEET, STATE})

#: What players see of an NPC's state: Shaken and wounds.
VISIBLE_STATE: tuple[str, ...] = ("shaken", "wounds", "incapacitated")


def reveals(aspect: str, settings: Mapping[str, Any]) -> bool:
    """Whether the table shows players an NPC's details of ``aspect``."""
    return aspect in ASPECTS and bool(settings.get("show_npc_details", False))


# Private's fields are passed by position: twice as fast as by name, and a
# resolution marks half a dozen values.


def from_sheet(value: Any, actor_id: str, instead: Any = None) -> Private:
    """``value``, derived from ``actor_id``'s sheet. ``instead``: what players read
    when it is hidden (None: in a text "(hidden)", elsewhere the field is dropped)."""
    if instead is None:
        return Private(value, actor_id, SHEET)
    return Private(value, actor_id, SHEET, instead)


def from_state(value: Any, actor_id: str, instead: Any = None) -> Private:
    """``value``, from ``actor_id``'s hidden state (its chips); ``instead`` as for
    :func:`from_sheet`."""
    if instead is None:
        return Private(value, actor_id, STATE)
    return Private(value, actor_id, STATE, instead)


def chips(count: int, actor_id: str) -> Private:
    """How many chips ``actor_id`` holds (dropped where players may not see it)."""
    return Private(count, actor_id, STATE)


def state_summary(state: Mapping[str, Any], actor_id: str) -> dict[str, Any]:
    """The facts of a state a resolution reports (without the roll memory), the
    chips marked as ``actor_id``'s."""
    return {
        "shaken": bool(state["shaken"]),
        "wounds": int(state["wounds"]),
        "incapacitated": bool(state["incapacitated"]),
        "chips": chips(int(state["chips"]), actor_id),
    }


def player_view(actor: Actor, common: CommonState, settings: Mapping[str, Any]) -> PlayerView:
    """What players see of an NPC: its common state and Shaken and wounds; with
    ``show_npc_details`` its whole sheet and state too."""
    if settings.get("show_npc_details"):
        return PlayerView(
            common=common, sheet=copy_state(actor.sheet), state=copy_state(actor.state)
        )
    return PlayerView(common=common, state={key: actor.state.get(key) for key in VISIBLE_STATE})
