"""Each rule of rulesets/techlevel.md by number (TL-9 lives in test_techlevel_wearing)."""

from __future__ import annotations

import pytest

from rollbridge.dice import SeededDice, roll_formula
from rollbridge.exceptions import InvalidParams, InvalidSheet, NotationError

JEEP = {"name": "Jeep", "tl": 3, "sections": [{"name": "front"}, {"name": "rear"}]}


def _full_stack(tl, make_armour, make_shield):
    """A rider with every layer: vehicle shield and armour, a one-section
    vehicle, personal shield and armour."""
    vehicle = {
        "name": "Tank",
        "tl": 1,
        "sections": [{"name": "hull"}],
        "worn": [make_shield("Deflector", boxes=3, tl=1), make_armour("Plating", 10, tl=1)],
    }
    return tl.actor(
        body_tl=1,
        worn=[make_shield("Belt shield", boxes=4, tl=1), make_armour("Vest", 10, tl=1)],
        vehicles=[vehicle],
        mounted="Tank",
    )


# -- TL-1 damage value --------------------------------------------------------------


def test_TL1_server_rolls_the_expression(tl):
    """TL-1: the server rolls the weapon's dice expression from its dice source."""
    target = tl.actor()
    result = tl.run("hit", {"dice": "2d6+1", "tl": 1}, targets=[target], dice=SeededDice("tl1"))
    expected = roll_formula("2d6+1", SeededDice("tl1")).total
    assert result.outcome["roll"] == expected
    assert result.outcome["rolled_by"] == "server"
    assert len(result.dice) == 1
    assert len(result.dice[0].dice) == 2
    assert result.states["t"]["ksk"]["lethal"] == min(expected, 10)


def test_TL1_table_supplies_the_dice(tl):
    """TL-1: dice supplied by the table (ScriptedDice) are used in order."""
    target = tl.actor()
    result = tl.hit(target, "2d6", tl=1, rolled=[2, 3])
    assert result.outcome["roll"] == 5
    assert result.outcome["rolled_by"] == "table"
    assert [d.value for d in result.dice[0].dice] == [2, 3]


def test_TL1_a_total_rolled_at_the_table_draws_no_dice(tl):
    """TL-1: the ``roll`` parameter gives a total already rolled; no dice are drawn."""
    target = tl.actor()
    result = tl.hit(target, "1d6", tl=1, roll=4)  # ScriptedDice([]) would fail on a draw
    assert result.outcome["roll"] == 4
    assert result.outcome["rolled_by"] == "given"
    assert result.dice == []
    assert result.states["t"]["ksk"]["lethal"] == 4


def test_TL1_bad_expression_is_a_notation_error(tl):
    target = tl.actor()
    with pytest.raises(NotationError) as caught:
        tl.hit(target, "3d", tl=1)
    assert caught.value.message.startswith("params.dice")
    with pytest.raises(NotationError):
        tl.hit(target, "1d6 +", tl=1, roll=3)  # checked even when the total is given


@pytest.mark.parametrize("bad", [0, 6])
def test_TL1_weapon_tl_is_1_to_5(tl, bad):
    target = tl.actor()
    with pytest.raises(InvalidParams):
        tl.hit(target, "1d6", tl=bad, roll=1)


def test_TL1_negative_total_counts_as_zero(tl):
    target = tl.actor()
    result = tl.hit(target, "1d4-3", tl=1, rolled=[1])
    assert result.outcome["roll"] == 0
    assert result.states["t"]["ksk"] == {"lethal": 0, "shock": 0}


def test_TL1_damage_type_is_a_free_label_compared_without_case(tl, make_armour):
    target = tl.actor(worn=[make_armour(immune=["Acid"])])
    result = tl.hit(target, "1d6", tl=1, rolled=[5], type="ACID ")
    assert result.outcome["immune"] is True
    assert result.outcome["weapon"]["type"] == "acid"


# -- TL-2 layers ---------------------------------------------------------------------


