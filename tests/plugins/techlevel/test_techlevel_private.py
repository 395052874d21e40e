"""No NPC detail reaches players unless the table reveals it, for every action.

An NPC (the Ogre) carries distinctive names, spells, immunities and numbers: box
counts no public value shares, and TLs other than the weapon's TL 5. Each action
is resolved on it through the engine; the players' view (data and actors, as
JSON) must hold none of those details, the GM's view must hold the ones the
resolution itself names (so the check can fail), and with ``show_npc_details``
players must see them as the GM does.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from rollbridge.plugins.techlevel import TechLevel
from rollbridge.testing import RulesetHarness

OGRE = {
    "body_tl": 3,
    "immune": ["sonic"],
    "worn": [{"name": "Troll hide", "kind": "armour", "boxes": 20, "tl": 2, "immune": ["frost"]}],
    "carried": [
        {
            "name": "Glimmer",
            "kind": "shield",
            "boxes": 900,
            "tl": 4,
            "magical": True,
            "spell": "Moonveil",
            "base": {"boxes": 613, "tl": 2},
            "immune": ["plasma"],
        },
        {"name": "Buckler", "kind": "shield", "boxes": 481, "tl": 2},
    ],
    "vehicles": [
        {
            "name": "Juggernaut",
            "kind": "vehicle",
            "tl": 4,
            "immune": ["acid"],
            "sections": [{"name": "hull"}, {"name": "turret"}],
            "worn": [{"name": "Slab plating", "kind": "armour", "boxes": 10, "tl": 3}],
        }
    ],
}
SUNPLATE = {
    "name": "Sunplate",
    "kind": "shield",
    "boxes": 555,
    "tl": 3,
    "magical": True,
    "spell": "Dawnlight",
    "base": {"boxes": 321, "tl": 1},
    "immune": ["void"],
}
SKIFF = {
    "name": "Skiff",
    "tl": 2,
    "immune": ["brine"],
    "sections": [{"name": "deck"}],
    "worn": [{"name": "Kelp mesh", "kind": "armour", "boxes": 10, "tl": 1}],
}
STONESKIN = {"spell": "Stoneskin", "boxes": 999, "tl": 4, "immune": ["lava"]}
WARD = {"mode": "cast", "spell": "Ward of Cinders", "boxes": 950, "tl": 3, "immune": ["cinder"]}


def tl_of(n: int) -> re.Pattern[str]:
    """A TL of ``n`` told anywhere: ``TL3`` in a text, ``"tl": 3`` in data."""
    return re.compile(rf'TL{n}\b|"(?:tl|layer_tl|body_tl)": {n}\b')


def number(n: int) -> re.Pattern[str]:
    """The number ``n`` anywhere, not as part of another number."""
    return re.compile(rf"(?<![\d.]){n}(?![\d.])")


#: Everything of the Ogre (and of the items and vehicles given to it) that players
#: may not see: the weapon is always TL 5, so a TL of 1 to 4 is the Ogre's.
EVERY_DETAIL: list[str | re.Pattern[str]] = [
    *(tl_of(n) for n in (1, 2, 3, 4)),
    *(number(n) for n in (613, 321)),
    "Troll hide", "frost", "sonic", "Glimmer", "Moonveil", "plasma", "Buckler",
    "Juggernaut", "acid", "Slab plating", "Sunplate", "Dawnlight", "void", "Skiff",
    "brine", "Kelp mesh", "Stoneskin", "lava", "Ward of Cinders", "cinder",
]  # fmt: skip

ROLL = 4321  # a given roll: every box count made from it is distinctive
ARMOUR = {"targets": ["ogre"], "params": {"layer": "armour"}}


def hit(**params: Any) -> tuple[str, dict[str, Any]]:
    """Ana's TL 5 weapon hits the Ogre for ``ROLL``."""
    params = {"dice": "1d6", "tl": 5, "roll": ROLL, **params}
    return "hit", {"actor": "ana", "targets": ["ogre"], "params": params}


def on_ogre(action: str, **params: Any) -> tuple[str, dict[str, Any]]:
    """The GM's ``action`` on the Ogre (its target)."""
    return action, {"targets": ["ogre"], "params": params}


