"""Supplied wilddie states: checked and completed (issue 16, item 2)."""

from __future__ import annotations

import pytest

from rollbridge.exceptions import InvalidState
from rollbridge.plugins.wilddie.ruleset import WildDieRuleset

WD = WildDieRuleset()
PC = WD.validate_sheet(next(iter(WD.example_sheets.values())))
NPC = WD.validate_sheet({**PC, "kind": "npc"})
RECORD = {
    "id": "r1",
    "kind": "trait",
    "trait": "notice",
    "faces": 6,
    "untrained": False,
    "modifiers": [],
    "difficulty": 4,
    "trait_die": {"faces": 6, "rolls": [5], "value": 5},
    "wild_die": {"faces": 6, "rolls": [2], "value": 2, "tags": ["wild"]},
    "chip_spent": False,
}


def test_a_partial_state_is_completed():
    """The docs: missing fields take fresh values (a KeyError on damage before)."""
    assert WD.validate_state(PC, {"shaken": True}) == {**WD.initial_state(PC), "shaken": True}


@pytest.mark.parametrize(
    ("sheet", "state", "field"),
    [
        (PC, {"wounds": 4}, "state.wounds"),  # WD-8: a PC's track holds 3
        (NPC, {"wounds": 2}, "state.wounds"),  # WD-8: an NPC's holds 1
        (PC, {"chips": "3"}, "state.chips"),  # WD-4
        (PC, {"rolls": [RECORD] * 6}, "state.rolls"),  # the last 5 rolls
        (PC, {"rolls": [{**RECORD, "against": "defense"}]}, "state.rolls[0]"),
        (PC, {"rolls": [{k: v for k, v in RECORD.items() if k != "difficulty"}]}, "state.rolls[0]"),
        (PC, {"rolls": [{**RECORD, "trait_die": {"faces": 6}}]}, "state.rolls[0].trait_die.rolls"),
    ],
)
def test_a_bad_field_is_refused_by_name(sheet, state, field):
    with pytest.raises(InvalidState) as info:
        WD.validate_state(sheet, state)
    assert info.value.details == {"field": field}


def test_a_remembered_roll_can_take_a_chip():
    """WD-4: a supplied roll record is one a chip rerolls."""
    from rollbridge.contract import ActionContext, Actor
    from rollbridge.dice import ScriptedDice

    state = WD.validate_state(PC, {"rolls": [RECORD]})
    actor = Actor("a", "Ana", PC, state)
    params = {"roll": "r1"}
    result = WD.resolve(ActionContext("chip", params, actor), ScriptedDice([6, 3]))
    assert result.states["a"]["chips"] == state["chips"] - 1


@pytest.mark.parametrize("locale", ["cs", "de", "ru"])
def test_the_roll_refusal_reads_in_every_locale(locale):
    with pytest.raises(InvalidState) as info:
        WD.validate_state(PC, {"rolls": [{**RECORD, "against": "defense"}]})
    text = info.value.render(locale)
    assert text != info.value.message and "state.rolls[0]" in text
