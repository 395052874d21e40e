"""The ``bandits`` ruleset: PbtA-style 2d6 moves, a harm table and wound statuses."""

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
    TurnContext,
)
from rollbridge.dice import DiceSource
from rollbridge.exceptions import InvalidParams, RuleViolation, UnknownAction
from rollbridge.text import Text

from . import sheet as sheets
from .action_texts import RULESET_SUMMARY
from .actions import ACTIONS
from .actors import state_of
from .care import resolve_medpack, resolve_stabilise
from .harm import resolve_harm
from .messages import ACTOR_DEAD, UNKNOWN_ACTION, UNKNOWN_TRACK, WHOLE_DELTA
from .moves import resolve_move
from .odds import odds as action_odds
from .privacy import SHEET, public_state
from .privacy import reveals as reveals_aspect
from .state import (
    BANDIT_STATE_SCHEMA,
    EXTRA_STATE_SCHEMA,
    STATE_SCHEMA,
    common_state,
    fresh_state,
    marked,
    with_marked,
)
from .stats import STATISTICS
from .turns import resolve_end_of_raid, resolve_end_of_turn, turn_ended, turn_started
from .wounds import hit_bandit, hit_extra

__all__ = ["BanditsRuleset"]

Resolver = Callable[[ActionContext, DiceSource], Resolution]

RESOLVERS: dict[str, Resolver] = {
    "move": resolve_move,
    "harm": resolve_harm,
    "medpack": resolve_medpack,
    "stabilise": resolve_stabilise,
    "end_of_turn": resolve_end_of_turn,
    "end_of_raid": resolve_end_of_raid,
}