def test_TL2_layers_are_struck_outermost_first(tl, make_armour, make_shield):
    """TL-2: vehicle shield, vehicle armour, vehicle, shield, armour, body."""
    actor = _full_stack(tl, make_armour, make_shield)
    order = []
    for _ in range(6):
        result = tl.hit(actor, "1d6", tl=5, rolled=[6])  # 30 boxes: destroys any item here
        order.append(result.outcome["layer"])
        actor = tl.after(result, actor)
    assert order == ["vehicle_shield", "vehicle_armour", "vehicle", "shield", "armour", "body"]


def test_TL2_body_is_always_there_with_10_ksk_at_the_body_tl(tl):
    """TL-2: with nothing worn, the body takes the hit at the being's TL."""
    alien = tl.actor(body_tl=3)
    result = tl.hit(alien, "1d6", tl=1, rolled=[6])
    assert result.outcome["layer"] == "body"
    assert result.outcome["layer_tl"] == 3
    assert result.outcome["factor"] == "/3"
    assert result.states["t"]["ksk"]["lethal"] == 2
    tracks = {t.key: t for t in tl.rs.common_state(tl.after(result, alien)).tracks}
    assert (tracks["body"].value, tracks["body"].max) == (2, 10)


def test_TL2_a_rider_carries_the_vehicle_above_its_own_layers(tl, make_armour):
    rider = tl.actor(worn=[make_armour()], vehicles=[JEEP])
    mounted = tl.after(tl.run("mount", {"name": "Jeep"}, actor=rider), rider)
    result = tl.hit(mounted, "1d6", tl=3, rolled=[2])
    assert result.outcome["layer"] == "vehicle"
    assert result.states["t"]["armour"]["crossed"] == 0


# -- TL-3 which layer is hit -----------------------------------------------------------


def test_TL3_destroyed_layers_are_passed(tl, make_armour, make_shield):
    """TL-3: the outermost layer present and not destroyed; why is reported."""
    target = tl.actor(worn=[make_shield(boxes=5, crossed=5), make_armour("Vest", 10)])
    result = tl.hit(target, "1d6", tl=1, rolled=[3])
    assert result.outcome["layer"] == "armour"
    skipped = {s["layer"]: s["reason"] for s in result.outcome["skipped"]}
    assert skipped == {
        "vehicle_shield": "absent",
        "vehicle_armour": "absent",
        "vehicle": "absent",
        "shield": "destroyed",
    }
    assert "destroyed" in result.outcome["why"]
    assert result.states["t"]["armour"]["crossed"] == 3
    assert result.states["t"]["shield"]["crossed"] == 5


# -- TL-4 boxes crossed ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("weapon", "layer", "roll", "boxes"),
    [(3, 1, 4, 12), (2, 2, 5, 5), (1, 2, 5, 2), (2, 5, 4, 1), (2, 5, 3, 0), (1, 5, 4, 0)],
)
def test_TL4_boxes_from_roll_and_tl_difference(tl, make_shield, weapon, layer, roll, boxes):
    """TL-4: w ≥ l → roll × (w − l + 1); w < l → ⌊roll / (l − w + 1)⌋."""
    target = tl.actor(worn=[make_shield(boxes=100, tl=layer)])
    result = tl.hit(target, "1d6", tl=weapon, rolled=[roll])
    assert result.outcome["boxes"] == boxes
    assert result.states["t"]["shield"]["crossed"] == boxes


# -- TL-5 excess is lost ---------------------------------------------------------------------


def test_TL5_excess_is_lost_and_the_next_hit_strikes_the_next_layer(tl, make_armour):
    target = tl.actor(worn=[make_armour("Vest", 10, crossed=8)])
    first = tl.hit(target, "1d6", tl=1, rolled=[6])
    assert (first.outcome["crossed"], first.outcome["lost"]) == (2, 4)
    assert first.outcome["destroyed"] is True
    assert first.states["t"]["ksk"] == {"lethal": 0, "shock": 0}
    second = tl.hit(tl.after(first, target), "1d6", tl=1, rolled=[3])
    assert second.outcome["layer"] == "body"
    assert second.states["t"]["ksk"]["lethal"] == 3


# -- TL-6 immunity ---------------------------------------------------------------------------


