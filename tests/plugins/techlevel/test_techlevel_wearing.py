"""TL-9 (wearing layers) and the vehicle actions of TL-2/TL-10: don, doff,
enchant, dispel, destroy, mount, dismount. Every refusal is a typed error
with a stable code and changes nothing."""

from __future__ import annotations

import copy

import pytest

from rollbridge.exceptions import InvalidParams, RuleViolation

JEEP = {"name": "Jeep", "tl": 3, "sections": [{"name": "front"}, {"name": "rear"}]}


def refused(tl, action, params, code, *, actor=None, targets=()):
    """Run an action that must be refused with ``code``; check nothing changed."""
    involved = [a for a in (actor, *targets) if a is not None]
    before = copy.deepcopy([dict(a.state) for a in involved])
    with pytest.raises(RuleViolation) as caught:
        tl.run(action, params, actor=actor, targets=targets)
    assert caught.value.code == code, caught.value.message
    assert [dict(a.state) for a in involved] == before
    assert caught.value.message  # says why
    return caught.value


# -- don / doff -----------------------------------------------------------------------


def test_TL9_don_on_an_empty_layer(tl, make_armour):
    actor = tl.actor()
    result = tl.run("don", {"item": make_armour("Chainmail", 10, tl=1)}, actor=actor)
    assert result.states["t"]["armour"]["name"] == "Chainmail"
    assert result.outcome["layer"] == "armour"


def test_TL9_refused_occupied_layer_even_for_a_better_item(tl, make_armour):
    """TL-9: no stacking and no swapping for the better; take it off first."""
    actor = tl.actor(worn=[make_armour("Leather", 10, tl=1)])
    error = refused(
        tl, "don", {"item": make_armour("Power armour", 20, tl=5)}, "layer_occupied", actor=actor
    )
    assert "take it off first" in error.message


def test_TL9_refused_occupied_layer_by_a_destroyed_item(tl, make_armour):
    actor = tl.actor(worn=[make_armour("Rags", 10, crossed=10)])
    refused(tl, "don", {"item": make_armour("New", 10)}, "layer_occupied", actor=actor)


def test_TL9_change_by_doffing_first(tl, make_armour):
    actor = tl.actor(worn=[make_armour("Leather", 10, tl=1, crossed=3)])
    doffed = tl.run("doff", {"layer": "armour"}, actor=actor)
    assert doffed.states["t"]["armour"] is None
    assert doffed.outcome["item"]["crossed"] == 3
    assert [i["name"] for i in doffed.states["t"]["carried"]] == ["Leather"]
    actor = tl.after(doffed, actor)
    donned = tl.run("don", {"item": make_armour("Plate", 20, tl=2)}, actor=actor)
    assert donned.states["t"]["armour"]["name"] == "Plate"


def test_don_by_name_from_carried_keeps_the_damage(tl, make_armour):
    actor = tl.actor(carried=[make_armour("Leather", 10, crossed=4)])
    result = tl.run("don", {"name": "Leather"}, actor=actor)
    assert result.states["t"]["armour"]["crossed"] == 4
    assert result.states["t"]["carried"] == []
    refused(tl, "don", {"name": "Nothing"}, "unknown_item", actor=actor)


def test_don_needs_item_or_name(tl, make_armour):
    actor = tl.actor(carried=[make_armour("Leather")])
    with pytest.raises(InvalidParams):
        tl.run("don", {}, actor=actor)
    with pytest.raises(InvalidParams):
        tl.run("don", {"name": "Leather", "item": make_armour()}, actor=actor)


def test_doff_with_drop_discards_and_empty_layer_is_refused(tl, make_shield):
    actor = tl.actor(worn=[make_shield()])
    result = tl.run("doff", {"layer": "shield", "drop": True}, actor=actor)
    assert result.states["t"]["shield"] is None
    assert result.states["t"]["carried"] == []
    refused(tl, "doff", {"layer": "armour"}, "layer_empty", actor=actor)


def test_don_on_the_vehicle_needs_a_vehicle(tl, make_armour):
    actor = tl.actor()
    refused(tl, "don", {"item": make_armour(), "on": "vehicle"}, "not_mounted", actor=actor)
    rider = tl.actor(vehicles=[JEEP], mounted="Jeep")
    result = tl.run("don", {"item": make_armour("Plating"), "on": "vehicle"}, actor=rider)
    assert result.states["t"]["vehicle"]["armour"]["name"] == "Plating"
    assert result.states["t"]["armour"] is None


# -- magic ---------------------------------------------------------------------------


def magic(name="Ironskin", boxes=20, tl=2):
    return {"name": name, "kind": "armour", "boxes": boxes, "tl": tl, "magical": True}


