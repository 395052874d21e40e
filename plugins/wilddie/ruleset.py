"""The wilddie ruleset object: the contract methods, dispatching to the modules."""

from __future__ import annotations

from collections.abc import Callable, Mapping
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
    Track,
    TurnContext,
)
from rollbridge.dice import DiceSource
from rollbridge.exceptions import InvalidState, RuleViolation, UnknownAction
from rollbridge.plugins.wilddie import checks, harm, privacy
from rollbridge.plugins.wilddie.action_texts import RULESET_SUMMARY
from rollbridge.plugins.wilddie.actions import ACTIONS, SETTINGS_SCHEMA
from rollbridge.plugins.wilddie.messages import (
    INCAPACITATED_CONDITION,
    ROLL_DIFFICULTY_OR_AGAINST,
    SHAKEN_CONDITION,
    TURN_SHAKEN_PLAYER,
    TURN_SHAKEN_SERVER,
    UNKNOWN_ACTION,
    UNKNOWN_TRACK,
    WOUND_MODIFIER,
    WOUNDS_TRACK,
)
from rollbridge.plugins.wilddie.odds import odds as action_odds
from rollbridge.plugins.wilddie.rolling import signed
from rollbridge.plugins.wilddie.sheet import EXAMPLE_SHEETS, SHEET_SCHEMA, initial_state, is_pc
from rollbridge.plugins.wilddie.state import (
    PC_MAX_WOUNDS,
    STATE_SCHEMA,
    add_wounds,
    copy_state,
    heal_wounds,
    max_wounds,
    state_schema_for,
    wound_modifier,
)
from rollbridge.plugins.wilddie.stats import STATISTICS
from rollbridge.text import Text

__all__ = ["WildDieRuleset"]

_Handler = Callable[[ActionContext, DiceSource], Resolution]


# the common state's texts, made once
_SHAKEN = SHAKEN_CONDITION()
_INCAPACITATED = INCAPACITATED_CONDITION()
_WOUNDS_LABEL = WOUNDS_TRACK()
#: "−2 to trait rolls", by wound modifier (WD-8: −1 to −3): running text, so its minus is
#: the minus sign (U+2212) the roll's lines write, not the hyphen of dice notation.
_MODIFIER_NOTES: dict[int, Text] = {
    modifier: WOUND_MODIFIER(modifier=signed(modifier)) for modifier in range(-PC_MAX_WOUNDS, 0)
}

_HANDLERS: dict[str, _Handler] = {
    "trait": checks.trait_test,
    "attack": checks.attack,
    "chip": checks.spend_chip,
    "recover": checks.recover,
    "damage": harm.damage,
    "heal": harm.heal,
    "award_chips": harm.award_chips,
}


