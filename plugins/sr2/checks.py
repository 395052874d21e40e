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
        f"params.{key}: must be a whole number ≥ {low}, got {value!r}",
        details={"field": f"params.{key}"},
    )


def signed_param(params: Mapping[str, Any], key: str) -> int | None:
    value = params.get(key)
    if value is None or value.__class__ is int:
        return value
    raise InvalidParams(
        f"params.{key}: must be a whole number, got {value!r}",
        details={"field": f"params.{key}"},
    )


def one_target(context: ActionContext) -> Actor:
    if len(context.targets) != 1:
        raise InvalidParams(
            f"{context.action} needs exactly one target, got {len(context.targets)}",
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
                f"{actor.name} ({role}) does not have {asked} Combat Pool dice left this turn",
                code="pool_exhausted",
                details={"actor": actor.id, "asked": asked},
            )
        raise RuleViolation(
            f"{actor.name} ({role}) has {left} Combat Pool dice left this turn "
            f"and cannot spend {asked}",
            code="pool_exhausted",
            details={"actor": actor.id, "left": left, "asked": asked},
        )
