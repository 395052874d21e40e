"""The common state, what players see of NPCs, GM adjustments, repair and heal."""

from __future__ import annotations

import json

import pytest

from rollbridge.exceptions import InvalidParams, RuleViolation
from rollbridge.text import extract, stored_data

TANK = {
    "name": "Tank",
    "tl": 4,
    "immune": ["fire"],
    "sections": [{"name": "hull", "crossed": 3}, {"name": "turret"}],
    "worn": [{"name": "Deflector", "kind": "shield", "boxes": 8, "tl": 5, "crossed": 1}],
}


def _npc(tl, make_armour):
    """A mounted NPC with some damage everywhere."""
    fields = {
        "body_tl": 2,
        "immune": ["poison"],
        "worn": [make_armour("Troll hide", 20, tl=3, crossed=5, immune=["cold"], magical=True)],
        "vehicles": [TANK],
        "mounted": "Tank",
    }
    fresh = tl.actor("npc", "Ogre", **fields)
    state = {**fresh.state, "ksk": {"lethal": 2, "shock": 1}, "gsk": 4}
    return tl.actor("npc", "Ogre", state=state, **fields)


def test_common_state_has_one_track_per_layer_present(tl, make_armour):
    common = tl.rs.common_state(_npc(tl, make_armour))
    rows = [(t.key, t.value, t.max) for t in common.tracks]
    assert rows == [
        ("vehicle_shield", 1, 8),
        ("vehicle:hull", 3, 20),
        ("vehicle:turret", 0, 20),
        ("armour", 5, 20),
        ("body", 3, 10),
        ("mind", 4, 10),
    ]
    assert common.status == "impaired"
    read = common.to_dict()  # texts rendered in English
    assert "Shock 1" in read["conditions"]
    assert any("Tank" in track["label"] for track in read["tracks"])
    assert common.modifier == 0


def test_a_mount_of_one_unnamed_section_is_labelled_by_its_name_alone(tl):
    """TL-10: a mount whose sheet names no section has one, ``main`` (the default's
    name, no word of any language): its track reads "Mount Nightmare", not "Mount
    Nightmare: main" (shown as "Reittier: main" in German, found playing); named
    sections keep their names."""
    mount = {"name": "Nightmare", "kind": "mount", "tl": 3}
    rider = tl.actor("pc", "Ana", body_tl=2, vehicles=[mount], mounted="Nightmare")
    (track,) = [
        t for t in tl.rs.common_state(rider).to_dict()["tracks"] if t["key"] == "vehicle:main"
    ]
    assert track["label"] == "Mount Nightmare"
    tank = tl.actor("pc", "Bo", body_tl=2, vehicles=[{**TANK, "sections": [{"name": "hull"}]}],
                    mounted="Tank")  # fmt: skip
    labels = [t["label"] for t in tl.rs.common_state(tank).to_dict()["tracks"]]
    assert "Vehicle Tank: hull" in labels


def test_player_view_hides_tl_and_immunities(tl, make_armour):
    npc = _npc(tl, make_armour)
    view = tl.rs.player_view(npc, tl.settings())
    assert view.sheet is None
    text = json.dumps(view.to_dict())
    assert '"tl"' not in text
    for secret in ("immune", "poison", "cold", "fire", "Troll hide", "Deflector", "magical"):
        assert secret not in text, secret
    # which layers and how damaged
    assert [(t.key, t.value, t.max) for t in view.common.tracks] == [
        (t.key, t.value, t.max) for t in tl.rs.common_state(npc).tracks
    ]
    assert view.state["armour"] == {"boxes": 20, "crossed": 5, "destroyed": False}
    assert view.state["vehicle"]["sections"][0] == {"name": "hull", "boxes": 20, "crossed": 3}


def test_setting_shows_npc_details(tl, make_armour):
    npc = _npc(tl, make_armour)
    view = tl.rs.player_view(npc, tl.settings(show_npc_details=True))
    assert view.state["armour"]["tl"] == 3
    assert view.state["armour"]["immune"] == ["cold"]
    assert view.sheet["immune"] == ["poison"]
    assert any("Troll hide" in track["label"] for track in view.common.to_dict()["tracks"])