class WildDieRuleset(Ruleset):
    """Trait dice that ace, the wild die and chips (Savage Worlds style)."""

    id: ClassVar[str] = "wilddie"
    name: ClassVar[str] = "Wild die (Savage Worlds style)"
    version: ClassVar[str] = "1.1.0"  # 1.1: melee chips name their target (decision 17)
    summary: ClassVar[str | Text] = RULESET_SUMMARY()
    actions: ClassVar[Mapping[str, ActionSpec]] = ACTIONS
    sheet_schema: ClassVar[Mapping[str, Any]] = SHEET_SCHEMA
    state_schema: ClassVar[Mapping[str, Any]] = STATE_SCHEMA
    settings_schema: ClassVar[Mapping[str, Any]] = SETTINGS_SCHEMA
    example_sheets: ClassVar[Mapping[str, Mapping[str, Any]]] = EXAMPLE_SHEETS

    # -- contract ---------------------------------------------------------------

    def initial_state(self, sheet: Mapping[str, Any]) -> dict[str, Any]:
        return initial_state(sheet)

    def state_schema_for(self, sheet: Mapping[str, Any]) -> Mapping[str, Any]:
        """Wounds within the sheet's track: 3 for a PC, 1 for an NPC (WD-8)."""
        return state_schema_for(is_pc(sheet))

    def validate_state(self, sheet: Mapping[str, Any], state: Mapping[str, Any]) -> dict[str, Any]:
        """The state checked and completed from a fresh one (a field left out is the
        fresh state's); each remembered roll holds its difficulty or what it is against."""
        out = dict(super().validate_state(sheet, state))
        for index, record in enumerate(out["rolls"]):
            if ("difficulty" in record) == ("against" in record):
                where = f"state.rolls[{index}]"
                raise InvalidState(
                    ROLL_DIFFICULTY_OR_AGAINST(field=where), details={"field": where}
                )
        return out

    def resolve(self, context: ActionContext, dice: DiceSource) -> Resolution:
        handler = _HANDLERS.get(context.action)
        if handler is None:
            raise UnknownAction(
                UNKNOWN_ACTION(action=repr(context.action)), details={"action": context.action}
            )
        return handler(context, dice)

    def odds(self, context: ActionContext) -> Odds | None:
        """The exact odds of a ``trait`` test or an ``attack`` (WD-3, WD-6: failure,
        success and each number of raises) and of ``damage`` (WD-7: no effect, Shaken,
        wounds, incapacitated); None for the other actions (see :mod:`.odds`)."""
        return action_odds(context)

    def statistics(self) -> Statistics:
        """Trait tests, raises, the wild die used, hits, wounds and chips spent
        (:mod:`.stats`)."""
        return STATISTICS

    def common_state(self, actor: Actor) -> CommonState:
        state = actor.state
        pc = is_pc(actor.sheet)
        wounds = int(state.get("wounds", 0))
        conditions: list[Text] = []
        if state.get("shaken"):
            conditions.append(_SHAKEN)
        if state.get("incapacitated"):
            conditions.append(_INCAPACITATED)
        if state.get("incapacitated"):
            status = "down"
        elif wounds or state.get("shaken"):
            status = "impaired"
        else:
            status = "ok"
        modifier = wound_modifier(state)
        return CommonState(
            status=status,
            tracks=(Track("wounds", _WOUNDS_LABEL, wounds, max_wounds(pc)),),
            conditions=tuple(conditions),
            modifier=modifier,
            modifier_note=_MODIFIER_NOTES[modifier] if modifier else "",
        )

    def adjust(self, actor: Actor, track: str, delta: int) -> dict[str, Any]:
        """The GM adds (delta > 0) or heals (delta < 0) wounds directly (WD-8).

        A direct adjustment changes only the wound track and incapacitation;
        it does not make the actor Shaken (that is WD-7's damage roll).
        """
        if track != "wounds":
            raise RuleViolation(
                UNKNOWN_TRACK(track=repr(track)), code="unknown_track", details={"track": track}
            )
        pc = is_pc(actor.sheet)
        if delta > 0:
            return add_wounds(actor.state, delta, pc=pc)
        if delta < 0:
            return heal_wounds(actor.state, -delta, pc=pc)
        return copy_state(actor.state)

    def player_view(self, actor: Actor, settings: Mapping[str, Any]) -> PlayerView:
        """Players see an npc's Shaken and wound state, not its sheet (unless
        the table's ``show_npc_details`` is on)."""
        return privacy.player_view(actor, self.common_state(actor), settings)

    def reveals(self, aspect: str, settings: Mapping[str, Any]) -> bool:
        """``show_npc_details`` shows players an NPC's ``sheet`` values (its Defense
        and Toughness) and its ``state`` (its chips); see
        :mod:`rollbridge.plugins.wilddie.privacy`."""
        return privacy.reveals(aspect, settings)

    def on_turn_start(self, context: TurnContext, dice: DiceSource) -> Resolution | None:
        """WD-9: a Shaken character rolls to recover at the start of its turn.

        The player may supply the dice (``context.dice_supplied``). An
        incapacitated character makes no roll.
        """
        actor = context.actor
        if actor is None or not actor.state.get("shaken") or actor.state.get("incapacitated"):
            return None
        resolution = checks.recovery_roll(
            actor, dice, modifiers=[], roll_id=None, action="turn_start_recovery",
            seq=context.seq,
        )  # fmt: skip
        resolution.outcome["round"] = context.round
        resolution.outcome["dice_supplied"] = context.dice_supplied
        starts = TURN_SHAKEN_PLAYER if context.dice_supplied else TURN_SHAKEN_SERVER
        resolution.steps.insert(0, starts(round=context.round, actor=actor.name))
        return resolution
