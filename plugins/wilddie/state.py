"""An actor's wilddie state and the pure functions that change it.

The state is plain JSON data::

    {
      "shaken": false,          # WD-7 "overcoming pain"
      "wounds": 0,              # 0-3 for a pc, 0-1 for an npc (WD-8)
      "incapacitated": false,   # a pc's fourth wound, an npc's first (WD-8)
      "chips": 3,               # chips left (WD-4)
      "seq": 0,                 # rolls made so far (names a roll without a request id)
      "rolls": []               # the last ROLL_MEMORY trait rolls, oldest first (for chips)
    }

and, only while it holds, ``"shaken_ended_by"``: the id of the remembered recovery
roll whose success ended the last Shaken (WD-4 with WD-9: a chip that turns it into
a failure brings Shaken back; any other change of Shaken forgets it).

Every function here returns a new dict and never changes its argument.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from rollbridge.plain import copy_plain

__all__ = [
    "MAX_CHIPS",
    "PC_MAX_WOUNDS",
    "ROLL_MEMORY",
    "STATE_SCHEMA",
    "add_wounds",
    "find_roll",
    "fresh_state",
    "heal_wounds",
    "max_wounds",
    "remember_roll",
    "replace_roll",
    "set_shaken",
    "state_schema_for",
    "wound_modifier",
]

#: WD-8: a player character holds up to three wounds; the fourth incapacitates.
PC_MAX_WOUNDS = 3
#: WD-8: an NPC is out at its first wound.
NPC_MAX_WOUNDS = 1
#: How many recent rolls an actor's state remembers for chip rerolls (WD-4).
ROLL_MEMORY = 5
#: A technical bound on chips held (the rules set none); awards stop here.
MAX_CHIPS = 99


#: A die of a roll record (:meth:`rollbridge.dice.Die.to_dict`): trait dice d4-d12
#: (WD-1), the wild die a d6 (WD-3).
DIE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "faces": {"type": "integer", "minimum": 4, "maximum": 12},
        "rolls": {
            "type": "array",
            "items": {"type": "integer", "minimum": 1, "maximum": 12},
            "minItems": 1,
            "maxItems": 100,
        },
        "value": {"type": "integer", "minimum": 1, "maximum": 1200},
        "kept": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 40}, "maxItems": 8},
    },
    "required": ["faces", "rolls", "value"],
}
_SMALL = {"type": "string", "maxLength": 80}
#: A remembered trait roll (docs/rulesets/wilddie.md, "The state"). It holds either
#: its ``difficulty`` or what it is ``against`` (checked by the ruleset).
ROLL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "minLength": 1, "maxLength": 200},
        "seq": {
            "type": "integer",
            "minimum": 1,
            "maximum": 2**53,
            "description": "the seq of the event that showed the roll (a chip names it)",
        },
        "kind": {"type": "string", "enum": ["trait", "attack", "recovery"]},
        "trait": _SMALL,
        "faces": {"type": "integer", "minimum": 4, "maximum": 12},
        "untrained": {"type": "boolean"},
        "modifiers": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "value": {"type": "integer", "minimum": -100, "maximum": 100},
                    "note": {"type": "string", "maxLength": 200},
                },
                "required": ["value"],
            },
            "maxItems": 20,
        },
        "difficulty": {"type": "integer", "minimum": -100, "maximum": 100},
        "against": {"type": "string", "enum": ["defense"]},
        "trait_die": DIE_SCHEMA,
        "wild_die": {**DIE_SCHEMA, "type": ["object", "null"]},
        "chip_spent": {"type": "boolean"},
        "mode": {"type": "string", "enum": ["melee", "ranged"]},
        "target": _SMALL,
        "range": _SMALL,
        "size": _SMALL,
    },
    "required": ["id", "kind", "trait", "faces", "untrained", "modifiers", "trait_die"],
}
#: The state (this module's docstring). Every field may be left out of a supplied
#: state and is then the fresh state's; :func:`state_schema_for` narrows ``wounds``
#: to the sheet's track.
STATE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "shaken": {"type": "boolean", "description": "Shaken (WD-7)"},
        "wounds": {
            "type": "integer",
            "minimum": 0,
            "maximum": PC_MAX_WOUNDS,
            "description": "wounds taken: 0-3 for a PC, 0-1 for an NPC (WD-8)",
        },
        "incapacitated": {"type": "boolean", "description": "out of the fight (WD-8)"},
        "chips": {
            "type": "integer",
            "minimum": 0,
            "maximum": MAX_CHIPS,
            "description": "chips left (WD-4)",
        },
        "seq": {"type": "integer", "minimum": 0, "maximum": 2**53, "description": "rolls made"},
        "rolls": {
            "type": "array",
            "items": ROLL_SCHEMA,
            "maxItems": ROLL_MEMORY,
            "description": "the last trait rolls, oldest first, for chip rerolls (WD-4)",
        },
        "shaken_ended_by": {
            **ROLL_SCHEMA["properties"]["id"],
            "description": "the remembered recovery roll whose success ended Shaken (WD-9)",
        },
    },
}


def state_schema_for(pc: bool) -> dict[str, Any]:
    """:data:`STATE_SCHEMA` with ``wounds`` within the track: 3 for a PC, 1 for an NPC
    (WD-8)."""
    return _state_schema(max_wounds(pc))


@lru_cache(maxsize=4)
def _state_schema(most: int) -> dict[str, Any]:
    if most == PC_MAX_WOUNDS:
        return STATE_SCHEMA
    wounds = {**STATE_SCHEMA["properties"]["wounds"], "maximum": most}
    return {**STATE_SCHEMA, "properties": {**STATE_SCHEMA["properties"], "wounds": wounds}}


def fresh_state(chips: int) -> dict[str, Any]:
    """The state of an unhurt actor holding ``chips`` chips."""
    return {
        "shaken": False,
        "wounds": 0,
        "incapacitated": False,
        "chips": chips,
        "seq": 0,
        "rolls": [],
    }


def set_shaken(state: dict[str, Any], shaken: bool, *, ended_by: str | None = None) -> None:
    """Set ``state``'s Shaken (WD-7, WD-9) in place. ``ended_by`` names the remembered
    recovery roll whose success ended it, which a chip failing that roll undoes
    (WD-4); any other change of Shaken forgets the roll that ended the one before."""
    state["shaken"] = shaken
    if ended_by is None:
        state.pop("shaken_ended_by", None)
    else:
        state["shaken_ended_by"] = ended_by


def copy_state(state: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy of ``state`` (plain data) that may be changed freely."""
    return copy_plain(dict(state))


