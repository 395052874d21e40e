"""The four acceptance examples of rulesets/techlevel.md."""

from __future__ import annotations

import pytest

from rollbridge.exceptions import RuleViolation


def test_acceptance_1_revolver_against_power_armour(tl, make_armour):
    """Revolver 1d6 TL2, roll 4, against power armour TL5 → 1 box; roll 3 → 0 boxes."""
    guard = tl.actor(worn=[make_armour("Power armour", boxes=20, tl=5)])

    four = tl.hit(guard, "1d6", tl=2, rolled=[4], weapon="Revolver")
    assert four.outcome["layer"] == "armour"
    assert four.outcome["factor"] == "/4"
    assert four.outcome["crossed"] == 1
    assert four.states["t"]["armour"]["crossed"] == 1

    three = tl.hit(guard, "1d6", tl=2, rolled=[3], weapon="Revolver")
    assert three.outcome["crossed"] == 0
    assert three.states["t"]["armour"]["crossed"] == 0
    assert three.states["t"]["ksk"] == {"lethal": 0, "shock": 0}


def test_acceptance_2_excess_is_lost_and_the_body_untouched(tl, make_armour):
    """Weapon TL4, roll 3, against armour TL1 with 10 boxes → 12 boxes: the
    armour is destroyed and 2 boxes are lost; the body is untouched."""
    target = tl.actor(worn=[make_armour("Leather", boxes=10, tl=1)])
    result = tl.hit(target, "1d6", tl=4, rolled=[3])
    assert result.outcome["boxes"] == 12
    assert result.outcome["crossed"] == 10
    assert result.outcome["lost"] == 2
    assert result.outcome["destroyed"] is True
    state = result.states["t"]
    assert state["armour"]["crossed"] == 10
    assert state["armour"]["destroyed"] is True
    assert state["ksk"] == {"lethal": 0, "shock": 0}
    assert state["gsk"] == 0


def test_acceptance_3_fire_immune_armour(tl, make_armour):
    """Armour immune to fire, hit by fire → 0 boxes, body untouched."""
    target = tl.actor(worn=[make_armour("Asbestos suit", boxes=10, tl=1, immune=["fire"])])
    result = tl.hit(target, "2d6", tl=5, rolled=[6, 6], type="fire")
    assert result.outcome["immune"] is True
    assert result.outcome["boxes"] == 0
    assert result.outcome["crossed"] == 0
    assert result.states["t"]["armour"]["crossed"] == 0
    assert result.states["t"]["ksk"] == {"lethal": 0, "shock": 0}


def test_acceptance_4_second_armour_is_refused_and_changes_nothing(tl, make_armour):
    """Putting a second armour on an armoured layer is refused and changes nothing."""
    target = tl.actor(worn=[make_armour("Chainmail", boxes=10, tl=1)])
    before = target.state
    with pytest.raises(RuleViolation) as caught:
        tl.run("don", {"item": make_armour("Plate", boxes=20, tl=2)}, actor=target)
    assert caught.value.code == "layer_occupied"
    assert "Chainmail" in caught.value.message
    assert target.state == before
    assert target.state["armour"]["name"] == "Chainmail"
