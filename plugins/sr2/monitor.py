"""Condition monitors (SR-11), wound levels and modifiers (SR-12), down /
dying / dead (SR-13) and healing (SR-15).

The state of an actor is a plain dict::

    {"stun": 0-10, "physical": 0-10, "overflow": 0-(Body+1),
     "pool": Combat Pool dice left this turn, "stabilised": bool}

Overflow is kept up to Body + 1: one box past Body means dead, and nothing
beyond that matters. Every function here returns a new dict and never
changes the one it is given.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rollbridge.contract import CommonState, Track
from rollbridge.text import Text

from . import conditions

__all__ = [
    "MONITOR_BOXES",
    "apply_damage",
    "body_of",
    "can_act",
    "common_state",
    "heal",
    "is_dead",
    "is_dying",
    "status",
    "wound_level",
    "wound_modifier",
]

#: Boxes of each condition monitor (SR-11).
MONITOR_BOXES = 10
# SR-12 (Decision: canonical thresholds) — boxes on one monitor → wound level.
_WOUND_BY_BOXES = (None, "L", "L", "M", "M", "M", "S", "S", "S", "S", "D")
# TN modifier (and initiative penalty) per wound level. Deadly keeps the
# Serious figure: the character is unconscious, but a test still rolled for
# them (resistance) is never easier than at Serious.
_MODIFIER = {None: 0, "L": 1, "M": 2, "S": 3, "D": 3}
_MODIFIER_BY_BOXES = tuple(_MODIFIER[level] for level in _WOUND_BY_BOXES)


def body_of(sheet: Mapping[str, Any]) -> int:
    return int(sheet.get("body", 1))


def wound_level(boxes: int) -> str | None:
    """SR-12: 1–2 boxes Light, 3–5 Moderate, 6–9 Serious, 10 Deadly, 0 none."""
    if boxes <= 0:
        return None
    return _WOUND_BY_BOXES[boxes if boxes < MONITOR_BOXES else MONITOR_BOXES]


def wound_modifier(state: Mapping[str, Any]) -> int:
    """SR-12: the TN modifier of both monitors added (+1 L, +2 M, +3 S or D)."""
    stun = state.get("stun", 0)
    physical = state.get("physical", 0)
    return (
        _MODIFIER_BY_BOXES[stun if stun < 10 else 10]
        + _MODIFIER_BY_BOXES[physical if physical < 10 else 10]
    )


def is_dead(state: Mapping[str, Any], body: int) -> bool:
    """SR-13: overflow above Body."""
    return state.get("overflow", 0) > body


def is_dying(state: Mapping[str, Any], body: int) -> bool:
    """SR-13: Physical full (or any overflow), not yet dead, whether stabilised or not."""
    if is_dead(state, body):
        return False
    return state.get("physical", 0) >= MONITOR_BOXES or state.get("overflow", 0) > 0


def can_act(state: Mapping[str, Any]) -> bool:
    """Not unconscious, dying or dead (SR-13): both monitors below 10, no overflow."""
    return (
        state.get("stun", 0) < MONITOR_BOXES
        and state.get("physical", 0) < MONITOR_BOXES
        and state.get("overflow", 0) == 0
    )


def status(state: Mapping[str, Any], body: int) -> str:
    """SR-13 in the common statuses.

    ``dead`` overflow > Body; ``dying`` Physical 10 and not stabilised;
    ``down`` unconscious (Stun 10, or Physical 10 but stabilised);
    ``impaired`` any box crossed; ``ok`` none.
    """
    if is_dead(state, body):
        return "dead"
    if is_dying(state, body):
        return "down" if state.get("stabilised", False) else "dying"
    stun = state.get("stun", 0)
    if stun >= MONITOR_BOXES:
        return "down"
    if stun > 0 or state.get("physical", 0) > 0:
        return "impaired"
    return "ok"


def apply_damage(
    state: Mapping[str, Any],
    body: int,
    boxes: int,
    monitor: str,
    *,
    stun_carry: bool = True,
) -> tuple[dict[str, Any], dict[str, int]]:
    """SR-11: cross ``boxes`` on ``monitor`` (``stun`` or ``physical``).

    Stun past 10 carries into Physical one for one (unless ``stun_carry`` is
    off: then it is lost); Physical past 10 becomes overflow one for one, up
    to Body + 1 (dead). Physical damage clears the stabilised flag.

    Returns the new state and the boxes crossed on each track (``stun``,
    ``physical``, ``overflow``) plus ``lost`` (boxes with nowhere to go).
    """
    new = dict(state)
    crossed = {"stun": 0, "physical": 0, "overflow": 0, "lost": 0}
    rest = boxes if boxes > 0 else 0
    if monitor == "stun" and rest:
        stun = new.get("stun", 0)
        add = min(rest, MONITOR_BOXES - stun) if stun < MONITOR_BOXES else 0
        new["stun"] = stun + add
        crossed["stun"] = add
        rest -= add
        if not stun_carry:
            crossed["lost"] = rest
            rest = 0
    if rest:
        physical = new.get("physical", 0)
        add = min(rest, MONITOR_BOXES - physical) if physical < MONITOR_BOXES else 0
        new["physical"] = physical + add
        crossed["physical"] = add
        rest -= add
    if rest:
        overflow = new.get("overflow", 0)
        room = body + 1 - overflow
        add = min(rest, room) if room > 0 else 0
        new["overflow"] = overflow + add
        crossed["overflow"] = add
        crossed["lost"] += rest - add
    if crossed["physical"] or crossed["overflow"]:
        new["stabilised"] = False
    return new, crossed


def heal(
    state: Mapping[str, Any], monitor: str, boxes: int
) -> tuple[dict[str, Any], dict[str, int]]:
    """SR-15: remove up to ``boxes`` from ``monitor``; healing Physical removes
    overflow first. A character no longer dying loses the stabilised flag.

    Returns the new state and the boxes removed from each track.
    """
    new = dict(state)
    removed = {"stun": 0, "physical": 0, "overflow": 0}
    rest = boxes if boxes > 0 else 0
    if monitor == "stun":
        take = min(rest, new.get("stun", 0))
        new["stun"] = new.get("stun", 0) - take
        removed["stun"] = take
    elif monitor == "overflow":
        take = min(rest, new.get("overflow", 0))
        new["overflow"] = new.get("overflow", 0) - take
        removed["overflow"] = take
    else:
        take = min(rest, new.get("overflow", 0))
        new["overflow"] = new.get("overflow", 0) - take
        removed["overflow"] = take
        rest -= take
        take = min(rest, new.get("physical", 0))
        new["physical"] = new.get("physical", 0) - take
        removed["physical"] = take
    if new.get("physical", 0) < MONITOR_BOXES and new.get("overflow", 0) == 0:
        new["stabilised"] = False
    return new, removed


def _conditions(state: Mapping[str, Any], body: int, stat: str) -> list[Text]:
    """``Stun: Light``, ``Physical: Serious``, then ``Unconscious`` and ``Dying`` or
    ``Stabilised``, or ``Dead``: shared texts, rendered per client's language."""
    out = []
    for key in ("stun", "physical"):
        level = wound_level(state.get(key, 0))
        if level is not None:
            out.append(conditions.CONDITION[(key, level)])
    if stat == "dead":
        out.append(conditions.DEAD)
        return out
    if state.get("stun", 0) >= MONITOR_BOXES or is_dying(state, body):
        out.append(conditions.UNCONSCIOUS)
    if is_dying(state, body):
        out.append(conditions.STABILISED if state.get("stabilised", False) else conditions.DYING)
    return out