def by_ogre(action: str, **params: Any) -> tuple[str, dict[str, Any]]:
    """The Ogre's own ``action`` (it is the actor)."""
    return action, {"actor": "ogre", "params": params}


MOUNTED = [by_ogre("mount", name="Juggernaut")]
BARE = [on_ogre("destroy", layer="armour")]  # the armour is passed; the body is struck

#: (id, what is done first, the action, what its resolution names that players may not see)
CASES: list[tuple[str, list[Any], tuple[str, dict[str, Any]], list[Any]]] = [
    # hit ×2 on Glimmer (TL4): 8642 boxes, 900 crossed, 7742 lost
    ("hit-shield", [by_ogre("don", name="Glimmer")], hit(),
     [tl_of(4), "×2", number(8642), number(7742), "Glimmer"]),
    # ×4 on Troll hide (TL2): 17284 boxes, 20 crossed, 17264 lost
    ("hit-armour", [], hit(), [tl_of(2), "×4", number(17284), number(17264), "Troll hide"]),
    ("hit-immune", [], hit(type="frost"), [tl_of(2), "×4", "Troll hide", "immune to frost"]),
    # ×3 on the body (TL3): 12963 boxes, 10 crossed, 12953 lost
    ("hit-body", BARE, hit(), [tl_of(3), "×3", number(12963), number(12953)]),
    ("hit-shock", BARE, hit(type="shock"), [tl_of(3), "×3", number(12963), number(12953)]),
    # ×5 on the mind (TL1): 21605 boxes, 10 crossed, 21595 excess, 21585 lost in KSK
    ("hit-mind", [], hit(type="mental"),
     [tl_of(1), "×5", number(21605), number(21595), number(21585)]),
    # ×3 on Slab plating (TL3): 12963 boxes, 10 crossed, 12953 lost
    ("hit-vehicle-armour", MOUNTED, hit(),
     [tl_of(3), "×3", number(12963), number(12953), "Slab plating"]),
    # ×2 on the Juggernaut (TL4): 8642 boxes, 20 crossed, 8622 lost
    ("hit-vehicle", [*MOUNTED, on_ogre("destroy", layer="vehicle_armour")], hit(),
     [tl_of(4), "×2", number(8642), number(8622), "Juggernaut"]),
    ("hit-wrecked-section",
     [*MOUNTED, on_ogre("destroy", layer="vehicle_armour"),
      on_ogre("destroy", layer="vehicle", section="hull")],
     hit(section="hull"), [tl_of(4), "×2", number(8642), "Juggernaut"]),
    ("don-carried", [], by_ogre("don", name="Glimmer"),
     ["Glimmer", "Moonveil", "plasma", tl_of(4), tl_of(2), number(613)]),
    ("don-given", [], by_ogre("don", item=SUNPLATE),
     ["Sunplate", "Dawnlight", "void", tl_of(3), tl_of(1), number(321)]),
    ("don-on-vehicle", [*MOUNTED, by_ogre("doff", layer="vehicle_armour")],
     by_ogre("don", name="Slab plating", on="vehicle"), ["Slab plating", tl_of(3)]),
    ("doff", [], by_ogre("doff", layer="armour"), ["Troll hide", "frost", tl_of(2)]),
    ("enchant-improve", [by_ogre("don", name="Buckler")],
     on_ogre("enchant", layer="shield", **STONESKIN),
     ["Buckler", "Stoneskin", "lava", tl_of(2), tl_of(4), number(481)]),
    ("enchant-cast", [], on_ogre("enchant", layer="shield", **WARD),
     ["Ward of Cinders", "cinder", tl_of(3)]),
    ("dispel-removed", [on_ogre("enchant", layer="shield", **WARD)],
     on_ogre("dispel", layer="shield"), ["Ward of Cinders"]),
    ("dispel-reverted",
     [by_ogre("don", name="Buckler"), on_ogre("enchant", layer="shield", **STONESKIN)],
     on_ogre("dispel", layer="shield"), ["Buckler", "Stoneskin", tl_of(2)]),
    ("destroy-item", [], on_ogre("destroy", layer="armour"), ["Troll hide"]),
    ("destroy-section", MOUNTED, on_ogre("destroy", layer="vehicle", section="turret"),
     ["Juggernaut"]),
    ("mount-stable", [], by_ogre("mount", name="Juggernaut"),
     ["Juggernaut", "acid", "Slab plating", tl_of(4), tl_of(3)]),
    ("mount-given", [], by_ogre("mount", vehicle=SKIFF),
     ["Skiff", "brine", "Kelp mesh", tl_of(2), tl_of(1)]),
    ("dismount", MOUNTED, by_ogre("dismount"),
     ["Juggernaut", "acid", "Slab plating", tl_of(4), tl_of(3)]),
    ("repair-item", [on_ogre("destroy", layer="armour")], on_ogre("repair", layer="armour"),
     ["Troll hide"]),
    ("repair-vehicle", [*MOUNTED, on_ogre("destroy", layer="vehicle")],
     on_ogre("repair", layer="vehicle", boxes=7), ["Juggernaut"]),
    # KSK, GSK and shock are public: heal and recover name nothing of the Ogre's
    ("heal", [*BARE, hit()], on_ogre("heal", track="body", boxes=3), []),
    ("recover", [*BARE, hit(type="shock")], by_ogre("recover"), []),
]  # fmt: skip


