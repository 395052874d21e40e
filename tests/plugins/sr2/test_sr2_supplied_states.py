"""Supplied sr2 states: checked against the state schema, completed (issue 16, item 2)."""

from __future__ import annotations

import pytest

from rollbridge.exceptions import InvalidState
from rollbridge.plugins.sr2.ruleset import SR2Ruleset

SR2 = SR2Ruleset()
SHEET = SR2.validate_sheet({"body": 4, "combat_pool": 3})


def test_a_partial_state_is_the_fresh_state_with_the_given_fields():
    assert SR2.validate_state(SHEET, {"physical": 6}) == {
        "stun": 0,
        "physical": 6,
        "overflow": 0,
        "pool": 3,  # SR-14: the Combat Pool is full
        "stabilised": False,
    }


@pytest.mark.parametrize(
    ("state", "field"),
    [
        ({"physical": "x"}, "state.physical"),
        ({"stun": 5.5}, "state.stun"),
        ({"stun": True}, "state.stun"),
        ({"physical": 11}, "state.physical"),  # SR-11: 10 boxes a monitor
        ({"stun": -1}, "state.stun"),
        ({"overflow": 6}, "state.overflow"),  # SR-11, SR-13: Body 4 + 1 is dead already
        ({"pool": 4}, "state.pool"),  # SR-14: at most the Combat Pool rating
        ({"stabilised": "yes"}, "state.stabilised"),
        ({"wounds": 1}, "state.wounds"),
    ],
)
def test_a_bad_field_is_refused_by_name(state, field):
    with pytest.raises(InvalidState) as info:
        SR2.validate_state(SHEET, state)
    assert info.value.details == {"field": field}
    assert info.value.text is not None


def test_the_limits_follow_the_sheet():
    """SR-11 / SR-13: overflow up to Body + 1 (dead) is a state the rules know."""
    big = SR2.validate_sheet({"body": 9, "combat_pool": 8})
    assert SR2.validate_state(big, {"overflow": 10, "pool": 8})["overflow"] == 10