def test_TL6_immune_layer_takes_nothing_and_the_hit_ends(tl, make_armour, make_shield):
    target = tl.actor(worn=[make_shield(immune=["energy"]), make_armour()])
    result = tl.hit(target, "1d6", tl=5, rolled=[6], type="energy")
    assert result.outcome["layer"] == "shield"
    assert (result.outcome["boxes"], result.outcome["crossed"]) == (0, 0)
    state = result.states["t"]
    assert state["shield"]["crossed"] == state["armour"]["crossed"] == 0
    assert state["ksk"]["lethal"] == 0


def test_TL6_other_types_still_hurt_an_immune_layer(tl, make_shield):
    target = tl.actor(worn=[make_shield(immune=["energy"])])
    result = tl.hit(target, "1d6", tl=1, rolled=[4], type="kinetic")
    assert result.outcome["immune"] is False
    assert result.states["t"]["shield"]["crossed"] == 4


def test_TL6_body_and_vehicle_immunities(tl):
    golem = tl.actor(immune=["poison"])
    assert tl.hit(golem, "1d6", tl=1, rolled=[6], type="poison").states["t"]["ksk"]["lethal"] == 0
    rider = tl.actor(vehicles=[{**JEEP, "immune": ["fire"]}], mounted="Jeep")
    result = tl.hit(rider, "1d6", tl=5, rolled=[6], type="fire")
    assert result.outcome["layer"] == "vehicle"
    assert result.outcome["immune"] is True
    assert all(s["crossed"] == 0 for s in result.states["t"]["vehicle"]["sections"])


# -- TL-7 shock --------------------------------------------------------------------------------


def test_TL7_shock_crosses_shock_boxes(tl):
    target = tl.actor()
    result = tl.hit(target, "1d6", tl=1, rolled=[4], type="shock")
    assert result.states["t"]["ksk"] == {"lethal": 0, "shock": 4}
    assert result.outcome["status"] == "impaired"


def test_TL7_shock_beyond_free_boxes_is_lost_and_cannot_kill(tl):
    target = tl.actor(state=None)
    state = {**target.state, "ksk": {"lethal": 7, "shock": 1}}
    target = tl.actor(state=state)
    result = tl.hit(target, "1d6", tl=1, rolled=[6], type="shock")
    assert result.states["t"]["ksk"] == {"lethal": 7, "shock": 3}
    assert (result.outcome["crossed"], result.outcome["lost"]) == (2, 4)
    assert result.outcome["status"] == "down"  # unconscious, not dead
    again = tl.hit(tl.after(result, target), "1d6", tl=1, rolled=[6], type="shock")
    assert again.states["t"]["ksk"] == {"lethal": 7, "shock": 3}
    assert again.outcome["status"] == "down"


def test_TL7_lethal_crosses_free_boxes_then_turns_shock_lethal(tl):
    base = tl.actor()
    target = tl.actor(state={**base.state, "ksk": {"lethal": 2, "shock": 5}})
    result = tl.hit(target, "1d6", tl=1, rolled=[5])
    # 5 lethal: 3 free boxes, then 2 of the 5 shock boxes turn lethal
    assert result.states["t"]["ksk"] == {"lethal": 7, "shock": 3}
    assert (result.outcome["crossed"], result.outcome["converted"]) == (3, 2)
    assert result.outcome["status"] == "down"
    dead = tl.hit(tl.after(result, target), "1d6", tl=1, rolled=[6])
    assert dead.states["t"]["ksk"] == {"lethal": 10, "shock": 0}
    assert (dead.outcome["converted"], dead.outcome["lost"]) == (3, 3)
    assert dead.outcome["status"] == "dead"


def test_TL7_all_lethal_is_dead_all_crossed_with_shock_is_down(tl):
    base = tl.actor()
    statuses = {
        (0, 0): "ok",
        (3, 0): "impaired",
        (0, 3): "impaired",
        (9, 1): "down",
        (0, 10): "down",
        (10, 0): "dead",
    }
    for (lethal, shock), status in statuses.items():
        actor = tl.actor(state={**base.state, "ksk": {"lethal": lethal, "shock": shock}})
        assert tl.rs.common_state(actor).status == status, (lethal, shock)


