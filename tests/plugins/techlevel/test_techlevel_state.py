"""States written by hand (actor.create / actor.update with a state) are completed."""

from __future__ import annotations

import pytest

from rollbridge.exceptions import InvalidRequest
from rollbridge.plugins.techlevel import TechLevel
from rollbridge.plugins.techlevel.state import load_state


def test_partial_state_is_completed():
    state = load_state({"ksk": {"lethal": 3}})
    assert state == {
        "ksk": {"lethal": 3, "shock": 0},
        "gsk": 0,
        "shield": None,
        "armour": None,
        "vehicle": None,
        "carried": [],
        "stable": [],
    }


def test_hand_written_counts_are_kept_within_capacity():
    state = load_state(
        {
            "ksk": {"lethal": 8, "shock": 7},
            "gsk": 14,
            "armour": {"name": "Vest", "kind": "armour", "boxes": 10, "tl": 2, "crossed": 10},
        }
    )
    assert state["ksk"] == {"lethal": 8, "shock": 2}
    assert state["gsk"] == 10
    assert state["armour"]["destroyed"] is True


@pytest.mark.parametrize(
    "bad",
    [
        {"gsk": "three"},
        {"armour": {"name": "Vest"}},
        {"armour": {"name": "Field", "kind": "shield", "boxes": 5, "tl": 2}},
        {"armour": {"name": "Vest", "kind": "armour", "boxes": 15, "tl": 2}},
        {"vehicle": {"name": "Car"}},
    ],
)
def test_unreadable_states_name_the_field(bad):
    with pytest.raises(InvalidRequest, match="state"):
        load_state(bad)


def test_engine_actor_created_with_a_partial_state(ruleset_harness):
    table = ruleset_harness(TechLevel())
    table.add_actor("Hurt", {"body_tl": 1}, actor_id="hurt", state={"ksk": {"lethal": 9}})
    event = table.resolve("hit", targets=["hurt"], params={"dice": "1d6", "tl": 1}, dice=[2])
    assert event["data"]["outcome"]["status"] == "dead"
    assert table.state("hurt")["ksk"] == {"lethal": 10, "shock": 0}
    assert table.actor("hurt")["common"]["status"] == "dead"
