"""What wounds do: BD-6 (a bandit's slots), BD-8 (dying), BD-9 (extras),
BD-10 (medpacks) and BD-11 (the end of a raid). Pure functions on state dicts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rollbridge.exceptions import RuleViolation

from . import wound_texts as why
from .messages import (
    ALREADY_STABILISED,
    DEAD_NOT_STABILISED,
    KEPT_NOT_MARKED,
    MEDPACK_DEAD,
    MEDPACK_ONLY_DYING,
    MEDPACK_USELESS,
    NO_WOUNDS,
    NOT_DYING,
    UNKNOWN,
)
from .state import SLOT_NAMES, marked, normalise, with_marked

__all__ = ["die", "end_raid", "hit_bandit", "hit_extra", "medpack", "stabilise"]

#: What the functions report: ``reason`` is a :class:`~rollbridge.text.Text`
#: (:mod:`.wound_texts`).
Info = dict[str, Any]


def _dead(state: Mapping[str, Any]) -> dict[str, Any]:
    out = normalise(state, "bandit")
    out.update(dead=True, dying=False, stabilised=False, dying_turn_started=False)
    out["dual_wield"] = None
    return out


def hit_bandit(
    state: Mapping[str, Any], wounds: int, *, lasting: bool = False
) -> tuple[dict[str, Any], Info]:
    """BD-6: a hit of ``wounds`` marks slot ``wounds`` if free, else the nearest
    free slot above it; 5+ wounds, or no free slot up to 4, is death.

    :param lasting: the BD-7 variant is on (setting ``heavy_wound_lasts_the_raid``):
        marking slot 3 keeps the disadvantage until the raid ends (``heavy_this_raid``).
    """
    current = marked(state)
    info: Info = {"slot": None, "slot_name": None}
    if wounds <= 0:
        info.update(result="unhurt", reason=why.NO_SLOT)
        return normalise(state, "bandit"), info
    if wounds >= 5:
        info.update(result="dead", reason=why.over_four(wounds))
        return _dead(state), info
    free = [s for s in range(wounds, 5) if s not in current]
    if not free:
        info.update(result="dead", reason=why.no_free_slot(wounds))
        return _dead(state), info
    slot = free[0]
    new = with_marked(state, [*current, slot])
    if lasting and slot == 3:
        new["heavy_this_raid"] = True
    info.update(
        slot=slot,
        slot_name=SLOT_NAMES[slot],
        result="dying" if slot == 4 else "marked",
        reason=why.slot_marked(wounds, slot),
    )
    return new, info


def hit_extra(state: Mapping[str, Any], wounds: int) -> tuple[dict[str, Any], Info]:
    """BD-9: one wound leaves an extra wounded, or out if it already was; two or
    more in one hit take it out."""
    out = normalise(state, "extra")
    if wounds <= 0:
        return out, {"result": "unhurt", "reason": why.EXTRA_NOT_WOUNDED}
    if wounds >= 2:
        out.update(wounded=True, out=True)
        return out, {"result": "out", "reason": why.extra_out(wounds)}
    if out["wounded"]:
        out["out"] = True
        return out, {"result": "out", "reason": why.EXTRA_OUT_AGAIN_REASON}
    out["wounded"] = True
    return out, {"result": "wounded", "reason": why.EXTRA_WOUNDED_REASON}


def die(state: Mapping[str, Any]) -> dict[str, Any]:
    """BD-8: a dying bandit nobody stabilised dies."""
    return _dead(state)


def stabilise(state: Mapping[str, Any]) -> dict[str, Any]:
    """BD-8: a dying bandit is stabilised (alive, cannot act)."""
    if state.get("dead"):
        raise RuleViolation(DEAD_NOT_STABILISED(), code="target_dead")
    if not state.get("dying"):
        raise RuleViolation(NOT_DYING(), code="not_dying")
    if state.get("stabilised"):
        raise RuleViolation(ALREADY_STABILISED(), code="already_stabilised")
    out = normalise(state, "bandit")
    out.update(stabilised=True, dying_turn_started=False)
    return out


def medpack(
    state: Mapping[str, Any], n: int, *, lasting: bool = False
) -> tuple[dict[str, Any], Info]:
    """BD-10: a medpack-``n`` clears the most serious marked slot ≤ n, or else moves
    the most serious marked slot s > n whose slot s − n is free down to s − n.
    Slot 4 (dying) is never touched (Decision).

    :param lasting: the BD-7 variant is on: a bandit whose slot 3 the medpack clears
        or moves down was heavily wounded this raid, however slot 3 came to be
        marked (a harm roll, the GM's ``adjust``, a wound kept from the last raid),
        and keeps the disadvantage until the raid ends (``heavy_this_raid``).
    """
    new, info = _medpack(state, n)
    if lasting and info["from_slot"] == 3:
        new["heavy_this_raid"] = True
    return new, info


def _medpack(state: Mapping[str, Any], n: int) -> tuple[dict[str, Any], Info]:
    """:func:`medpack`, without BD-7's variant."""
    if state.get("dead"):
        raise RuleViolation(MEDPACK_DEAD(), code="target_dead")
    current = marked(state)
    healable = [s for s in current if s <= 3]
    if not healable:
        if 4 in current:
            raise RuleViolation(
                MEDPACK_ONLY_DYING(),
                code="medpack_cannot_help",
            )
        raise RuleViolation(NO_WOUNDS(), code="no_wounds")
    clearable = [s for s in healable if s <= n]
    if clearable:
        slot = max(clearable)
        new = with_marked(state, [s for s in current if s != slot])
        return new, {
            "effect": "cleared",
            "from_slot": slot,
            "to_slot": None,
            "reason": why.medpack_cleared(slot, n),
        }
    movable = [s for s in healable if s > n and s - n >= 1 and (s - n) not in current]
    if not movable:  # pragma: no cover - unreachable: see docs/rulesets/bandits.md
        raise RuleViolation(
            MEDPACK_USELESS(n=n),
            code="medpack_cannot_help",
        )
    slot = max(movable)
    to = slot - n
    new = with_marked(state, [*(s for s in current if s != slot), to])
    return new, {
        "effect": "reduced",
        "from_slot": slot,
        "to_slot": to,
        "reason": why.medpack_reduced(n, slot, to),
    }


def end_raid(state: Mapping[str, Any], keep: int | None) -> dict[str, Any]:
    """BD-11: every slot is cleared except the wound the player keeps as a getaway trouble."""
    if state.get("dead"):
        return normalise(state, "bandit")
    current = marked(state)
    if keep is not None and keep not in current:
        raise RuleViolation(
            KEPT_NOT_MARKED(slot=keep, label=why.SLOT_TEXT.get(keep, UNKNOWN)),
            code="kept_wound_not_marked",
        )
    out = with_marked(state, [keep] if keep is not None else [])
    out["dual_wield"] = None
    out["heavy_this_raid"] = False  # the raid is over (a kept slot 3 still counts, BD-7)
    return out
