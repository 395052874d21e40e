"""Helping a wounded bandit during a raid: medpacks (BD-10) and stabilising (BD-8)."""

from __future__ import annotations

from rollbridge.contract import ActionContext, Resolution
from rollbridge.dice import DiceSource

from .actors import require_able, require_bandit, state_of
from .state import SLOT_LABELS, marked
from .wounds import medpack, stabilise

__all__ = ["resolve_medpack", "resolve_stabilise"]


def resolve_medpack(context: ActionContext, dice: DiceSource) -> Resolution:
    target = context.targets[0]
    n = int(context.params["n"])
    require_bandit(target, "a medpack")
    if context.actor is not None:
        require_able(context.actor, context.settings, "use a medpack")
    before = state_of(target)
    after, info = medpack(before, n)
    if info["effect"] == "cleared":
        effect = f"clears {SLOT_LABELS[info['from_slot']]} (slot {info['from_slot']})"
    else:
        effect = (
            f"reduces {SLOT_LABELS[info['from_slot']]} (slot {info['from_slot']}) to "
            f"{SLOT_LABELS[info['to_slot']]} (slot {info['to_slot']})"
        )
    if context.actor is not None:
        narration = f"{context.actor.name} uses a medpack-{n} on {target.name}: {effect}"
    else:
        narration = f"Medpack-{n} on {target.name}: {effect}"
    outcome = {
        "action": "medpack",
        "n": n,
        "target": target.id,
        "effect": info["effect"],
        "from_slot": info["from_slot"],
        "to_slot": info["to_slot"],
        "slots_before": marked(before),
        "slots_after": marked(after),
        "state": after,
    }
    steps = [f"medpack-{n} (BD-10): slots {marked(before)} → {marked(after)}: {info['reason']}"]
    return Resolution(narration, outcome, [], {target.id: after}, steps)


def resolve_stabilise(context: ActionContext, dice: DiceSource) -> Resolution:
    target = context.targets[0]
    require_bandit(target, "stabilising")
    if context.actor is not None:
        require_able(context.actor, context.settings, "stabilise anyone")
    means = context.params.get("means", "doc")
    after = stabilise(state_of(target))
    how = "a doc" if means == "doc" else "a special item"
    by = f" by {context.actor.name}" if context.actor is not None else ""
    narration = f"{target.name} is stabilised with {how}{by}: alive, but can no longer act (BD-8)"
    outcome = {"action": "stabilise", "target": target.id, "means": means, "state": after}
    steps = [f"BD-8: dying and helped by {how}: stabilised; slot 4 stays marked"]
    return Resolution(narration, outcome, [], {target.id: after}, steps)
