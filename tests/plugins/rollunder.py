"""A third-party ruleset as an author might write one from docs/plugins.md alone: a
d10 rolled under skill minus the target's guard (an NPC's guard is hidden from
players), a wound track, and a condition that says how many wounds are left — an
NPC's detail, marked :class:`~rollbridge.text.Private` in its common state.

It is a fixture of the tests that playing it at a table showed faults in
(``tests/engine/test_common_state_private.py``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import pytest

from rollbridge import ActionContext, ActionSpec, Actor, CommonState, Resolution, Ruleset, Track
from rollbridge.contract import PlayerView
from rollbridge.dice import DiceGroup, DiceSource, roll_die
from rollbridge.testing import RulesetConformance
from rollbridge.text import Messages, Private

say = Messages("rollunder_tests")
STRIKES = say("test.strikes", "{actor} rolls {roll} under {needed} and strikes {target}")
HOLDS = say("test.holds", "{actor} rolls {roll}, needing under {needed}: {target} holds")
D10 = say("dice.d10", "d10")
WOUNDS = say("track.wounds", "Wounds")
BLEEDING = say("condition.bleeding", "bleeding: {left} before falling")
GUARDED = say("note.guarded", "guard {guard} against every roll")
SHEET = {
    "type": "object",
    "properties": {
        "skill": {"type": "integer", "minimum": 1, "maximum": 10},
        "guard": {"type": "integer", "minimum": 0, "maximum": 9, "default": 0},
        "toughness": {"type": "integer", "minimum": 1, "maximum": 6, "default": 3},
    },
    "required": ["skill"],
}


class RollUnder(Ruleset):
    """A d10 under skill minus guard; each success is a wound on the target."""

    id = "rollunder"
    name = "Roll under (test fixture)"
    version = "1.0.0"
    sheet_schema = SHEET
    settings_schema = {
        "type": "object",
        "properties": {"show_npc_details": {"type": "boolean", "default": False}},
    }
    state_schema = {
        "type": "object",
        "properties": {"wounds": {"type": "integer", "minimum": 0, "maximum": 6}},
    }
    example_sheets = {
        "Hero": {"skill": 7, "guard": 1, "toughness": 4},
        "Bandit": {"skill": 5, "guard": 2, "toughness": 3},
    }
    actions = {
        "test": ActionSpec(
            "test", "Roll a d10 under skill minus the target's guard.",
            params={"type": "object"}, min_targets=1, max_targets=1, example={},
        ),
    }  # fmt: skip

    def initial_state(self, sheet: Mapping[str, Any]) -> dict[str, Any]:
        return {"wounds": 0}

    def resolve(self, context: ActionContext, dice: DiceSource) -> Resolution:
        me, target = context.actor, context.targets[0]
        assert me is not None
        needed = Private(me.sheet["skill"] - target.sheet["guard"], of=target.id, aspect="sheet")
        die = roll_die(dice, 10)
        group = DiceGroup(D10(), (die,), formula="1d10", total=die.value, target=needed)
        if die.value >= needed.value:
            narration = HOLDS(actor=me.name, roll=die.value, needed=needed, target=target.name)
            return Resolution(narration, {"success": False}, dice=[group])
        wounds = min(target.sheet["toughness"], target.state["wounds"] + 1)
        narration = STRIKES(actor=me.name, roll=die.value, needed=needed, target=target.name)
        return Resolution(
            narration, {"success": True}, dice=[group], states={target.id: {"wounds": wounds}}
        )

    def common_state(self, actor: Actor) -> CommonState:
        """Its wounds as a track, and how many it may still take as a condition and as
        the modifier note: the actor's own detail, hidden from players for an NPC."""
        most, wounds = actor.sheet["toughness"], actor.state["wounds"]
        status = "down" if wounds >= most else "impaired" if wounds else "ok"
        conditions = ()
        if 0 < wounds < most:
            conditions = (BLEEDING(left=Private(most - wounds, of=actor.id, aspect="sheet")),)
        note = GUARDED(guard=Private(actor.sheet["guard"], of=actor.id, aspect="sheet"))
        return CommonState(
            status, (Track("wounds", WOUNDS(), wounds, most),), conditions, modifier_note=note
        )

    def player_view(self, actor: Actor, settings: Mapping[str, Any]) -> PlayerView:
        """Players see an NPC's status and conditions, not its wound track."""
        return PlayerView(common=replace(self.common_state(actor), tracks=()))

    def reveals(self, aspect: str, settings: Mapping[str, Any]) -> bool:
        return bool(settings.get("show_npc_details"))


def conformance_of(ruleset: Ruleset) -> RulesetConformance:
    """The conformance suite of ``ruleset``, its tests called one by one."""
    return type("Suite", (RulesetConformance,), {"ruleset": ruleset})()


def failure_of(ruleset: Ruleset, test: str) -> str:
    """What the suite's test named ``test`` says failing ``ruleset`` (it must fail)."""
    with pytest.raises(AssertionError) as failed:
        getattr(conformance_of(ruleset), test)()
    return str(failed.value)
