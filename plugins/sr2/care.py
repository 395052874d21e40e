"""The GM's care of the wounded: heal (SR-15), bleed and stabilise (SR-13).

The boxes healed or bled are the target's details (aspect ``details``) and its Body
is its sheet (aspect ``sheet``): players who may not see them read the narration
and steps without them (:mod:`.privacy`).
"""

from __future__ import annotations

from rollbridge.contract import ActionContext, Resolution
from rollbridge.dice import DiceSource
from rollbridge.exceptions import InvalidParams, RuleViolation
from rollbridge.text import Private

from . import monitor
from . import refusals as refused
from .checks import count_param, one_target
from .messages import (
    BLEED_STEP,
    BLEED_STEP_HIDDEN,
    BLEED_STEP_LIMIT,
    BLEEDS,
    BLEEDS_HIDDEN,
    BLEEDS_LIMIT,
    HEAL_NOTHING,
    HEAL_PART,
    HEAL_REMOVED,
    HEAL_STEP,
    HEALS,
    HEALS_HIDDEN,
    LINE,
    STABILISED,
    STABILISED_STEP,
)
from .privacy import DETAILS, SHEET
from .words import STATUS, TRACK

__all__ = ["bleed", "heal", "stabilise"]


def heal(context: ActionContext, dice: DiceSource) -> Resolution:
    """SR-15: remove boxes from a monitor; Physical heals overflow first."""
    target = one_target(context)
    which = context.params.get("monitor")
    if which not in ("physical", "stun"):
        raise InvalidParams(
            refused.BAD_MONITOR(value=repr(which)),
            details={"field": "params.monitor"},
        )
    boxes = count_param(context.params, "boxes", 1, low=1)
    body = monitor.body_of(target.sheet)
    if monitor.is_dead(target.state, body):
        raise RuleViolation(
            refused.HEAL_DEAD(target=target.name),
            code="actor_dead",
            details={"actor": target.id},
        )
    new, removed = monitor.heal(target.state, which, boxes)
    healed = sum(removed.values())
    new_status = monitor.status(new, body)
    parts = [HEAL_PART(track=TRACK[k], count=v) for k, v in removed.items() if v]
    word, track = STATUS[new_status], TRACK[which]
    told = HEALS(target=target.name, count=healed, monitor=track, status=word)
    public = HEALS_HIDDEN(target=target.name, monitor=track, status=word)
    return Resolution(
        narration=LINE(line=Private(told, target.id, DETAILS, public)),
        outcome={
            "monitor": which,
            "asked": boxes,
            "healed": Private(healed, target.id, DETAILS),
            "removed": Private(removed, target.id, DETAILS),
            "status": new_status,
        },
        states={target.id: new},
        steps=[
            HEAL_STEP(
                boxes=boxes,
                monitor=track,
                removed=Private(
                    HEAL_REMOVED(parts=parts or HEAL_NOTHING()), target.id, DETAILS, ""
                ),
            )
        ],
    )


def bleed(context: ActionContext, dice: DiceSource) -> Resolution:
    """SR-13: a dying, unstabilised character takes overflow boxes."""
    target = one_target(context)
    boxes = count_param(context.params, "boxes", 1, low=1)
    body = monitor.body_of(target.sheet)
    state = target.state
    if monitor.is_dead(state, body):
        raise RuleViolation(
            refused.ALREADY_DEAD(target=target.name),
            code="actor_dead",
            details={"actor": target.id},
        )
    if not monitor.is_dying(state, body):
        raise RuleViolation(
            refused.NOT_DYING_BOXES(target=target.name, physical=state.get("physical", 0)),
            code="not_dying",
            details={"actor": target.id},
        )
    if state.get("stabilised", False):
        raise RuleViolation(
            refused.STABILISED(target=target.name),
            code="stabilised",
            details={"actor": target.id},
        )
    before = state.get("overflow", 0)
    new = dict(state)
    new["overflow"] = after = min(body + 1, before + boxes)
    new_status = monitor.status(new, body)
    who, word = target.id, STATUS[new_status]
    told = BLEEDS(
        target=target.name,
        overflow=after,
        limit=Private(BLEEDS_LIMIT(body=body), who, SHEET, ""),
        status=word,
    )
    line = BLEED_STEP(
        before=before,
        after=after,
        limit=Private(BLEED_STEP_LIMIT(body=body), who, SHEET, ""),
        status=word,
    )
    return Resolution(
        narration=LINE(
            line=Private(told, who, DETAILS, BLEEDS_HIDDEN(target=target.name, status=word))
        ),
        outcome={
            "boxes": boxes,
            "overflow": Private(after, who, DETAILS),
            "crossed": Private(after - before, who, DETAILS),
            "status": new_status,
        },
        states={who: new},
        steps=[LINE(line=Private(line, who, DETAILS, BLEED_STEP_HIDDEN(status=word)))],
    )


def stabilise(context: ActionContext, dice: DiceSource) -> Resolution:
    """SR-13: a dying character stops bleeding (until hurt again)."""
    target = one_target(context)
    body = monitor.body_of(target.sheet)
    state = target.state
    if monitor.is_dead(state, body):
        raise RuleViolation(
            refused.ACTOR_DEAD(target=target.name), code="actor_dead", details={"actor": target.id}
        )
    if not monitor.is_dying(state, body):
        raise RuleViolation(
            refused.NOT_DYING(target=target.name), code="not_dying", details={"actor": target.id}
        )
    if state.get("stabilised", False):
        raise RuleViolation(
            refused.ALREADY_STABILISED(target=target.name),
            code="already_stabilised",
            details={"actor": target.id},
        )
    new = {**state, "stabilised": True}
    return Resolution(
        narration=STABILISED(target=target.name),
        outcome={"stabilised": True, "status": monitor.status(new, body)},
        states={target.id: new},
        steps=[STABILISED_STEP()],
    )
