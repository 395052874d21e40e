"""Supplied techlevel states keep the sheet's equipment (issue 16, item 2)."""

from __future__ import annotations

import pytest

from rollbridge.exceptions import InvalidState
from rollbridge.plugins.techlevel import TechLevel

TL = TechLevel()
VEST = {"name": "Vest", "kind": "armour", "boxes": 20, "tl": 3}
BELT = {"name": "Belt", "kind": "shield", "boxes": 5, "tl": 4}
CAR = {"name": "Car", "tl": 3, "sections": [{"name": "front"}, {"name": "back"}]}
SHEET = TL.validate_sheet({"body_tl": 2, "worn": [VEST, BELT], "vehicles": [CAR], "mounted": "Car"})


def test_a_starting_state_keeps_what_the_sheet_wears():
    """TL-2 / TL-9: the sheet's worn armour and shield start on their layers; a state
    that leaves them out keeps them (it dropped them before)."""
    fresh = TL.initial_state(SHEET)
    state = TL.validate_state(SHEET, {"ksk": {"shock": 2}, "gsk": 1})
    assert state == {**fresh, "ksk": {"lethal": 0, "shock": 2}, "gsk": 1}
    assert state["armour"]["name"] == "Vest" and state["vehicle"]["name"] == "Car"


def test_a_layer_given_is_taken_whole():
    worn = TL.validate_state(SHEET, {"armour": {**VEST, "name": "Plate", "crossed": 20}})
    assert worn["armour"]["name"] == "Plate"
    assert worn["armour"]["destroyed"] is True  # TL-5: every box crossed
    assert worn["shield"]["name"] == "Belt"
    assert TL.validate_state(SHEET, {"armour": None})["armour"] is None


def test_ksk_over_ten_keeps_lethal():
    """TL-2, TL-7: 10 KSK boxes; lethal is kept, shock cut."""
    assert TL.validate_state(SHEET, {"ksk": {"lethal": 7, "shock": 6}})["ksk"] == {
        "lethal": 7,
        "shock": 3,
    }


@pytest.mark.parametrize(
    ("state", "field"),
    [
        ({"ksk": "x"}, "state.ksk"),
        ({"ksk": {"lethal": 11}}, "state.ksk.lethal"),  # TL-2
        ({"gsk": 2.5}, "state.gsk"),  # TL-8
        ({"shield": VEST}, "state.shield.kind"),  # TL-2: one kind a layer
        ({"armour": {**VEST, "boxes": 15}}, "state.armour.boxes"),  # TL-11
        ({"armour": {**VEST, "crossed": 21}}, "state.armour.crossed"),
        ({"vehicle": {"name": "Car"}}, "state.vehicle.tl"),
        ({"vehicle": {**CAR, "sections": []}}, "state.vehicle.sections"),  # TL-10
        ({"stable": "x"}, "state.stable"),
        ({"horse": {}}, "state.horse"),
    ],
)
def test_a_bad_field_is_refused_by_name(state, field):
    with pytest.raises(InvalidState) as info:
        TL.validate_state(SHEET, state)
    assert info.value.details == {"field": field}
    assert info.value.text is not None