def test_TL9_refused_replacing_magical_armour(tl, make_armour):
    """TL-9: a magical armour cannot be replaced by, or stacked with, any armour."""
    actor = tl.actor(worn=[magic()])
    refused(tl, "don", {"item": magic("Other spell")}, "magical_armour_present", actor=actor)
    refused(tl, "don", {"item": make_armour()}, "magical_armour_present", actor=actor)


def test_TL9_refused_taking_off_magical_armour(tl):
    actor = tl.actor(worn=[magic()])
    error = refused(tl, "doff", {"layer": "armour"}, "magical_armour_present", actor=actor)
    assert "destroyed or dispelled" in error.message


def test_TL9_refused_casting_armour_onto_armour(tl, make_armour):
    """TL-9: no magical armour may be cast onto an armour already worn."""
    actor = tl.actor(worn=[make_armour("Leather")])
    params = {"mode": "cast", "spell": "Ironskin", "boxes": 20, "tl": 2}
    refused(tl, "enchant", params, "cast_onto_armour", targets=[actor])


def test_TL9_refused_casting_onto_magical_armour(tl):
    """TL-9: casting onto a worn armour is ``cast_onto_armour`` whatever the armour (a
    player's view hides whether an NPC's is magical); the GM's message says it is."""
    actor = tl.actor(worn=[magic()])
    params = {"mode": "cast", "spell": "Stoneskin", "boxes": 20, "tl": 3}
    error = refused(tl, "enchant", params, "cast_onto_armour", targets=[actor])
    assert "is magical and stays until it is destroyed or dispelled" in error.message


def test_TL9_cast_on_an_empty_layer(tl):
    actor = tl.actor()
    params = {"mode": "cast", "spell": "Ironskin", "boxes": 20, "tl": 2, "immune": ["Fire"]}
    result = tl.run("enchant", params, targets=[actor])
    armour = result.states["t"]["armour"]
    assert (armour["name"], armour["boxes"], armour["tl"], armour["magical"]) == (
        "Ironskin", 20, 2, True,
    )  # fmt: skip
    assert armour["immune"] == ["fire"]
    with pytest.raises(InvalidParams, match="TL"):
        tl.run("enchant", {"mode": "cast", "spell": "X", "boxes": 10}, targets=[actor])


def test_TL9_improving_with_the_same_magic_sets_the_spells_boxes(tl, make_armour):
    actor = tl.actor(worn=[make_armour("Leather", 10, tl=1, crossed=3)])
    result = tl.run("enchant", {"spell": "Ironskin", "boxes": 20}, targets=[actor])
    armour = result.states["t"]["armour"]
    assert armour["boxes"] == 20
    assert armour["crossed"] == 3
    assert armour["magical"] is True
    assert armour["tl"] == 1
    assert armour["base"] == {"boxes": 10, "tl": 1, "immune": []}
    # now magical: it stays
    refused(
        tl, "doff", {"layer": "armour"}, "magical_armour_present", actor=tl.after(result, actor)
    )


def test_TL9_improve_refusals(tl, make_armour):
    refused(tl, "enchant", {"spell": "S", "boxes": 20}, "layer_empty", targets=[tl.actor()])
    wreck = tl.actor(worn=[make_armour(crossed=10)])
    refused(tl, "enchant", {"spell": "S", "boxes": 20}, "item_destroyed", targets=[wreck])
    charmed = tl.actor(worn=[magic()])
    refused(tl, "enchant", {"spell": "S", "boxes": 20}, "magical_armour_present", targets=[charmed])
    with pytest.raises(InvalidParams, match="10 or 20"):
        tl.run("enchant", {"spell": "S", "boxes": 12}, targets=[tl.actor(worn=[make_armour()])])


def test_TL9_dispel_then_another_armour_may_be_used(tl, make_armour):
    actor = tl.actor(worn=[magic()])
    result = tl.run("dispel", {"layer": "armour"}, targets=[actor])
    assert result.states["t"]["armour"] is None
    assert result.outcome["result"] == "removed"
    actor = tl.after(result, actor)
    donned = tl.run("don", {"item": make_armour("Leather")}, actor=actor)
    assert donned.states["t"]["armour"]["name"] == "Leather"


def test_dispel_reverts_an_improved_armour(tl, make_armour):
    actor = tl.actor(worn=[make_armour("Leather", 10, tl=1, crossed=2)])
    improved = tl.after(
        tl.run("enchant", {"spell": "Ironskin", "boxes": 20, "tl": 3}, targets=[actor]), actor
    )
    assert improved.state["armour"]["tl"] == 3
    result = tl.run("dispel", {"layer": "armour"}, targets=[improved])
    armour = result.states["t"]["armour"]
    assert (armour["name"], armour["boxes"], armour["tl"], armour["magical"]) == (
        "Leather", 10, 1, False,
    )  # fmt: skip
    assert armour["crossed"] == 2
    assert result.outcome["result"] == "reverted"


