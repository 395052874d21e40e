"""Helping a wounded bandit during a raid: medpacks (BD-10) and stabilising (BD-8).

The patient's new state is its own (:func:`.privacy.of_state`); which slots a
medpack cleared or moved stays visible, as the common state's conditions show them.
"""

from __future__ import annotations

from functools import lru_cache

from rollbridge.contract import ActionContext, Resolution
from rollbridge.dice import DiceSource
from rollbridge.text import Text

from .actors import require_able, require_bandit, state_of
from .messages import (
    MEANS,
    MEDPACK_CLEARS,
    MEDPACK_ON,
    MEDPACK_REDUCES,
    MEDPACK_STEP,
    MEDPACK_USED,
    STABILISE_STEP,
    STABILISED,
    STABILISED_BY,
)
from .privacy import of_state
from .state import marked
from .wound_texts import SLOT_TEXT, medpack_cleared, medpack_reduced
from .wounds import medpack, stabilise

__all__ = ["resolve_medpack", "resolve_stabilise"]

#: The means of stabilising → how the narration says it, and the step.
_STABILISING = {
    means: (message(), STABILISE_STEP(how=message())) for means, message in MEANS.items()
}


def resolve_medpack(context: ActionContext, dice: DiceSource) -> Resolution:
    """BD-10: a medpack-N clears or moves down one marked slot of the target bandit."""
    target = context.targets[0]
    n = int(context.params["n"])
    require_bandit(target, "medpack")
    if context.actor is not None:
        require_able(context.actor, context.settings, "medpack")
    before = state_of(target)
    lasting = bool(context.settings.get("heavy_wound_lasts_the_raid", False))
    after, info = medpack(before, n, lasting=lasting)
    from_slot, to_slot = info["from_slot"], info["to_slot"]
    slots_before, slots_after = marked(before), marked(after)
    effect, step = _medpack_texts(n, from_slot, to_slot, tuple(slots_before), tuple(slots_after))
    if context.actor is not None:
        narration = MEDPACK_USED(user=context.actor.name, n=n, target=target.name, effect=effect)
    else:
        narration = MEDPACK_ON(n=n, target=target.name, effect=effect)
    outcome = {
        "action": "medpack",
        "n": n,
        "target": target.id,
        "effect": info["effect"],
        "from_slot": from_slot,
        "to_slot": to_slot,
        "slots_before": slots_before,
        "slots_after": slots_after,
        "state": of_state(target.id, after),
    }
    return Resolution(narration, outcome, [], {target.id: after}, [step])


@lru_cache(maxsize=1024)
def _medpack_texts(
    n: int, from_slot: int, to_slot: int | None, before: tuple[int, ...], after: tuple[int, ...]
) -> tuple[Text, Text]:
    """What a medpack did (for the narration) and its step; made once per case."""
    if to_slot is None:
        effect = MEDPACK_CLEARS(label=SLOT_TEXT[from_slot], slot=from_slot)
        reason = medpack_cleared(from_slot, n)
    else:
        effect = MEDPACK_REDUCES(
            label=SLOT_TEXT[from_slot], slot=from_slot, to_label=SLOT_TEXT[to_slot], to=to_slot
        )
        reason = medpack_reduced(n, from_slot, to_slot)
    return effect, MEDPACK_STEP(n=n, before=list(before), after=list(after), reason=reason)


def resolve_stabilise(context: ActionContext, dice: DiceSource) -> Resolution:
    """BD-8: a doc or a special item stabilises the dying target bandit."""
    target = context.targets[0]
    require_bandit(target, "stabilise")
    if context.actor is not None:
        require_able(context.actor, context.settings, "stabilise")
    means = context.params.get("means", "doc")
    after = stabilise(state_of(target))
    how, step = _STABILISING["doc" if means == "doc" else "item"]
    if context.actor is not None:
        narration = STABILISED_BY(target=target.name, how=how, helper=context.actor.name)
    else:
        narration = STABILISED(target=target.name, how=how)
    outcome = {
        "action": "stabilise",
        "target": target.id,
        "means": means,
        "state": of_state(target.id, after),
    }
    return Resolution(narration, outcome, [], {target.id: after}, [step])
