"""The success test (SR-16): any dice against any TN, with SR-1 to SR-3.

Nothing in it is an NPC's own: the dice and the TN are the request's, and the
wound modifier it may add is public (players see every actor's modifier).
"""

from __future__ import annotations

from typing import Any

from rollbridge.contract import ActionContext, Resolution
from rollbridge.dice import DiceSource

from . import monitor
from .checks import plan_success_test, signed_param
from .messages import POOL_DICE, TEST_BOTCH, TEST_LINE, TEST_TN, TEST_TN_WOUND, TESTED, TESTED_BY
from .rolls import roll_test
from .words import DEFAULT_LABEL, GIVEN, WOUND_MODIFIER, floored, result, successes
from .words import dice as dice_count

#: The schema's default label: said as a text (translated), any other label as typed.
_DEFAULT = "Success test"

__all__ = ["resolve_success_test"]


def resolve_success_test(context: ActionContext, dice: DiceSource) -> Resolution:
    """SR-16: ``dice`` open-ended d6 (plus Combat Pool dice the actor spends)
    against ``tn``, plus the actor's wound modifier when asked (SR-12)."""
    plan = plan_success_test(context)  # the refusals, and what odds counts
    params, actor = context.params, context.actor
    count, pool, raw = plan.dice, plan.pool, plan.tn_raw
    tn = signed_param(params, "tn")
    typed = str(params.get("label", _DEFAULT))
    label: Any = DEFAULT_LABEL if typed == _DEFAULT else typed
    parts: list[dict[str, Any]] = [{"part": GIVEN, "value": tn}]
    states: dict[str, Any] = {}
    if actor is not None:
        if params.get("wound_modifier", False):
            parts.append({"part": WOUND_MODIFIER, "value": monitor.wound_modifier(actor.state)})
        if pool:
            states[actor.id] = {**actor.state, "pool": actor.state.get("pool", 0) - pool}
    roll = roll_test(dice, count + pool, raw, rule_of_one=plan.rule_of_one)
    steps = []
    if len(parts) > 1 or roll.tn != raw:
        wound = TEST_TN_WOUND(modifier=parts[1]["value"]) if len(parts) > 1 else ""
        steps.append(TEST_TN(raw=raw, given=tn, wound=wound, floor=floored(raw, roll.tn)))
    steps.append(
        TEST_LINE(
            label=label,
            dice=POOL_DICE(count=count, pool=pool) if pool else dice_count(count),
            tn=roll.tn,
            chains=roll.chains,
            result=result(roll.successes, roll.botch),
        )
    )
    said = TEST_BOTCH() if roll.botch else successes(roll.successes)
    if actor is not None:
        narration = TESTED_BY(
            actor=actor.name, label=label, dice=count + pool, tn=roll.tn, result=said
        )
    else:
        narration = TESTED(label=label, dice=count + pool, tn=roll.tn, result=said)
    return Resolution(
        narration=narration,
        outcome={
            "dice": count + pool,
            "pool": pool,
            "tn": roll.tn,
            "tn_raw": raw,
            "tn_parts": parts,
            "successes": roll.successes,
            "botch": roll.botch,
            "success": roll.successes > 0,
        },
        dice=[roll.group(label)],
        states=states,
        steps=steps,
    )