def common_state(state: Mapping[str, Any], body: int, *, boxes: bool = True) -> CommonState:
    """The common damage shape; ``boxes=False`` leaves out the tracks (what
    players see of an NPC: status and wound levels only).

    It is read from the state's four boxes and flags alone (its ``stun``,
    ``physical``, ``overflow`` and ``stabilised``) and Body: an immutable
    :class:`~rollbridge.contract.CommonState`, made once for each of them and shared
    by every view of an actor in that state (each table event shows its actors to the
    GM and to players, and damage and healing bring an actor back to states it had)."""
    boxes = bool(boxes)  # keyed as the bool it is read as (a list: unhashable)
    stun = state.get("stun", 0)
    physical = state.get("physical", 0)
    overflow = state.get("overflow", 0)
    stabilised = state.get("stabilised", False)
    if (
        stun.__class__ is not int
        or physical.__class__ is not int
        or overflow.__class__ is not int
        or stabilised.__class__ is not bool
        or body.__class__ is not int
    ):  # not a state the schema lets through (a store's written outside the protocol)
        if any(state.get(key).__class__ is bool for key in _BOXES):
            return common_state(_boxes_as_ints(state), body, boxes=boxes)
        return _common_state(state, body, boxes)  # made as it is, not kept
    key = (stun, physical, overflow, stabilised, body, boxes)
    found = _COMMON.get(key)
    if found is None:
        if len(_COMMON) >= MAX_COMMON:  # a bound, not a policy: states recur
            _COMMON.clear()
        found = _COMMON[key] = _common_state(state, body, boxes)
    return found


#: The boxes of a state :func:`common_state` draws as tracks (SR-11).
_BOXES = ("stun", "physical", "overflow")


def _boxes_as_ints(state: Mapping[str, Any]) -> dict[str, Any]:
    """``state`` with each box that is a bool read as the integer it counts as (a
    store written outside the protocol: the schema refuses a bool box), so that its
    tracks are drawn as every client draws boxes, ``1`` and not ``true`` (SR-11)."""
    return {
        key: int(value) if key in _BOXES and value.__class__ is bool else value
        for key, value in state.items()
    }


#: The common states :func:`common_state` made, by the boxes, flag, Body and
#: ``boxes`` they were made of; at most :data:`MAX_COMMON`.
_COMMON: dict[tuple[int, int, int, bool, int, bool], CommonState] = {}
#: How many common states are kept: in one process, for all its tables (~1.5 MB at
#: the bound, measured). One Body has 11 × 11 boxes × (Body + 2) overflows × 2 × 2
#: states (1,452 at Body 1, 25,168 at Body 50), of which a table meets a few dozen;
#: past the bound all are dropped and made again as they are shown (a dict's clear and
#: set: no thread sees one half done).
MAX_COMMON = 4096


def _common_state(state: Mapping[str, Any], body: int, boxes: bool) -> CommonState:
    """:func:`common_state` made from ``state`` (nothing kept)."""
    stat = status(state, body)
    modifier = wound_modifier(state)
    tracks: tuple[Track, ...] = ()
    if boxes:
        label = conditions.TRACK_LABEL
        tracks = (
            Track("stun", label["stun"], state.get("stun", 0), MONITOR_BOXES),
            Track("physical", label["physical"], state.get("physical", 0), MONITOR_BOXES),
            Track("overflow", label["overflow"], min(state.get("overflow", 0), body), body),
        )
    return CommonState(
        status=stat,  # type: ignore[arg-type]
        tracks=tracks,
        conditions=tuple(_conditions(state, body, stat)),
        modifier=modifier,
        modifier_note=conditions.note(modifier) if modifier else "",
    )
