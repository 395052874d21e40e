"""What players see of a techlevel resolution that touched an NPC, through the real
engine: the layer struck and the boxes crossed stay; the names, TLs, TL factors, magic
and immunities of the NPC's items, vehicle and body — marked private where the
resolution is built (``details.py``) — go, unless ``show_npc_details`` is on."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest

from rollbridge.contract import Ruleset
from rollbridge.plugins.techlevel import TechLevel
from rollbridge.testing import RulesetHarness, all_keys

ANA = {"body_tl": 2}
GUARD = {"body_tl": 1, "worn": [{"name": "Kevlar vest", "kind": "armour", "boxes": 10, "tl": 3}]}
WYRM = {
    "body_tl": 4,
    "immune": ["mental"],
    "worn": [
        {
            "name": "Dragon scale",
            "kind": "armour",
            "boxes": 20,
            "tl": 4,
            "magical": True,
            "spell": "Ironhide",
            "immune": ["fire"],
        }
    ],
    "carried": [{"name": "Rune buckler", "kind": "shield", "boxes": 7, "tl": 5}],
    "vehicles": [
        {
            "name": "Nightmare",
            "kind": "mount",
            "tl": 3,
            "sections": [{"name": "flank"}],
            "worn": [{"name": "Barding", "kind": "armour", "boxes": 10, "tl": 2}],
        }
    ],
    "mounted": "Nightmare",
}
SECRETS = ("Kevlar vest", "Dragon scale", "Ironhide", "Rune buckler", "Nightmare", "Barding")


def table(**settings: Any) -> RulesetHarness:
    harness = RulesetHarness(TechLevel(), settings={"ruleset": settings})
    harness.add_actor("Ana", ANA, actor_id="ana", player=True)
    harness.add_actor("Guard", GUARD, actor_id="guard")
    harness.add_actor("Wyrm", WYRM, actor_id="wyrm")
    return harness


def revealed(view: dict[str, Any]) -> list[str]:
    text = json.dumps(view, ensure_ascii=False)
    return [secret for secret in SECRETS if secret in text]


def test_a_hit_on_an_npc_shows_the_layer_and_boxes_not_the_item_tl_or_factor():
    harness = table()
    params = {"weapon": "Revolver", "dice": "1d6", "tl": 2}
    harness.resolve("hit", actor="ana", targets=["guard"], params=params, dice=[5])
    gm, player = harness.views()
    outcome = gm["data"]["outcome"]
    assert (outcome["name"], outcome["layer_tl"], outcome["factor"]) == ("Kevlar vest", 3, "/2")
    assert (outcome["boxes"], outcome["lost"], outcome["immune"]) == (2, 0, False)
    assert "weapon TL2 against TL3: /2 → ⌊5 / 2⌋ = 2 boxes (TL-4)" in gm["data"]["steps"]

    data = player["data"]
    assert revealed(player) == []
    assert not set(data["outcome"]) & {"name", "layer_tl", "factor", "immune", "boxes", "lost"}
    assert (data["outcome"]["layer"], data["outcome"]["crossed"]) == ("armour", 2)
    assert data["narration"] == "Ana hits Guard: 5 on 1d6 TL2 → armour, 2 boxes crossed"
    assert data["steps"] == [
        "damage 1d6 [5] = 5 (TL2)",
        gm["data"]["steps"][1],
        "TL and immunities of the armour are hidden (TL-4, TL-6)",
        "Armour: 2 crossed, now 2 of 10; nothing passes inward (TL-5)",
    ]
    assert "TL3" not in json.dumps(data) and "/2" not in json.dumps(data)
    assert data["dice"] == gm["data"]["dice"]  # rolled in the open
    assert harness.views()[0] == gm  # the stored event is unchanged


def test_an_immune_layer_is_not_told_to_players():
    harness = table()
    harness.add_actor("Drake", {**WYRM, "vehicles": [], "mounted": None}, actor_id="drake")
    params = {"weapon": "Torch", "dice": "1d6", "tl": 5, "type": "fire"}
    harness.resolve("hit", actor="ana", targets=["drake"], params=params, dice=[6])
    gm, player = harness.views()
    assert gm["data"]["outcome"]["immune"] is True
    assert "immune to fire, no effect" in gm["data"]["narration"]
    assert revealed(player) == []
    text = json.dumps(player["data"])
    assert "immune" not in text.replace("immunities", "") and "magical" not in text
    assert player["data"]["narration"] == "Ana hits Drake: 6 on 1d6 TL5 → armour, 0 boxes crossed"


def test_mental_excess_hides_the_excess_but_shows_what_reached_the_body():
    harness = table()
    params = {"dice": "2d6", "tl": 2, "type": "mental"}
    harness.resolve("hit", actor="ana", targets=["guard"], params=params, dice=[6, 5])
    gm, player = harness.views()
    assert gm["data"]["outcome"]["mind"]["excess"] == 12
    mind = player["data"]["outcome"]["mind"]
    assert mind == {"crossed": 10, "body": {"crossed": 10, "converted": 0}}
    assert "→ mind (gsk), 10 boxes crossed, excess into KSK;" in player["data"]["narration"]
    assert not [line for line in player["data"]["steps"] if "lost" in line or "12" in line]


def test_show_npc_details_shows_the_resolution_as_the_gm_sees_it():
    harness = table(show_npc_details=True)
    params = {"weapon": "Revolver", "dice": "1d6", "tl": 2}
    harness.resolve("hit", actor="ana", targets=["guard"], params=params, dice=[5])
    gm, player = harness.views()
    assert player["data"] == gm["data"]
    assert revealed(player) == ["Kevlar vest"]


def test_a_hit_on_a_player_is_not_redacted():
    harness = table()
    harness.add_actor(
        "Bea",
        {"body_tl": 1, "worn": [{"name": "Mithril", "kind": "armour", "boxes": 10, "tl": 5}]},
        actor_id="bea",
        player=True,
    )
    harness.resolve("hit", actor="wyrm", targets=["bea"], params={"dice": "1d6", "tl": 4}, dice=[4])
    gm, player = harness.views()
    assert player["data"] == gm["data"]
    assert "Mithril" in player["data"]["narration"]


GEAR = [
    ("dismount", {"actor": "wyrm", "params": {}}),
    ("mount", {"actor": "wyrm", "params": {"name": "Nightmare"}}),
    ("destroy", {"targets": ["wyrm"], "params": {"layer": "vehicle", "section": "flank"}}),
    ("repair", {"targets": ["wyrm"], "params": {"layer": "vehicle_armour", "boxes": 2}}),
    ("destroy", {"targets": ["wyrm"], "params": {"layer": "armour"}}),
    ("dispel", {"targets": ["wyrm"], "params": {"layer": "armour"}}),
    ("don", {"actor": "wyrm", "params": {"name": "Rune buckler"}}),
    ("doff", {"actor": "wyrm", "params": {"layer": "shield"}}),
    (
        "enchant",
        {
            "targets": ["wyrm"],
            "params": {"layer": "shield", "mode": "cast", "spell": "Ironhide", "boxes": 9, "tl": 4},
        },
    ),
    (
        "enchant",
        {
            "targets": ["wyrm"],
            "params": {"layer": "vehicle_armour", "spell": "Ironhide", "boxes": 20, "tl": 5},
        },
    ),
    ("dispel", {"targets": ["wyrm"], "params": {"layer": "vehicle_armour"}}),
    ("dismount", {"actor": "wyrm", "params": {"leave": True}}),
    (
        "mount",
        {"actor": "wyrm", "params": {"vehicle": {"name": "Nightmare", "tl": 1, "immune": ["ice"]}}},
    ),
]


def test_gear_actions_on_an_npc_name_no_item_vehicle_spell_or_tl():
    harness = table()
    for action, request in GEAR:
        harness.resolve(action, **request)
        gm, player = harness.views()
        assert revealed(gm), f"{action}: the GM sees the names"
        assert revealed(player) == [], f"{action}: {player['data']}"
        assert not all_keys(player["data"]["outcome"]) & {"tl", "immune", "magical", "spell"}, (
            action
        )
        assert not all_keys(player["data"]["params"]) & {"tl", "immune", "magical", "spell"}, action
        told = " ".join([player["data"]["narration"], *player["data"]["steps"]])
        assert not re.search(r"TL\d", told), action
        assert "Wyrm" in player["data"]["narration"], action


#: Narration and steps of each GEAR action: as the GM reads them, as players do.
GEAR_TEXTS = [
    (
        ["Wyrm gets off Nightmare",
         "Nightmare leaves the stack with 0 boxes crossed; kept, mount it again by name"],
        ["Wyrm gets off the mount",
         "the mount leaves the stack with 0 boxes crossed; kept, mount it again by name"],
    ),
    (
        ["Wyrm mounts Nightmare",
         "Nightmare (mount, TL3): 1 section, boxes crossed: 0 of 20, wearing Barding",
         "its layers now lie above the rider's own (TL-2)"],
        ["Wyrm mounts up", "a mount: 1 section, boxes crossed: 0 of 20, wearing armour",
         "its layers now lie above the rider's own (TL-2)"],
    ),
    (
        ["Wyrm's Nightmare (flank) is destroyed",
         "Nightmare (flank): every box crossed (destroyed: True)"],
        ["Wyrm's vehicle (flank) is destroyed", "the vehicle (flank): every box crossed"],
    ),
    (
        ["Wyrm's Barding: 0 boxes repaired", "Barding: 0 boxes repaired"],
        ["Wyrm's vehicle armour: 0 boxes repaired", "Vehicle armour: 0 boxes repaired"],
    ),
    (
        ["Wyrm's Dragon scale is destroyed",
         "Dragon scale: every box crossed; it stays on the layer until taken off"],
        ["Wyrm's armour is destroyed",
         "the armour: every box crossed; it stays on the layer until taken off"],
    ),
    (
        ["A spell dispels Wyrm's Ironhide (armour)", "Dragon scale dispelled: the armour is empty"],
        ["A spell dispels Wyrm's magic (armour)",
         "the magic on the armour is dispelled: the armour is empty"],
    ),
    (
        ["Wyrm puts on Rune buckler (energy shield)",
         "the energy shield was empty: Rune buckler is worn there, 0 of 7 boxes crossed, TL5 "
         "(TL-9)"],
        ["Wyrm puts on an item (energy shield)",
         "the energy shield was empty: an item is worn there, 0 of 7 boxes crossed (TL-9)"],
    ),
    (
        ["Wyrm takes off Rune buckler (energy shield)",
         "Rune buckler taken off the energy shield and carried"],
        ["Wyrm takes off the energy shield", "the energy shield is taken off and carried"],
    ),
    (
        ["A spell casts Ironhide on Wyrm (energy shield)",
         "the energy shield was empty: Ironhide is cast there, 9 boxes, TL4, magical (TL-9)"],
        ["A spell casts magic on Wyrm (energy shield)",
         "the energy shield was empty: magic is cast there, 9 boxes (TL-9)"],
    ),
    (
        ["A spell improves Wyrm's Barding with Ironhide",
         "Barding improved by Ironhide: boxes 10 → 20, TL2 → TL5, 0 crossed (TL-9: it takes "
         "the spell's boxes)"],
        ["A spell improves Wyrm's vehicle armour with magic",
         "the vehicle armour is improved by magic: 20 boxes, 0 crossed (TL-9)"],
    ),
    (
        ["A spell dispels the magic on Wyrm's Barding",
         "Ironhide dispelled: Barding is back to 10 boxes TL2, 0 crossed"],
        ["A spell dispels the magic on Wyrm's vehicle armour",
         "the magic on the vehicle armour is dispelled: 10 boxes, 0 crossed"],
    ),
    (
        ["Wyrm gets off Nightmare",
         "Nightmare leaves the stack with 20 boxes crossed (destroyed); left behind"],
        ["Wyrm gets off the mount",
         "the mount leaves the stack with 20 boxes crossed (destroyed); left behind"],
    ),
    (
        ["Wyrm boards Nightmare", "Nightmare (vehicle, TL1): 1 section, boxes crossed: 0 of 20",
         "its layers now lie above the rider's own (TL-2)"],
        ["Wyrm boards a vehicle", "a vehicle: 1 section, boxes crossed: 0 of 20",
         "its layers now lie above the rider's own (TL-2)"],
    ),
]  # fmt: skip


def test_gear_texts_read_for_the_gm_and_for_players_as_they_always_have():
    harness = table()
    assert len(GEAR_TEXTS) == len(GEAR)
    for (action, request), (for_gm, for_players) in zip(GEAR, GEAR_TEXTS, strict=True):
        harness.resolve(action, **request)
        gm, player = harness.views()
        assert [gm["data"]["narration"], *gm["data"]["steps"]] == for_gm, action
        assert [player["data"]["narration"], *player["data"]["steps"]] == for_players, action


@pytest.mark.parametrize(
    ("action", "request_", "narration"),
    [
        (
            "doff",
            {"actor": "wyrm", "params": {"layer": "vehicle_armour"}},
            "Wyrm takes off the vehicle armour",
        ),
        ("dismount", {"actor": "wyrm", "params": {}}, "Wyrm gets off the mount"),
        (
            "repair",
            {"targets": ["wyrm"], "params": {"layer": "armour"}},
            "Wyrm's armour: 0 boxes repaired",
        ),
        (
            "destroy",
            {"targets": ["wyrm"], "params": {"layer": "armour"}},
            "Wyrm's armour is destroyed",
        ),
    ],
)
def test_gear_narrations_stay_useful(action, request_, narration):
    harness = table()
    harness.resolve(action, **request_)
    gm, player = harness.views()
    assert player["data"]["narration"] == narration
    assert gm["data"]["narration"] != narration


def test_the_players_view_does_not_change_the_stored_event():
    harness = table()
    harness.resolve(
        "hit", actor="ana", targets=["guard"], params={"dice": "1d6", "tl": 2}, dice=[5]
    )
    gm, _ = harness.views()
    (event,) = harness.events(harness.table.info.seq - 1)
    stored = copy.deepcopy(event.to_dict())
    player = harness.table.view_event(event, gm=False)
    assert "name" not in player["data"]["outcome"]
    assert event.to_dict() == stored  # the players' view was built from a copy
    assert event.data["outcome"]["name"] == "Kevlar vest"
    assert harness.table.view_event(event, gm=True) == gm
    assert harness.views() == (gm, player)


def test_techlevel_no_longer_overrides_player_resolution():
    """Players' views come from the marks alone; the deprecated hook is not used."""
    assert TechLevel.player_resolution is Ruleset.player_resolution


