"""Reading actors: their state (normalised to their sheet's kind) and whether they may act."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rollbridge.contract import Actor
from rollbridge.exceptions import RuleViolation

from . import sheet as sheets
from .messages import CANNOT_ACT, DOING, NOT_A_BANDIT
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

    :param doing: what it was about to do: a key of :data:`.messages.DOING` (``harm``,
        ``move``, ``medpack``, ``stabilise``).
    :param state: the actor's :func:`state_of`, when the caller has it already.
    """
    if state is None:
        state = state_of(actor)
    able, why = can_act(state, dying_can_act=bool(settings.get("dying_can_act", True)))
    if able:
        return
    message = CANNOT_ACT[why](actor=actor.name, doing=DOING[doing]())
    details = {"actor": actor.id}
    if state.get("dead"):
        raise RuleViolation(message, code="actor_dead", details=details)
    raise RuleViolation(message, code="cannot_act", details=details)


def require_bandit(actor: Actor, doing: str) -> None:
    """Refuse (``not_a_bandit``) when ``actor`` is an extra.

    :param doing: what works only on bandits: ``medpack`` or ``stabilise``.
    """
    if not sheets.is_bandit(actor.sheet):
        raise RuleViolation(
            NOT_A_BANDIT[doing](actor=actor.name),
            code="not_a_bandit",
            details={"actor": actor.id},
        )