def resolved(case: tuple[Any, ...], **settings: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The GM's and the players' view of the case's action on the Ogre."""
    _, before, (action, request), _ = case
    harness = RulesetHarness(TechLevel(), settings={"ruleset": settings})
    harness.add_actor("Ana", {"body_tl": 5}, actor_id="ana", player=True)
    harness.add_actor("Ogre", OGRE, actor_id="ogre")
    for name, prepared in before:
        harness.resolve(name, **prepared)
    harness.resolve(action, **request)
    return harness.views()


def _found(detail: str | re.Pattern[str], text: str) -> bool:
    return bool(detail.search(text)) if isinstance(detail, re.Pattern) else detail in text


def told(view: Any, details: list[str | re.Pattern[str]]) -> list[str]:
    """The details that appear anywhere in ``view`` (as JSON)."""
    text = json.dumps(view, ensure_ascii=False)
    return [shown(d) for d in details if _found(d, text)]


def shown(detail: str | re.Pattern[str]) -> str:
    return detail.pattern if isinstance(detail, re.Pattern) else detail


def hidden_from(case: tuple[Any, ...]) -> list[str | re.Pattern[str]]:
    """Every detail of the Ogre but those the request itself says (a hit's damage
    type is the attacker's, even when the Ogre's layer is immune to it)."""
    request = json.dumps(case[2][1], ensure_ascii=False)
    return [d for d in EVERY_DETAIL if not _found(d, request)]


def by_id(cases: list[tuple[Any, ...]]) -> list[Any]:
    return [pytest.param(case, id=case[0]) for case in cases]


def test_every_action_is_covered():
    assert {action for _, _, (action, _), _ in CASES} == set(TechLevel.actions)


@pytest.mark.parametrize("case", by_id(CASES))
def test_players_see_no_detail_of_an_npc(case):
    gm, player = resolved(case)
    named = case[3]
    assert told(gm["data"], named) == [shown(d) for d in named]
    assert told(player, [*named, *hidden_from(case)]) == []
    assert player["data"]["narration"] and player["data"]["steps"]


@pytest.mark.parametrize("case", by_id(CASES))
def test_show_npc_details_shows_players_what_the_gm_sees(case):
    gm, player = resolved(case, show_npc_details=True)
    assert player["data"] == gm["data"]
    named = case[3]
    assert told(player["data"], named) == [shown(d) for d in named]


#: ×5 on the mind (TL1): 21605 boxes, 10 crossed, 21595 excess lost by the table's setting
NO_CARRY = ("hit-mind-no-carry", [], hit(type="mental"), [tl_of(1), "×5", number(21605),
                                                            number(21595)])  # fmt: skip


def test_gsk_excess_lost_by_the_setting_is_hidden_too():
    gm, player = resolved(NO_CARRY, mental_excess_to_body=False)
    named = NO_CARRY[3]
    assert told(gm["data"], named) == [shown(d) for d in named]
    assert told(player, [*named, *hidden_from(NO_CARRY)]) == []
    assert "GSK excess lost (table setting)" in player["data"]["steps"]
    gm, player = resolved(NO_CARRY, mental_excess_to_body=False, show_npc_details=True)
    assert player["data"] == gm["data"]
