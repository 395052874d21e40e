"""Supplied bandits states: checked against the sheet's kind, completed (issue 16, item 2)."""

from __future__ import annotations

import pytest

from rollbridge.exceptions import InvalidState
from rollbridge.plugins.bandits import BanditsRuleset

BD = BanditsRuleset()
BANDIT = BD.validate_sheet({})
EXTRA = BD.validate_sheet({"kind": "extra"})


def test_slots_merge_slot_by_slot():
    """BD-6: any combination of slots may be marked; the others stay as fresh."""
    state = BD.validate_state(BANDIT, {"slots": {"seriously": True}})
    assert state["slots"] == {
        "lightly": False,
        "seriously": True,
        "heavily": False,
        "dying": False,
    }
    assert state == {**BD.initial_state(BANDIT), "slots": state["slots"]}


def test_dying_follows_slot_four_unless_given():
    """BD-8: dying is slot 4 marked and not dead."""
    assert BD.validate_state(BANDIT, {"slots": {"dying": True}})["dying"] is True
    dead = BD.validate_state(BANDIT, {"slots": {"dying": True}, "dead": True})
    assert dead["dying"] is False


def test_an_extra_keeps_its_own_fields():
    """BD-9: an extra is wounded, then out."""
    assert BD.validate_state(EXTRA, {"wounded": True}) == {
        "kind": "extra",
        "wounded": True,
        "out": False,
        "dual_wield": None,
    }


@pytest.mark.parametrize(
    ("sheet", "state", "field"),
    [
        (BANDIT, {"slots": "x"}, "state.slots"),
        (BANDIT, {"slots": {"fifth": True}}, "state.slots.fifth"),
        (BANDIT, {"dead": 1}, "state.dead"),
        (BANDIT, {"dual_wield": "both"}, "state.dual_wield"),  # BD-4: pierce or armour
        (BANDIT, {"wounded": True}, "state.wounded"),
        (EXTRA, {"slots": {}}, "state.slots"),
        (EXTRA, {"kind": "bandit"}, "state.kind"),
    ],
)
def test_a_bad_field_is_refused_by_name(sheet, state, field):
    with pytest.raises(InvalidState) as info:
        BD.validate_state(sheet, state)
    assert info.value.details == {"field": field}