def test_TL7_recovery_clears_shock_boxes(tl):
    base = tl.actor()
    target = tl.actor(state={**base.state, "ksk": {"lethal": 3, "shock": 7}})
    assert tl.rs.common_state(target).status == "down"
    result = tl.run("recover", {}, actor=target)
    assert result.states["t"]["ksk"] == {"lethal": 3, "shock": 0}
    assert result.outcome["cleared"] == 7
    partial = tl.run("recover", {"boxes": 2}, actor=target)
    assert partial.states["t"]["ksk"] == {"lethal": 3, "shock": 5}


def test_TL7_shock_on_an_object_layer_crosses_its_boxes(tl, make_armour):
    target = tl.actor(worn=[make_armour()])
    result = tl.hit(target, "1d6", tl=1, rolled=[4], type="shock")
    assert result.states["t"]["armour"]["crossed"] == 4
    assert result.states["t"]["ksk"] == {"lethal": 0, "shock": 0}


# -- TL-8 mental -----------------------------------------------------------------------------------


def test_TL8_mental_bypasses_the_layers_and_strikes_gsk_at_tl1(tl, make_armour, make_shield):
    actor = _full_stack(tl, make_armour, make_shield)
    result = tl.hit(actor, "1d6", tl=2, rolled=[3], type="mental")
    assert result.outcome["layer"] == "mind"
    assert result.outcome["layer_tl"] == 1
    assert result.outcome["factor"] == "×2"
    state = result.states["t"]
    assert state["gsk"] == 6
    assert state["vehicle"] == actor.state["vehicle"]
    assert state["shield"] == actor.state["shield"]
    assert state["armour"] == actor.state["armour"]


def test_TL8_full_gsk_is_down(tl):
    result = tl.hit(tl.actor(), "1d6", tl=2, rolled=[5], type="mental")
    assert result.states["t"]["gsk"] == 10
    assert result.outcome["status"] == "down"
    assert result.states["t"]["ksk"] == {"lethal": 0, "shock": 0}


def test_TL8_gsk_excess_carries_into_ksk_as_lethal(tl):
    base = tl.actor()
    target = tl.actor(state={**base.state, "gsk": 8, "ksk": {"lethal": 0, "shock": 9}})
    result = tl.hit(target, "1d6", tl=1, rolled=[5], type="mental")
    assert result.states["t"]["gsk"] == 10
    # 3 excess: 1 free box lethal, then 2 shock turned lethal
    assert result.states["t"]["ksk"] == {"lethal": 3, "shock": 7}
    assert result.outcome["mind"]["excess"] == 3


def test_TL8_setting_off_loses_the_excess(tl):
    base = tl.actor()
    target = tl.actor(state={**base.state, "gsk": 8})
    result = tl.run(
        "hit",
        {"dice": "1d6", "tl": 1, "type": "mental"},
        targets=[target],
        dice=[5],
        settings={"mental_excess_to_body": False},
    )
    assert result.states["t"]["gsk"] == 10
    assert result.states["t"]["ksk"] == {"lethal": 0, "shock": 0}
    assert result.outcome["lost"] == 3


def test_TL8_mental_immunity(tl):
    robot = tl.actor(immune=["mental"])
    result = tl.hit(robot, "1d6", tl=5, rolled=[6], type="mental")
    assert result.outcome["immune"] is True
    assert result.states["t"]["gsk"] == 0


# -- TL-10 vehicles -------------------------------------------------------------------------------


def test_TL10_sections_have_20_boxes_and_a_named_section_is_struck(tl):
    rider = tl.actor(vehicles=[JEEP], mounted="Jeep")
    assert [s["boxes"] for s in rider.state["vehicle"]["sections"]] == [20, 20]
    result = tl.hit(rider, "1d6", tl=3, rolled=[5], section="rear")
    sections = {s["name"]: s["crossed"] for s in result.states["t"]["vehicle"]["sections"]}
    assert sections == {"front": 0, "rear": 5}
    assert result.outcome["section"] == "rear"


