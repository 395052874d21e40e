"""Parameter and Combat Pool checks shared by the actions.

The engine validates parameters against each action's schema first; these
checks guard the ruleset when it is called directly (tests, embedding) and
cover what a schema cannot say.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rollbridge.contract import ActionContext, Actor
from rollbridge.exceptions import InvalidParams, RuleViolation

from .refusals import NOT_SIGNED, NOT_WHOLE, ONE_TARGET, POOL_LEFT, POOL_NOT_LEFT, ROLES

__all__ = ["check_pool", "count_param", "one_target", "signed_param"]


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
