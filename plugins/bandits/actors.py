"""Reading actors: their state (normalised to their sheet's kind) and whether they may act."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rollbridge.contract import Actor
from rollbridge.exceptions import RuleViolation

from . import sheet as sheets
from .state import can_act, normalise

__all__ = ["require_able", "require_bandit", "state_of"]


def state_of(actor: Actor) -> dict[str, Any]:
    """A fresh, complete copy of the actor's state (never the input mapping)."""
    return normalise(actor.state or {}, sheets.kind(actor.sheet))


def require_able(
    actor: Actor,
    settings: Mapping[str, Any],
    doing: str,
    state: Mapping[str, Any] | None = None,
) -> None:
    """Refuse (``actor_dead`` / ``cannot_act``) if ``actor`` may not act.

    :param state: the actor's :func:`state_of`, when the caller has it already.
    """
    if state is None:
        state = state_of(actor)
    able, why = can_act(state, dying_can_act=bool(settings.get("dying_can_act", False)))
    if able:
        return
    message, details = f"{actor.name} {why}, so cannot {doing}", {"actor": actor.id}
    if state.get("dead"):
        raise RuleViolation(message, code="actor_dead", details=details)
    raise RuleViolation(message, code="cannot_act", details=details)


def require_bandit(actor: Actor, doing: str) -> None:
    """Refuse (``not_a_bandit``) when ``actor`` is an extra."""
    if not sheets.is_bandit(actor.sheet):
        raise RuleViolation(
            f"{actor.name} is an extra: {doing} works only on bandits",
            code="not_a_bandit",
            details={"actor": actor.id},
        )