def test_TL10_else_the_first_intact_section_and_excess_is_lost_within_it(tl):
    jeep = {**JEEP, "sections": [{"name": "front", "crossed": 20}, {"name": "rear", "crossed": 15}]}
    rider = tl.actor(vehicles=[jeep], mounted="Jeep")
    result = tl.hit(rider, "1d6", tl=4, rolled=[6])  # 12 boxes, 5 free in "rear"
    assert result.outcome["section"] == "rear"
    assert (result.outcome["crossed"], result.outcome["lost"]) == (5, 7)
    assert result.outcome["vehicle_destroyed"] is True
    state = result.states["t"]
    assert state["vehicle"]["destroyed"] is True
    assert state["ksk"] == {"lethal": 0, "shock": 0}
    after = tl.hit(tl.after(result, rider), "1d6", tl=1, rolled=[2])
    assert after.outcome["layer"] == "body"


def test_TL10_vehicle_survives_while_any_section_is_intact(tl):
    rider = tl.actor(vehicles=[JEEP], mounted="Jeep")
    result = tl.hit(rider, "2d6", tl=5, rolled=[6, 6], section="front")  # 12 × 3 = 36 boxes
    assert result.outcome["destroyed"] is True
    assert result.outcome["vehicle_destroyed"] is False
    nxt = tl.hit(tl.after(result, rider), "1d6", tl=3, rolled=[1])
    assert (nxt.outcome["layer"], nxt.outcome["section"]) == ("vehicle", "rear")


def test_TL10_a_named_destroyed_section_loses_the_hit(tl):
    jeep = {**JEEP, "sections": [{"name": "front", "crossed": 20}, {"name": "rear"}]}
    rider = tl.actor(vehicles=[jeep], mounted="Jeep")
    result = tl.hit(rider, "1d6", tl=3, rolled=[4], section="front")
    assert (result.outcome["crossed"], result.outcome["lost"]) == (0, 4)
    assert result.states["t"]["vehicle"] == rider.state["vehicle"]


def test_TL10_unknown_section_or_no_vehicle_is_invalid(tl):
    rider = tl.actor(vehicles=[JEEP], mounted="Jeep")
    with pytest.raises(InvalidParams, match="section"):
        tl.hit(rider, "1d6", tl=3, rolled=[4], section="roof")
    with pytest.raises(InvalidParams, match="not mounted"):
        tl.hit(tl.actor(), "1d6", tl=3, rolled=[4], section="front")


def test_TL10_section_names_are_unique(tl):
    with pytest.raises(InvalidSheet, match="named twice"):
        tl.sheet(vehicles=[{"name": "Car", "tl": 3, "sections": [{"name": "a"}, {"name": "a"}]}])


# -- TL-11 objects ------------------------------------------------------------------


@pytest.mark.parametrize("boxes", [10, 20])
def test_TL11_armour_has_10_or_20_boxes(tl, make_armour, boxes):
    actor = tl.actor(worn=[make_armour(boxes=boxes)])
    assert actor.state["armour"]["boxes"] == boxes


@pytest.mark.parametrize("boxes", [1, 9, 15, 30])
def test_TL11_other_armour_sizes_are_refused(tl, make_armour, boxes):
    with pytest.raises(InvalidSheet, match="10 or 20"):
        tl.sheet(worn=[make_armour(boxes=boxes)])
    with pytest.raises(InvalidParams, match="10 or 20"):
        tl.run("don", {"item": make_armour(boxes=boxes)}, actor=tl.actor())


def test_TL11_shields_take_boxes_and_tl_from_their_data(tl, make_shield):
    actor = tl.actor(worn=[make_shield("Odd field", boxes=7, tl=4)])
    assert (actor.state["shield"]["boxes"], actor.state["shield"]["tl"]) == (7, 4)
    result = tl.hit(actor, "1d6", tl=4, rolled=[6])
    assert result.outcome["layer_tl"] == 4
    assert (result.outcome["crossed"], result.outcome["lost"]) == (6, 0)
    result = tl.hit(tl.after(result, actor), "1d6", tl=4, rolled=[6])
    assert (result.outcome["crossed"], result.outcome["lost"]) == (1, 5)


def test_TL11_crossed_cannot_exceed_boxes_in_data(tl, make_shield):
    with pytest.raises(InvalidSheet, match="crossed"):
        tl.sheet(worn=[make_shield(boxes=5, crossed=6)])