# -- turn hooks in encounter events ---------------------------------------------------

HOOKS = ("on_round_start", "on_round_end", "on_turn_start", "on_turn_end")


def test_techlevel_has_no_turn_hooks():
    """techlevel returns no hook results; a hook added here must mark its NPCs'
    details private like the actions do (and be tested below)."""
    for name in HOOKS:
        assert getattr(TechLevel, name) is getattr(Ruleset, name), name


@pytest.mark.parametrize("settings", [{}, {"show_npc_details": True}])
def test_encounter_events_carry_nothing_of_an_npc(settings: dict[str, Any]):
    harness = table(**settings)
    seq = harness.table.info.seq
    harness.request({"type": "encounter.start", "order": ["ana", "guard", "wyrm"]})
    for _ in range(4):  # into round 2: every hook runs at least once
        harness.request({"type": "encounter.next"})
    events = harness.events(seq)
    assert [e.kind for e in events] == ["encounter.started"] + ["encounter.turn"] * 4
    for event in events:
        gm = harness.table.view_event(event, gm=True)
        player = harness.table.view_event(event, gm=False)
        assert gm["data"]["hooks"] == [] and player["data"] == gm["data"]
        assert gm["actors"] == [] and player["actors"] == []
        text = json.dumps(player)
        assert not [secret for secret in SECRETS if secret in text]
