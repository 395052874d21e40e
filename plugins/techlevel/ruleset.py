"""The ``techlevel`` ruleset: damage boxes, armour layers and tech levels.

Rules TL-1 to TL-11 of docs/rulesets/techlevel.md; this module only wires
the contract to the modules that implement them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, ClassVar

from rollbridge.contract import (
    ActionContext,
    ActionSpec,
    Actor,
    CommonState,
    Odds,
    PlayerView,
    Resolution,
    Ruleset,
    Statistics,
)
from rollbridge.dice import DiceSource
from rollbridge.exceptions import InvalidSheet, InvalidState, UnknownAction
from rollbridge.schema import validate
from rollbridge.text import Text

from . import care, damage, details, odds, riding, sheet, view, wearing
from . import messages as m
from .action_texts import RULESET_SUMMARY
from .schemas import ACTIONS, EXAMPLE_SHEETS, SETTINGS_SCHEMA, SHEET_SCHEMA
from .state import STATE_SCHEMA, load_state
from .stats import STATISTICS

__all__ = ["TechLevel"]

_NO_DICE: dict[str, Callable[[ActionContext], Resolution]] = {
    "don": wearing.resolve_don,
    "doff": wearing.resolve_doff,
    "enchant": wearing.resolve_enchant,
    "dispel": wearing.resolve_dispel,
    "destroy": wearing.resolve_destroy,
    "mount": riding.resolve_mount,
    "dismount": riding.resolve_dismount,
    "repair": care.resolve_repair,
    "heal": care.resolve_heal,
    "recover": care.resolve_recover,
}


def _invalid_state(path: str, problem: Any) -> InvalidState:
    return InvalidState(m.INVALID(path=path, problem=problem), details={"field": path})


def _loaded(actor: Actor) -> Actor:
    """The actor with its state completed by :func:`load_state`: a new copy, which
    the action changes and returns (:func:`.layers.own_state`)."""
    return Actor(actor.id, actor.name, actor.sheet, load_state(actor.state))


def _loaded_context(context: ActionContext) -> ActionContext:
    """``context`` with its actor and targets loaded (:func:`_loaded`), as every
    action works on them."""
    return replace(
        context,
        actor=_loaded(context.actor) if context.actor is not None else None,
        targets=tuple(_loaded(t) for t in context.targets),
    )


class TechLevel(Ruleset):
    """Damage boxes (SK, KSK, GSK, SSK) struck through layers whose tech level
    divides or multiplies the roll."""

    id: ClassVar[str] = "techlevel"
    name: ClassVar[str] = "TechLevel damage boxes"
    version: ClassVar[str] = "1.0.0"
    summary: ClassVar[str | Text] = RULESET_SUMMARY()
    actions: ClassVar[Mapping[str, ActionSpec]] = ACTIONS
    sheet_schema: ClassVar[Mapping[str, Any]] = SHEET_SCHEMA
    state_schema: ClassVar[Mapping[str, Any]] = STATE_SCHEMA
    settings_schema: ClassVar[Mapping[str, Any]] = SETTINGS_SCHEMA
    example_sheets: ClassVar[Mapping[str, Mapping[str, Any]]] = EXAMPLE_SHEETS

    def validate_sheet(self, sheet_data: Mapping[str, Any]) -> dict[str, Any]:
        checked = validate(self.sheet_schema, sheet_data, where="sheet", error=InvalidSheet)
        sheet.check_sheet(checked)
        return checked

    def initial_state(self, sheet_data: Mapping[str, Any]) -> dict[str, Any]:
        return sheet.initial_state(sheet_data)

    def validate_state(
        self, sheet_data: Mapping[str, Any], state: Mapping[str, Any]
    ) -> dict[str, Any]:
        """The state checked, laid over the fresh state of the sheet — so a state that
        leaves out ``armour`` or ``shield`` keeps what the sheet wears (TL-2, TL-9) —
        and loaded: ``ksk`` kept within its 10 boxes (TL-2, TL-7), ``destroyed`` derived
        again (TL-5); an armour of other than 10 or 20 boxes (TL-11) or ``crossed``
        above ``boxes`` is refused."""
        completed = super().validate_state(sheet_data, state)
        return load_state(completed, _invalid_state)

    def resolve(self, context: ActionContext, dice: DiceSource) -> Resolution:
        context = _loaded_context(context)
        if context.action == "hit":
            return damage.resolve_hit(context, dice)
        handler = _NO_DICE.get(context.action)
        if handler is None:
            raise UnknownAction(f"techlevel has no action {context.action!r}")
        return handler(context)

    def odds(self, context: ActionContext) -> Odds | None:
        """The exact odds of a ``hit``: the boxes the layer struck takes (see
        :mod:`.odds`); None for the actions without dice (wearing, riding, care)."""
        context = _loaded_context(context)
        if context.action == "hit":
            return odds.hit_odds(context)
        if context.action not in _NO_DICE:
            raise UnknownAction(f"techlevel has no action {context.action!r}")
        return None

    def statistics(self) -> Statistics:
        """Hits, penetrations, boxes dealt and taken, immunities, layers destroyed
        (:mod:`.stats`)."""
        return STATISTICS

    def common_state(self, actor: Actor) -> CommonState:
        return view.common_state(load_state(actor.state))

    def player_view(self, actor: Actor, settings: Mapping[str, Any]) -> PlayerView:
        return view.player_view(actor.sheet, load_state(actor.state), settings)

    def reveals(self, aspect: str, settings: Mapping[str, Any]) -> bool:
        """An NPC's details (names, TLs, TL factors, magic, immunities, boxes lost:
        see :mod:`.details`) are shown to players with ``show_npc_details``."""
        return details.reveals(aspect, settings)

    def adjust(self, actor: Actor, track: str, delta: int) -> dict[str, Any]:
        return care.adjust_state(load_state(actor.state), track, delta)