def max_wounds(pc: bool) -> int:
    """The wound track's length: 3 for a player character, 1 for an NPC (WD-8)."""
    return PC_MAX_WOUNDS if pc else NPC_MAX_WOUNDS


def wound_modifier(state: Mapping[str, Any]) -> int:
    """WD-8: −1 per wound to trait rolls, at most −3."""
    return -min(int(state.get("wounds", 0)), PC_MAX_WOUNDS)


def add_wounds(state: Mapping[str, Any], count: int, *, pc: bool) -> dict[str, Any]:
    """The state with ``count`` more wounds (WD-8).

    Wounds beyond the track (a pc's fourth, an npc's first) leave the actor
    incapacitated; the track stays full.
    """
    new = copy_state(state)
    limit = max_wounds(pc)
    total = int(new["wounds"]) + count
    new["wounds"] = min(total, limit)
    if (pc and total > limit) or (not pc and total >= limit):
        new["incapacitated"] = True
    return new


def heal_wounds(state: Mapping[str, Any], count: int, *, pc: bool) -> dict[str, Any]:
    """Remove up to ``count`` wounds; healing any wound ends incapacitation.

    An incapacitated pc with a full track counts its incapacitating wound as
    one of the ``count``: healing 1 leaves it with 3 wounds, able to act. An
    incapacitated npc (one wound) healed by 1 is unwounded.
    """
    new = copy_state(state)
    left = count
    if pc and new["incapacitated"] and left > 0:
        new["incapacitated"] = False
        left -= 1
    healed = min(left, int(new["wounds"]))
    new["wounds"] = int(new["wounds"]) - healed
    if healed:
        new["incapacitated"] = False
    return new


def remember_roll(state: Mapping[str, Any], record: Mapping[str, Any]) -> dict[str, Any]:
    """The state with ``record`` added as the latest roll (at most ROLL_MEMORY kept).

    ``record["id"]`` should be the request id; when it is None the roll is
    named ``#<seq>`` from the actor's roll counter.
    """
    new = copy_state(state)
    new["seq"] = int(new.get("seq", 0)) + 1
    entry = copy_plain(dict(record))
    if not entry.get("id"):
        entry["id"] = f"#{new['seq']}"
    rolls = [r for r in new.get("rolls", []) if r.get("id") != entry["id"]]
    rolls.append(entry)
    new["rolls"] = rolls[-ROLL_MEMORY:]
    return new


def find_roll(state: Mapping[str, Any], roll_id: str | None) -> Mapping[str, Any] | None:
    """The remembered roll named ``roll_id``, or the latest when None."""
    rolls = state.get("rolls") or []
    if roll_id is None:
        return rolls[-1] if rolls else None
    for record in rolls:
        if record.get("id") == roll_id:
            return record
    return None


def replace_roll(state: Mapping[str, Any], record: Mapping[str, Any]) -> dict[str, Any]:
    """The state with the remembered roll of the same id replaced by ``record``."""
    new = copy_state(state)
    new["rolls"] = [
        copy_plain(dict(record)) if r.get("id") == record["id"] else r for r in new["rolls"]
    ]
    return new
