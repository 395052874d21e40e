"""Parameter and Combat Pool checks shared by the actions.

The engine validates parameters against each action's schema first; these
checks guard the ruleset when it is called directly (tests, embedding) and
cover what a schema cannot say.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rollbridge.contract import ActionContext, Actor
from rollbridge.exceptions import InvalidParams, RuleViolation

from .monitor import wound_modifier
from .refusals import (
    DICE_AND_TN,
    NOT_SIGNED,
    NOT_WHOLE,
    ONE_TARGET,
    POOL_LEFT,
    POOL_NOT_LEFT,
    POOL_WITHOUT_ACTOR,
    ROLES,
)

__all__ = [
    "SuccessPlan",
    "check_pool",
    "count_param",
    "one_target",
    "plan_success_test",
    "signed_param",
]


def count_param(params: Mapping[str, Any], key: str, default: int | None = 0, low: int = 0) -> Any:
    """A whole-number parameter ≥ ``low`` (the schema says so too; this guards
    direct calls that skip the engine's validation)."""
    value = params.get(key, default)
    if value.__class__ is int and value >= low:
        return value
    if value is None:
        return None
    raise InvalidParams(
        NOT_WHOLE(key=key, low=low, value=repr(value)),
        details={"field": f"params.{key}"},
    )


def signed_param(params: Mapping[str, Any], key: str) -> int | None:
    """A whole-number parameter of any sign, or None when not given."""
    value = params.get(key)
    if value is None or value.__class__ is int:
        return value
    raise InvalidParams(
        NOT_SIGNED(key=key, value=repr(value)),
        details={"field": f"params.{key}"},
    )


def one_target(context: ActionContext) -> Actor:
    """The one target of an action that needs exactly one."""
    if len(context.targets) != 1:
        raise InvalidParams(
            ONE_TARGET(action=context.action, count=len(context.targets)),
            details={"field": "targets"},
        )
    return context.targets[0]


def check_pool(actor: Actor, left: int, asked: int, role: str, *, reveal: bool = True) -> None:
    """SR-14: spending more Combat Pool than is left is refused.

    With ``reveal=False`` (a player's request about someone else's pool, maybe an
    NPC's) the refusal does not say how many dice are left.
    """
    if asked > left:
        if not reveal:
            raise RuleViolation(
                POOL_NOT_LEFT(actor=actor.name, role=ROLES[role](), asked=asked),
                code="pool_exhausted",
                details={"actor": actor.id, "asked": asked},
            )
        raise RuleViolation(
            POOL_LEFT(actor=actor.name, role=ROLES[role](), left=left, asked=asked),
            code="pool_exhausted",
            details={"actor": actor.id, "left": left, "asked": asked},
        )


@dataclass(slots=True)
class SuccessPlan:
    """A success test (SR-16) before any die: the dice, the TN before SR-2's floor
    (the given TN plus, when asked, the actor's wound modifier, SR-12) and SR-3's
    setting.

    :ivar dice: the dice given; :ivar pool: Combat Pool dice the actor adds (SR-14).
    :ivar tn_raw: the TN before the floor; :ivar rule_of_one: the table's SR-3 setting.
    """

    dice: int
    pool: int
    tn_raw: int
    rule_of_one: bool

    @property
    def count(self) -> int:
        """Dice rolled: the dice given plus the pool spent."""
        return self.dice + self.pool


def plan_success_test(context: ActionContext) -> SuccessPlan:
    """The :class:`SuccessPlan` of ``success_test``, refused as
    :func:`.success.resolve_success_test` refuses (a missing dice count or TN, pool
    dice without an actor, more pool than is left), in the same order."""
    params = context.params
    count = count_param(params, "dice", None)
    tn = signed_param(params, "tn")
    if count is None or tn is None:
        raise InvalidParams(DICE_AND_TN(), details={"field": "params"})
    pool = count_param(params, "pool")
    actor = context.actor
    if pool and actor is None:
        raise InvalidParams(POOL_WITHOUT_ACTOR(), details={"field": "params.pool"})
    raw = tn
    if actor is not None:
        if params.get("wound_modifier", False):
            raw += wound_modifier(actor.state)
        if pool:
            check_pool(actor, actor.state.get("pool", 0), pool, "tester")
    return SuccessPlan(count, pool, raw, context.settings.get("rule_of_one", True))