def test_dispel_refusals(tl, make_armour):
    refused(
        tl, "dispel", {"layer": "armour"}, "not_magical", targets=[tl.actor(worn=[make_armour()])]
    )
    refused(tl, "dispel", {"layer": "armour"}, "layer_empty", targets=[tl.actor()])


def test_TL9_destroyed_magical_armour_can_be_taken_off(tl, make_armour):
    actor = tl.actor(worn=[magic()])
    destroyed = tl.run("destroy", {"layer": "armour"}, targets=[actor])
    assert destroyed.states["t"]["armour"]["destroyed"] is True
    actor = tl.after(destroyed, actor)
    # still occupies the layer until taken off
    refused(tl, "don", {"item": make_armour()}, "layer_occupied", actor=actor)
    doffed = tl.after(tl.run("doff", {"layer": "armour"}, actor=actor), actor)
    assert doffed.state["armour"] is None
    assert tl.run("don", {"item": make_armour()}, actor=doffed).states["t"]["armour"]


def test_destroy_vehicle_section_and_whole_vehicle(tl):
    rider = tl.actor(vehicles=[JEEP], mounted="Jeep")
    one = tl.run("destroy", {"layer": "vehicle", "section": "front"}, targets=[rider])
    vehicle = one.states["t"]["vehicle"]
    assert [s["destroyed"] for s in vehicle["sections"]] == [True, False]
    assert vehicle["destroyed"] is False
    everything = tl.run("destroy", {"layer": "vehicle"}, targets=[rider])
    assert everything.states["t"]["vehicle"]["destroyed"] is True
    refused(tl, "destroy", {"layer": "vehicle"}, "not_mounted", targets=[tl.actor()])
    refused(tl, "destroy", {"layer": "shield"}, "layer_empty", targets=[tl.actor()])


# -- mount / dismount ----------------------------------------------------------------------


def test_mount_by_name_and_dismount_keeps_damage(tl):
    actor = tl.actor(vehicles=[JEEP])
    assert actor.state["vehicle"] is None
    mounted = tl.after(tl.run("mount", {"name": "Jeep"}, actor=actor), actor)
    assert mounted.state["vehicle"]["name"] == "Jeep"
    assert mounted.state["stable"] == []
    hit = tl.after(tl.hit(mounted, "1d6", tl=3, rolled=[6], section="front"), mounted)
    off = tl.run("dismount", {}, actor=hit)
    assert off.states["t"]["vehicle"] is None
    assert off.outcome["damage"]["sections"][0]["crossed"] == 6
    assert off.outcome["vehicle"]["sections"][0] == {"name": "front", "crossed": 6}
    again = tl.run("mount", {"name": "Jeep"}, actor=tl.after(off, hit))
    assert again.states["t"]["vehicle"]["sections"][0]["crossed"] == 6


def test_mount_by_data_and_leave_it_behind(tl, make_armour, make_shield):
    horse = {
        "name": "Horse",
        "kind": "mount",
        "tl": 1,
        "worn": [make_armour("Barding"), make_shield("Ward", boxes=5, tl=3)],
    }
    actor = tl.actor()
    mounted = tl.after(tl.run("mount", {"vehicle": horse}, actor=actor), actor)
    assert mounted.state["vehicle"]["armour"]["name"] == "Barding"
    assert mounted.state["vehicle"]["shield"]["name"] == "Ward"
    assert [s["name"] for s in mounted.state["vehicle"]["sections"]] == ["main"]
    off = tl.run("dismount", {"leave": True}, actor=mounted)
    assert off.states["t"]["stable"] == []
    # what comes back can be mounted again, elsewhere
    other = tl.actor("u")
    back = tl.run("mount", {"vehicle": off.outcome["vehicle"]}, actor=other)
    assert back.states["u"]["vehicle"] == mounted.state["vehicle"]


def test_mount_refusals(tl):
    rider = tl.actor(vehicles=[JEEP, {**JEEP, "name": "Bike"}], mounted="Jeep")
    refused(tl, "mount", {"name": "Bike"}, "already_mounted", actor=rider)
    refused(tl, "mount", {"name": "Boat"}, "unknown_vehicle", actor=tl.actor(vehicles=[JEEP]))
    refused(tl, "dismount", {}, "not_mounted", actor=tl.actor())
    with pytest.raises(InvalidParams):
        tl.run("mount", {}, actor=tl.actor())


def test_sheet_refuses_two_items_on_one_layer(tl, make_armour):
    from rollbridge.exceptions import InvalidSheet

    with pytest.raises(InvalidSheet, match="one item may be worn per layer"):
        tl.sheet(worn=[make_armour("A"), make_armour("B")])
    with pytest.raises(InvalidSheet, match="mounted"):
        tl.sheet(mounted="Ghost")
