"""The sr2 ruleset object: dispatch, turn hooks, views, direct adjustment."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rollbridge.contract import (
    ActionContext,
    Actor,
    CommonState,
    Odds,
    PlayerView,
    Resolution,
    Ruleset,
    Statistics,
    TurnContext,
)
from rollbridge.dice import DiceSource
from rollbridge.exceptions import InvalidParams, UnknownAction

from . import care, monitor, privacy
from .action_texts import RULESET_SUMMARY
from .actions import ACTIONS
from .combat import resolve_attack, resolve_damage
from .odds import odds as action_odds
from .refill import refill
from .refusals import BAD_DELTA, NO_ACTION, NO_TRACK
from .sheet import (
    EXAMPLE_SHEETS,
    SETTINGS_SCHEMA,
    SHEET_SCHEMA,
    STATE_SCHEMA,
    check_sheet,
    initial_state,
    state_schema_for,
)
from .stats import STATISTICS
from .success import resolve_success_test

__all__ = ["SR2Ruleset"]

TRACK_KEYS = ("stun", "physical", "overflow")


class SR2Ruleset(Ruleset):
    """Dice pools and staged damage, Shadowrun 2nd edition style (docs/rulesets/sr2.md)."""

    id = "sr2"
    name = "SR2: dice pools and staged damage"
    version = "1.1.0"
    #: 2: the new combat turn's line names each actor by its name (1: by its id).
    words = 2
    summary = RULESET_SUMMARY()
    actions = ACTIONS
    sheet_schema = SHEET_SCHEMA
    state_schema = STATE_SCHEMA
    settings_schema = SETTINGS_SCHEMA
    example_sheets = EXAMPLE_SHEETS

    # -- sheet and state ------------------------------------------------------

    def validate_sheet(self, sheet: Mapping[str, Any]) -> dict[str, Any]:
        checked = super().validate_sheet(sheet)
        check_sheet(checked)
        return checked

    def initial_state(self, sheet: Mapping[str, Any]) -> dict[str, Any]:
        return initial_state(sheet)

    def state_schema_for(self, sheet: Mapping[str, Any]) -> Mapping[str, Any]:
        """Overflow at most Body + 1 (SR-11, SR-13), the pool at most the Combat Pool (SR-14)."""
        return state_schema_for(sheet)

    def common_state(self, actor: Actor) -> CommonState:
        return monitor.common_state(actor.state, monitor.body_of(actor.sheet))

    def player_view(self, actor: Actor, settings: Mapping[str, Any]) -> PlayerView:
        """Players see an NPC's status, wound levels and modifier; the boxes
        only with ``show_npc_details``, the sheet only with ``show_npc_sheet``."""
        details = bool(settings.get("show_npc_details", False))
        common = monitor.common_state(actor.state, monitor.body_of(actor.sheet), boxes=details)
        return PlayerView(
            common=common,
            sheet=dict(actor.sheet) if settings.get("show_npc_sheet", False) else None,
            state=dict(actor.state) if details else None,
        )

    def reveals(self, aspect: str, settings: Mapping[str, Any]) -> bool:
        """``show_npc_sheet`` shows players an NPC's ``sheet`` values (Body, armour,
        pool split, skill, recoil compensation and the TNs built from them),
        ``show_npc_details`` its ``details`` (its boxes), either its ``pool``
        refilled (see :mod:`.privacy`)."""
        return privacy.reveals(aspect, settings)

    def adjust(
        self,
        actor: Actor,
        track: str,
        delta: int,
        settings: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """A GM's direct change of ``stun``, ``physical`` or ``overflow``.

        Damage (delta > 0) carries like SR-11 (Stun → Physical → overflow; Stun past
        10 is lost where the table's ``stun_carry`` is off);
        healing (delta < 0) follows SR-15 (healing Physical removes overflow
        first). Unlike the ``heal`` action this also works on the dead (a GM
        correcting a mistake).
        """
        if track not in TRACK_KEYS:
            raise InvalidParams(
                NO_TRACK(track=repr(track), tracks=", ".join(TRACK_KEYS)),
                details={"field": "track"},
            )
        if isinstance(delta, bool) or not isinstance(delta, int):
            raise InvalidParams(BAD_DELTA(value=repr(delta)))
        body = monitor.body_of(actor.sheet)
        if delta > 0:
            if track == "overflow":
                new = dict(actor.state)
                new["overflow"] = min(body + 1, new.get("overflow", 0) + delta)
                new["stabilised"] = False
                return new
            carry = bool((settings or {}).get("stun_carry", True))
            return monitor.apply_damage(actor.state, body, delta, track, stun_carry=carry)[0]
        if delta < 0:
            return monitor.heal(actor.state, track, -delta)[0]
        return dict(actor.state)

    # -- actions ------------------------------------------------------------

    def resolve(self, context: ActionContext, dice: DiceSource) -> Resolution:
        handler = _HANDLERS.get(context.action)
        if handler is None:
            raise UnknownAction(
                NO_ACTION(action=repr(context.action), actions=", ".join(ACTIONS)),
                details={"action": context.action},
            )
        return handler(context, dice)

    def odds(self, context: ActionContext) -> Odds | None:
        """The exact odds of an ``attack`` (botch, miss, no damage, the level taken
        with overflow, SR-6 to SR-10), of ``damage`` (SR-9, SR-10) and of a
        ``success_test`` (botch, no success, each number of successes, SR-16),
        refused as :meth:`resolve` refuses; None for the actions without dice
        (see :mod:`.odds`)."""
        return action_odds(context)

    def statistics(self) -> Statistics:
        """Attacks, hits, damage levels and boxes dealt and taken (:mod:`.stats`)."""
        return STATISTICS

    # -- turn hooks ----------------------------------------------------------

    def on_round_start(self, context: TurnContext, dice: DiceSource) -> Resolution | None:
        """SR-14: each new combat turn (round) refills every participant's pool."""
        return refill(context.participants, round_number=context.round, words=context.words)


def _new_turn(context: ActionContext, dice: DiceSource) -> Resolution:
    """SR-14: a new combat turn refills every Combat Pool."""
    return refill(context.targets, words=context.words)


_HANDLERS: dict[str, Callable[[ActionContext, DiceSource], Resolution]] = {
    "success_test": resolve_success_test,
    "attack": resolve_attack,
    "damage": resolve_damage,
    "heal": care.heal,
    "bleed": care.bleed,
    "stabilise": care.stabilise,
    "new_turn": _new_turn,
}