def test_states_round_trip_through_json(tl, make_armour):
    npc = _npc(tl, make_armour)
    assert json.loads(json.dumps(npc.state)) == npc.state
    result = tl.hit(npc, "1d6", tl=5, rolled=[6])
    assert json.loads(json.dumps(result.to_dict())) == result.to_dict()
    # as the ruleset returned it (texts and private marks): its stored form is plain
    data, texts, private = extract(tl.last.to_dict())
    stored = stored_data([data, texts, private])
    assert json.loads(json.dumps(stored)) == stored
    assert texts and private


# -- adjust -----------------------------------------------------------------------------


def test_adjust_object_tracks_within_capacity(tl, make_armour):
    npc = _npc(tl, make_armour)
    state = tl.rs.adjust(npc, "armour", 30)
    assert state["armour"]["crossed"] == 20 and state["armour"]["destroyed"] is True
    state = tl.rs.adjust(npc, "armour", -10)
    assert state["armour"]["crossed"] == 0
    state = tl.rs.adjust(npc, "vehicle:turret", 20)
    assert state["vehicle"]["sections"][1]["destroyed"] is True
    assert state["vehicle"]["destroyed"] is False
    assert npc.state["armour"]["crossed"] == 5  # input untouched


def test_adjust_body_is_lethal_and_heals_shock_first(tl, make_armour):
    npc = _npc(tl, make_armour)  # 2 lethal, 1 shock
    assert tl.rs.adjust(npc, "body", 8)["ksk"] == {"lethal": 10, "shock": 0}
    assert tl.rs.adjust(npc, "body", -2)["ksk"] == {"lethal": 1, "shock": 0}
    assert tl.rs.adjust(npc, "mind", 20)["gsk"] == 10
    assert tl.rs.adjust(npc, "mind", -20)["gsk"] == 0


def test_adjust_unknown_track(tl):
    with pytest.raises(RuleViolation) as caught:
        tl.rs.adjust(tl.actor(), "armour", 1)
    assert caught.value.code == "unknown_track"


# -- repair and heal -----------------------------------------------------------------------


def test_repair_items_and_sections(tl, make_armour):
    npc = _npc(tl, make_armour)
    result = tl.run("repair", {"layer": "armour", "boxes": 2}, targets=[npc])
    assert result.states["npc"]["armour"]["crossed"] == 3
    result = tl.run("repair", {"layer": "vehicle"}, targets=[npc])
    assert [s["crossed"] for s in result.states["npc"]["vehicle"]["sections"]] == [0, 0]
    result = tl.run("repair", {"layer": "vehicle_shield"}, targets=[npc])
    assert result.states["npc"]["vehicle"]["shield"]["crossed"] == 0
    with pytest.raises(RuleViolation) as caught:
        tl.run("repair", {"layer": "shield"}, targets=[npc])
    assert caught.value.code == "layer_empty"
    with pytest.raises(InvalidParams):
        tl.run("repair", {"layer": "vehicle", "section": "wings"}, targets=[npc])


def test_repair_restores_a_destroyed_item(tl, make_armour):
    actor = tl.actor(worn=[make_armour(crossed=10)])
    result = tl.run("repair", {"layer": "armour", "boxes": 1}, targets=[actor])
    assert result.states["t"]["armour"]["destroyed"] is False


def test_heal_body_and_mind(tl, make_armour):
    npc = _npc(tl, make_armour)  # 2 lethal, 1 shock, 4 GSK
    result = tl.run("heal", {"boxes": 2}, targets=[npc])
    assert result.states["npc"]["ksk"] == {"lethal": 1, "shock": 0}
    result = tl.run("heal", {"mark": "lethal"}, targets=[npc])
    assert result.states["npc"]["ksk"] == {"lethal": 0, "shock": 1}
    result = tl.run("heal", {"track": "mind", "boxes": 3}, targets=[npc])
    assert result.states["npc"]["gsk"] == 1


def test_gm_only_actions(tl):
    assert {n for n, s in tl.rs.actions.items() if s.gm_only} == {"destroy", "repair", "heal"}