class BanditsRuleset(Ruleset):
    """Bandits (BD-1..BD-11): see docs/rulesets/bandits.md."""

    id: ClassVar[str] = "bandits"
    name: ClassVar[str] = "Bandits (2d6, harm table, wound statuses)"
    version: ClassVar[str] = "1.0.0"
    summary: ClassVar[str | Text] = RULESET_SUMMARY()
    actions: ClassVar[Mapping[str, ActionSpec]] = ACTIONS
    example_sheets: ClassVar[Mapping[str, Mapping[str, Any]]] = {
        "Ana": {
            "kind": "bandit",
            "stats": {"cool": 2, "hard": 1, "sharp": 0, "steady": 1},
            "armour": 1,
            "pierce": 2,
            "two_light_weapons": True,
        },
        "Boris": {
            "kind": "bandit",
            "stats": {"cool": 0, "hard": 2, "sharp": -1, "steady": 2},
            "armour": 2,
            "pierce": 1,
        },
        "Guard": {"kind": "extra", "armour": 1, "pierce": 1},
    }
    sheet_schema: ClassVar[Mapping[str, Any]] = sheets.SHEET_SCHEMA
    state_schema: ClassVar[Mapping[str, Any]] = STATE_SCHEMA
    settings_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "properties": {
            "show_npc_details": {
                "type": "boolean",
                "default": False,
                "description": "players also see the sheet and state of actors they do not control",
            },
            "dying_can_act": {
                "type": "boolean",
                "default": True,
                "description": "an unstabilised dying bandit may still make moves and deal "
                "harm, as BD-8 reads (off: every dying bandit is barred, not only the "
                "stabilised; Decision D4)",
            },
            "heavy_wound_lasts_the_raid": {
                "type": "boolean",
                "default": False,
                "description": "BD-7's variant, as the source reads: a bandit heavily "
                "wounded keeps the disadvantage on every move until the raid ends, even "
                "after a medpack clears slot 3 (off: the medpack clears it too)",
            },
        },
    }

    # -- contract -----------------------------------------------------------------

    def validate_sheet(self, sheet: Mapping[str, Any]) -> dict[str, Any]:
        return sheets.validate_sheet(sheet)

    def initial_state(self, sheet: Mapping[str, Any]) -> dict[str, Any]:
        return fresh_state(sheets.kind(sheet))

    def state_schema_for(self, sheet: Mapping[str, Any]) -> Mapping[str, Any]:
        """A bandit's state has four slots (BD-6), an extra's a wound and ``out`` (BD-9):
        each is checked against its sheet's kind."""
        return EXTRA_STATE_SCHEMA if sheets.kind(sheet) == "extra" else BANDIT_STATE_SCHEMA

    def validate_state(self, sheet: Mapping[str, Any], state: Mapping[str, Any]) -> dict[str, Any]:
        """The state checked against the sheet's kind and completed from a fresh one; a
        bandit's ``dying``, when not given, follows slot 4 as BD-8 has it."""
        out = dict(super().validate_state(sheet, state))
        if out["kind"] == "bandit" and "dying" not in state:
            out["dying"] = bool(out["slots"]["dying"]) and not out["dead"]
        return out

    def resolve(self, context: ActionContext, dice: DiceSource) -> Resolution:
        resolver = RESOLVERS.get(context.action)
        if resolver is None:
            raise UnknownAction(UNKNOWN_ACTION(action=repr(context.action)))
        return resolver(context, dice)

    def odds(self, context: ActionContext) -> Odds | None:
        """``move``: ``6-``, ``7-9``, ``10-11``, ``12+``; ``harm``: the harm table's rows
        (``3-`` … ``22+``); None for the other actions (see :mod:`.odds`)."""
        return action_odds(context)

    def statistics(self) -> Statistics:
        """Moves by band, harm rolls, wounds dealt and taken (:mod:`.stats`)."""
        return STATISTICS

    def common_state(self, actor: Actor) -> CommonState:
        return common_state(state_of(actor))

    def player_view(self, actor: Actor, settings: Mapping[str, Any]) -> PlayerView:
        """Players see an extra's state (wounded / out) but never its sheet; with
        ``show_npc_details`` they see every sheet and state."""
        state = state_of(actor)
        if reveals_aspect(SHEET, settings):
            return PlayerView(common_state(state), sheet=dict(actor.sheet), state=state)
        return PlayerView(common_state(state), state=public_state(state))

    def reveals(self, aspect: str, settings: Mapping[str, Any]) -> bool:
        """``show_npc_details`` shows players an NPC's ``sheet`` numbers (and the totals
        built from them) and its full ``state`` in resolutions (see :mod:`.privacy`)."""
        return reveals_aspect(aspect, settings)

    def adjust(self, actor: Actor, track: str, delta: int) -> dict[str, Any]:
        """``wounds`` track. Bandit: +n is a hit of n wounds (BD-6); −n clears the n
        most serious marked slots (slot 4 included). Extra: moves along the
        unhurt → wounded → out track."""
        if track != "wounds":
            raise RuleViolation(
                UNKNOWN_TRACK(track=repr(track)),
                code="unknown_track",
                details={"field": "track"},
            )
        if isinstance(delta, bool) or not isinstance(delta, int):
            raise InvalidParams(WHOLE_DELTA(), details={"field": "delta"})
        state = state_of(actor)
        if delta == 0:
            return state
        if state["kind"] == "extra":
            if delta > 0:
                return hit_extra(state, 1 if delta == 1 else 2)[0]
            value = (2 if state["out"] else 1 if state["wounded"] else 0) + delta
            value = max(0, value)
            return {**state, "wounded": value >= 1, "out": value >= 2}
        if state["dead"]:
            raise RuleViolation(ACTOR_DEAD(actor=actor.name), code="actor_dead")
        if delta > 0:
            return hit_bandit(state, delta)[0]
        current = marked(state)
        keep = sorted(current)[: max(0, len(current) + delta)]
        return with_marked(state, keep)

    def on_turn_start(self, context: TurnContext, dice: DiceSource) -> Resolution | None:
        return turn_started(context)

    def on_turn_end(self, context: TurnContext, dice: DiceSource) -> Resolution | None:
        return turn_ended(context)
