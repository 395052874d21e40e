"""techlevel through the real table engine (rollbridge.testing's harness)."""

from __future__ import annotations

import pytest

from rollbridge.exceptions import Forbidden
from rollbridge.plugins.techlevel import TechLevel
from rollbridge.testing import PLAYER


def _table(ruleset_harness, **settings):
    table = ruleset_harness(TechLevel(), settings={"ruleset": settings} if settings else None)
    table.add_actor("Ana", {"body_tl": 2}, actor_id="ana", player=True)
    table.add_actor(
        "Guard",
        {
            "body_tl": 1,
            "immune": ["poison"],
            "worn": [{"name": "Power armour", "kind": "armour", "boxes": 20, "tl": 5}],
        },
        actor_id="guard",
    )
    return table


def test_engine_hit_with_supplied_dice(ruleset_harness):
    """Acceptance 1 end to end: the table supplies a 4; the guard's armour takes 1 box."""
    table = _table(ruleset_harness)
    event = table.resolve(
        "hit", actor="ana", targets=["guard"], params={"dice": "1d6", "tl": 2}, dice=[4]
    )
    assert event["data"]["outcome"]["crossed"] == 1
    assert table.state("guard")["armour"]["crossed"] == 1


def test_engine_player_sees_layers_not_tl(ruleset_harness):
    table = _table(ruleset_harness)
    table.resolve("hit", actor="ana", targets=["guard"], params={"dice": "1d6", "tl": 5}, dice=[6])
    seen = table.actor("guard", gm=False)
    tracks = {t["key"]: (t["value"], t["max"]) for t in seen["common"]["tracks"]}
    assert tracks["armour"] == (6, 20)
    assert seen["sheet"] is None
    assert "tl" not in seen["state"]["armour"]
    assert "Power armour" not in str(seen)


def test_engine_setting_shows_details(ruleset_harness):
    table = _table(ruleset_harness, show_npc_details=True)
    seen = table.actor("guard", gm=False)
    assert seen["state"]["armour"]["tl"] == 5
    assert seen["sheet"]["immune"] == ["poison"]


def test_engine_player_cannot_heal(ruleset_harness):
    table = _table(ruleset_harness)
    before = table.state("ana")
    with pytest.raises(Forbidden):
        table.resolve("heal", targets=["ana"], who=PLAYER)
    assert table.state("ana") == before
