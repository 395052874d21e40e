"""The ruleset state of bandits and extras, and its common (client-drawable) shape.

A bandit's state::

    {"kind": "bandit",
     "slots": {"lightly": false, "seriously": false, "heavily": false, "dying": false},
     "dying": false,              # slot 4 marked and not dead (BD-8)
     "stabilised": false,         # a doc or a special item helped (BD-8)
     "dead": false,
     "dying_turn_started": false, # one of its own turns began while dying (BD-8 countdown)
     "dual_wield": null,          # this turn's BD-4 choice: "pierce", "armour" or null
     "heavy_this_raid": false}    # BD-7 variant: heavily wounded this raid, with the
                                  # setting heavy_wound_lasts_the_raid on

An extra's state::

    {"kind": "extra", "wounded": false, "out": false, "dual_wield": null}

Every function here is pure: it reads a mapping and returns a new dict.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rollbridge.contract import CommonState, Status, Track
from rollbridge.text import Text

from .messages import (
    CONDITION_DEAD,
    CONDITION_DISADVANTAGE,
    CONDITION_OUT,
    CONDITION_SLOT,
    CONDITION_STABILISED,
    CONDITION_WOUNDED,
    MODIFIER_NOTE,
    SLOT,
    TRACK_EXTRA,
    TRACK_SLOTS,
)

__all__ = [
    "BANDIT_STATE_SCHEMA",
    "EXTRA_STATE_SCHEMA",
    "SLOT_LABELS",
    "SLOT_NAMES",
    "STATE_SCHEMA",
    "can_act",
    "common_state",
    "fresh_state",
    "is_heavily_wounded",
    "marked",
    "normalise",
    "with_marked",
]

#: Slot number → key in ``state["slots"]``.
SLOT_NAMES: dict[int, str] = {1: "lightly", 2: "seriously", 3: "heavily", 4: "dying"}
#: Slot number → human label (English; :data:`.messages.SLOT` holds them as messages).
SLOT_LABELS: dict[int, str] = {n: message.template for n, message in SLOT.items()}


_SLOT_KEYS = tuple(SLOT_NAMES.values())

# The common state's texts: immutable, made once and shared by every view.
_SLOTS_LABEL = TRACK_SLOTS()
_EXTRA_LABEL = TRACK_EXTRA()
_CONDITION = {n: message() for n, message in CONDITION_SLOT.items()}
_DEAD = CONDITION_DEAD()
_STABILISED = CONDITION_STABILISED()
_DISADVANTAGE = CONDITION_DISADVANTAGE()
_EXTRA_CONDITIONS: dict[int, tuple[Text, ...]] = {
    0: (),
    1: (CONDITION_WOUNDED(),),
    2: (CONDITION_OUT(),),
}
_MODIFIER_NOTE = MODIFIER_NOTE()


_FLAG = {"type": "boolean"}
_DUAL_WIELD = {
    "type": ["string", "null"],
    "enum": ["pierce", "armour", None],
    "description": "this turn's two-weapon choice (BD-4), null when none was made",
}
#: A bandit's state (the module's docstring). Every field may be left out of a
#: supplied state and is then the fresh state's; so may each slot of ``slots``.
BANDIT_STATE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "kind": {"type": "string", "enum": ["bandit"], "description": "the sheet's kind"},
        "slots": {
            "type": "object",
            "properties": {name: _FLAG for name in _SLOT_KEYS},
            "description": "the four status slots, marked or not (BD-6)",
        },
        "dying": {**_FLAG, "description": "slot 4 marked and not dead (BD-8)"},
        "stabilised": {**_FLAG, "description": "a doc or a special item helped (BD-8)"},
        "dead": _FLAG,
        "dying_turn_started": {
            **_FLAG,
            "description": "one of its own turns began while dying (BD-8)",
        },
        "dual_wield": _DUAL_WIELD,
        "heavy_this_raid": {
            **_FLAG,
            "description": "heavily wounded this raid, with the BD-7 variant on",
        },
    },
}
#: An extra's state (the module's docstring); fields left out are the fresh state's.
EXTRA_STATE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "kind": {"type": "string", "enum": ["extra"], "description": "the sheet's kind"},
        "wounded": {**_FLAG, "description": "the extra's first wound (BD-9)"},
        "out": {**_FLAG, "description": "out of the fight (BD-9)"},
        "dual_wield": _DUAL_WIELD,
    },
}
#: Either kind's state: the fields of both, ``kind`` one of the two. A supplied state
#: is checked against its sheet's kind (:data:`BANDIT_STATE_SCHEMA` or
#: :data:`EXTRA_STATE_SCHEMA`).
STATE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        **EXTRA_STATE_SCHEMA["properties"],
        **BANDIT_STATE_SCHEMA["properties"],
        "kind": {"type": "string", "enum": ["bandit", "extra"], "description": "the sheet's kind"},
    },
}


def fresh_state(kind: str) -> dict[str, Any]:
    """The state of an unhurt bandit or extra."""
    if kind == "extra":
        return {"kind": "extra", "wounded": False, "out": False, "dual_wield": None}
    return {
        "kind": "bandit",
        "slots": dict.fromkeys(_SLOT_KEYS, False),
        "dying": False,
        "stabilised": False,
        "dead": False,
        "dying_turn_started": False,
        "dual_wield": None,
        "heavy_this_raid": False,
    }


def normalise(state: Mapping[str, Any], kind: str) -> dict[str, Any]:
    """A fresh copy of ``state`` with any missing field filled from a fresh state."""
    out = fresh_state(kind)
    for key, value in state.items():
        if key == "slots" and (value.__class__ is dict or isinstance(value, Mapping)):
            out["slots"] = {name: bool(value.get(name, False)) for name in _SLOT_KEYS}
        elif key in out and key != "kind":
            out[key] = value
    return out


def marked(state: Mapping[str, Any]) -> list[int]:
    """The marked slot numbers of a bandit, ascending."""
    slots = state.get("slots") or {}
    return [n for n, name in SLOT_NAMES.items() if slots.get(name)]


def with_marked(state: Mapping[str, Any], slots: Iterable[int]) -> dict[str, Any]:
    """A copy of a bandit's state with exactly ``slots`` marked; the dying flag follows
    slot 4 (and is off once dead). Leaving slot 4 clears stabilised and the countdown."""
    wanted = set(slots)
    out = normalise(state, "bandit")
    out["slots"] = {name: n in wanted for n, name in SLOT_NAMES.items()}
    out["dying"] = 4 in wanted and not out["dead"]
    if 4 not in wanted:
        out["stabilised"] = False
        out["dying_turn_started"] = False
    return out


def is_heavily_wounded(state: Mapping[str, Any]) -> bool:
    """BD-7: slot 3 is marked (a living bandit) — or, with the BD-7 variant (the table
    setting ``heavy_wound_lasts_the_raid``), slot 3 was marked since the raid began."""
    if state.get("kind", "bandit") != "bandit" or state.get("dead"):
        return False
    return 3 in marked(state) or bool(state.get("heavy_this_raid"))


def can_act(state: Mapping[str, Any], *, dying_can_act: bool = True) -> tuple[bool, str]:
    """Whether the actor may make a move or deal harm, and why not: ``""`` (it may),
    ``out``, ``dead``, ``stabilised`` or ``dying`` (the keys of
    :data:`.messages.CANNOT_ACT`)."""
    if state.get("kind") == "extra":
        return (False, "out") if state.get("out") else (True, "")
    if state.get("dead"):
        return False, "dead"
    if state.get("stabilised"):
        return False, "stabilised"
    if state.get("dying") and not dying_can_act:
        return False, "dying"
    return True, ""


def common_state(state: Mapping[str, Any]) -> CommonState:
    """The common damage shape of a bandit or an extra; its track label, conditions
    and modifier note are texts (rendered in each client's language)."""
    if state.get("kind") == "extra":
        value = 2 if state.get("out") else 1 if state.get("wounded") else 0
        status: Status = "down" if value == 2 else "impaired" if value == 1 else "ok"
        return CommonState(
            status=status,
            tracks=(Track("wounds", _EXTRA_LABEL, value, 2),),
            conditions=_EXTRA_CONDITIONS[value],
        )
    slots = marked(state)
    names = [_CONDITION[n] for n in slots]
    heavy = is_heavily_wounded(state)
    if state.get("dead"):
        status = "dead"
        names = [_DEAD]
    elif state.get("stabilised"):
        status = "down"
        names.append(_STABILISED)
    elif state.get("dying"):
        status = "dying"
    elif heavy and 3 in slots:
        status = "impaired"
    else:
        status = "ok"
    if heavy:
        names.append(_DISADVANTAGE)
    return CommonState(
        status=status,
        tracks=(Track("wounds", _SLOTS_LABEL, len(slots), 4),),
        conditions=tuple(names),
        modifier=0,
        modifier_note=_MODIFIER_NOTE if heavy else "",
    )
