"""Independent cases for the ``techlevel`` ruleset, each computed by hand from the
rules file (docs/sources/rules/techlevel.md, TL-1 to TL-11), not from the code: the
whole TL table, rounding down, excess lost at every layer, immunity, shock against
lethal boxes, mental damage and its carry, wearing refusals and vehicle sections.
Every case runs on the real table engine (:class:`~rollbridge.testing.RulesetHarness`)
with supplied dice or a roll given whole, and cites the rule it follows."""

from __future__ import annotations

from typing import Any

import pytest

from rollbridge.exceptions import RollbridgeError, RuleViolation
from rollbridge.plugins.techlevel import TechLevel
from rollbridge.testing import RulesetHarness


def armour(tl: int, boxes: int = 20, **more: Any) -> dict[str, Any]:
    """An armour item of ``boxes`` boxes at ``tl``."""
    return {"name": "Armour", "kind": "armour", "boxes": boxes, "tl": tl, **more}


def table_with(sheet: dict[str, Any], state: dict[str, Any] | None = None) -> RulesetHarness:
    """A techlevel table holding one target ``t`` with ``sheet`` (and ``state``)."""
    t = RulesetHarness(TechLevel())
    t.add_actor("Target", sheet, actor_id="t", state=state)
    return t


def hit(
    t: RulesetHarness,
    tl: int,
    *,
    roll: int | None = None,
    dice: list[int] | None = None,
    expr: str = "1d6",
    **params: Any,
) -> dict[str, Any]:
    """``t`` hit by a TL-``tl`` weapon: with a roll given whole, or supplied dice."""
    body: dict[str, Any] = {"dice": expr, "tl": tl, **params}
    if roll is not None:
        body["roll"] = roll
    return t.resolve("hit", targets=["t"], params=body, dice=dice)["data"]["outcome"]


#: The seed's table as the rules file prints it ("The table above is the reference",
#: TL-4), row = weapon TL 1–5, column = armour TL 1–5: copied cell by cell, not
#: computed from TL-4's formula (which the code also follows).
SEED_TABLE = (
    ("×1", "/2", "/3", "/4", "/5"),
    ("×2", "×1", "/2", "/3", "/4"),
    ("×3", "×2", "×1", "/2", "/3"),
    ("×4", "×3", "×2", "×1", "/2"),
    ("×5", "×4", "×3", "×2", "×1"),
)
CELLS = [(w, a) for w in range(1, 6) for a in range(1, 6)]


@pytest.mark.parametrize(("weapon", "layer"), CELLS)
def test_tl_4_the_whole_table(weapon, layer):
    """TL-4: "The table above is the reference" — every cell of the seed's table,
    read from :data:`SEED_TABLE`, with a roll of 7 against a 20-box armour (×5 gives
    35: the boxes the factor gives are reported, the crossed ones capped at 20)."""
    t = table_with({"body_tl": 1, "worn": [armour(layer)]})
    out = hit(t, weapon, roll=7)
    cell = SEED_TABLE[weapon - 1][layer - 1]
    want = 7 * int(cell[1:]) if cell[0] == "×" else 7 // int(cell[1:])
    assert out["factor"] == cell
    assert out["layer"] == "armour"
    assert out["boxes"] == want
    assert out["crossed"] == min(want, 20)
    assert out["lost"] == max(0, want - 20)


@pytest.mark.parametrize(("roll", "boxes"), [(4, 1), (3, 0), (7, 1), (8, 2)])
def test_tl_4_division_rounds_down(roll, boxes):
    """TL-4 and acceptance 1: revolver TL2 against power armour TL5: /4, rounded down
    — 4 → 1, 3 → 0, 7 → 1, 8 → 2. Supplied dice on a 1d6 (8 on a 2d6: 4 + 4)."""
    t = table_with({"body_tl": 1, "worn": [armour(5)]})
    dice = [roll] if roll <= 6 else [roll - 4, 4]
    out = hit(t, 2, dice=dice, expr="1d6" if roll <= 6 else "2d6")
    assert out["roll"] == roll
    assert out["boxes"] == boxes
    assert t.state("t")["armour"]["crossed"] == boxes


def test_tl_4_the_body_at_its_own_tl():
    """TL-2/TL-4: the body is 10 KSK at the being's TL: weapon TL1, roll 6 against
    body TL3 is ⌊6/3⌋ = 2 boxes."""
    t = table_with({"body_tl": 3})
    out = hit(t, 1, roll=6)
    assert out["layer"] == "body"
    assert out["boxes"] == 2
    assert t.state("t")["ksk"] == {"lethal": 2, "shock": 0}


def test_tl_5_excess_is_lost_and_the_body_untouched():
    """TL-5 and acceptance 2: TL4 roll 3 against armour TL1 of 10 boxes → 12: the
    armour is destroyed, 2 are lost, the body is untouched; the next hit strikes
    the body."""
    t = table_with({"body_tl": 1, "worn": [armour(1, 10)]})
    out = hit(t, 4, roll=3)
    assert (out["boxes"], out["crossed"], out["lost"], out["destroyed"]) == (12, 10, 2, True)
    assert t.state("t")["ksk"] == {"lethal": 0, "shock": 0}
    after = hit(t, 1, roll=1)
    assert after["layer"] == "body"
    assert t.state("t")["ksk"]["lethal"] == 1


def test_tl_5_a_partly_crossed_layer_takes_only_its_free_boxes():
    """TL-5: "Boxes past the hit layer's free boxes are lost": armour 10 with 8
    crossed takes 2 of a 5-box hit and loses 3."""
    t = table_with({"body_tl": 1, "worn": [armour(1, 10, crossed=8)]})
    out = hit(t, 1, roll=5)
    assert (out["crossed"], out["lost"], out["destroyed"]) == (2, 3, True)


def test_tl_5_exactly_the_free_boxes_destroys_with_nothing_lost():
    """TL-5: "A layer whose boxes are all crossed is destroyed": 10 on a fresh
    10-box armour destroys it, 0 lost."""
    t = table_with({"body_tl": 1, "worn": [armour(1, 10)]})
    out = hit(t, 1, roll=10)
    assert (out["crossed"], out["lost"], out["destroyed"]) == (10, 0, True)


def test_tl_3_outermost_present_layer_first():
    """TL-2/TL-3: the personal energy shield (layer 4) is hit before the armour
    (layer 5); once destroyed, the armour."""
    shield = {"name": "Shield", "kind": "shield", "boxes": 3, "tl": 1}
    t = table_with({"body_tl": 1, "worn": [armour(1, 10), shield]})
    first = hit(t, 1, roll=5)
    assert (first["layer"], first["crossed"], first["lost"]) == ("shield", 3, 2)
    second = hit(t, 1, roll=4)
    assert second["layer"] == "armour"
    assert t.state("t")["armour"]["crossed"] == 4


def test_tl_6_immune_layer_takes_nothing_and_ends_the_hit():
    """TL-6 and acceptance 3: armour immune to fire, hit by fire → 0 boxes, body
    untouched."""
    t = table_with({"body_tl": 1, "worn": [armour(1, 10, immune=["fire"])]})
    out = hit(t, 5, roll=6, type="fire")
    assert (out["immune"], out["boxes"], out["crossed"]) == (True, 0, 0)
    state = t.state("t")
    assert state["armour"]["crossed"] == 0
    assert state["ksk"] == {"lethal": 0, "shock": 0}


def test_tl_7_shock_beyond_free_boxes_is_lost():
    """TL-7: "shock damage beyond free boxes is lost": lethal 6, shock 1 (3 free), a
    shock hit of 5 crosses 3 as shock and loses 2 — it never turns a box lethal."""
    t = table_with({"body_tl": 1}, {"ksk": {"lethal": 6, "shock": 1}})
    out = hit(t, 1, roll=5, type="shock")
    assert (out["crossed"], out["lost"]) == (3, 2)
    assert t.state("t")["ksk"] == {"lethal": 6, "shock": 4}
    assert t.actor("t")["common"]["status"] == "down"


def test_tl_7_lethal_crosses_free_then_turns_shock_lethal():
    """TL-7: "lethal damage crosses free boxes first, then turns shock boxes into
    lethal ones": lethal 2, shock 5 (3 free), lethal 5 → 3 free crossed, 2 shock
    converted: lethal 7, shock 3."""
    t = table_with({"body_tl": 1}, {"ksk": {"lethal": 2, "shock": 5}})
    out = hit(t, 1, roll=5)
    assert (out["crossed"], out["converted"], out["lost"]) == (3, 2, 0)
    assert t.state("t")["ksk"] == {"lethal": 7, "shock": 3}


def test_tl_7_all_lethal_is_dead_and_the_rest_lost():
    """TL-7: "A being is dead when all 10 KSK boxes are lethal": lethal 4, shock 4,
    lethal 9 → 2 free crossed, 4 converted, 3 lost: dead."""
    t = table_with({"body_tl": 1}, {"ksk": {"lethal": 4, "shock": 4}})
    out = hit(t, 1, roll=9)
    assert (out["crossed"], out["converted"], out["lost"]) == (2, 4, 3)
    assert t.state("t")["ksk"] == {"lethal": 10, "shock": 0}
    assert t.actor("t")["common"]["status"] == "dead"


def test_tl_7_recovery_clears_shock():
    """TL-7: "A recovery action clears shock boxes": lethal 3 stays."""
    t = RulesetHarness(TechLevel())
    t.add_actor("Target", {"body_tl": 1}, actor_id="t", state={"ksk": {"lethal": 3, "shock": 7}})
    t.resolve("recover", actor="t", params={})
    assert t.state("t")["ksk"] == {"lethal": 3, "shock": 0}


def test_tl_8_mental_bypasses_armour_at_tl_one():
    """TL-8: "mental damage bypasses the physical layers and strikes the 10 GSK boxes
    at TL 1": a TL3 mental hit of 2 against a being in TL5 armour is 2 × 3 = 6 GSK;
    the armour is untouched."""
    t = table_with({"body_tl": 4, "worn": [armour(5)]})
    out = hit(t, 3, roll=2, type="mental")
    assert out["layer"] == "mind"
    assert out["boxes"] == 6
    state = t.state("t")
    assert state["gsk"] == 6
    assert state["armour"]["crossed"] == 0


def test_tl_8_mental_excess_carries_into_ksk_lethal():
    """TL-8: "GSK excess is not lost — it carries into KSK as lethal physical boxes,
    one for one": GSK 8, mental 5 at TL1 → GSK 10 (down) and 3 lethal KSK, not
    divided by the body's TL 3."""
    t = table_with({"body_tl": 3}, {"gsk": 8})
    hit(t, 1, roll=5, type="mental")
    state = t.state("t")
    assert state["gsk"] == 10
    assert state["ksk"] == {"lethal": 3, "shock": 0}
    assert t.actor("t")["common"]["status"] == "down"


def test_tl_9_second_armour_is_refused_and_changes_nothing():
    """TL-9 and acceptance 4: "Donning an item on an occupied layer is an error (no
    stacking, no swapping for the better)", even for a better armour."""
    t = table_with({"body_tl": 1, "worn": [armour(1, 10)]})
    before = t.state("t")
    with pytest.raises(RuleViolation) as refused:
        t.resolve("don", actor="t", params={"item": armour(5, 20)})
    assert refused.value.code == "layer_occupied"
    assert t.state("t") == before


def test_tl_9_magical_armour_cannot_be_taken_off():
    """TL-9: "A magical armour cannot be taken off, replaced or stacked"."""
    t = table_with({"body_tl": 1, "worn": [armour(2, 10, magical=True)]})
    before = t.state("t")
    with pytest.raises(RuleViolation) as refused:
        t.resolve("doff", actor="t", params={"layer": "armour"})
    assert refused.value.code == "magical_armour_present"
    assert t.state("t") == before


def test_tl_9_cast_onto_armour_refused_improve_sets_boxes():
    """TL-9: "Casting a magical armour onto a layer that already holds an armour is an
    error; improving that armour with the same magic is allowed and sets its boxes to
    the spell's number"."""
    t = table_with({"body_tl": 1, "worn": [armour(1, 10)]})
    before = t.state("t")
    with pytest.raises(RuleViolation) as refused:
        t.resolve(
            "enchant",
            targets=["t"],
            params={"mode": "cast", "spell": "Ironskin", "boxes": 20, "tl": 3},
        )
    assert refused.value.code == "cast_onto_armour"
    assert t.state("t") == before
    t.resolve(
        "enchant", targets=["t"], params={"mode": "improve", "spell": "Ironskin", "boxes": 20}
    )
    assert t.state("t")["armour"]["boxes"] == 20
    assert t.state("t")["armour"]["magical"] is True


def jeep(tl: int = 3) -> dict[str, Any]:
    """A two-section vehicle."""
    return {"name": "Jeep", "tl": tl, "sections": [{"name": "front"}, {"name": "rear"}]}


def test_tl_10_first_intact_section_and_loss_within_it():
    """TL-10: "A vehicle layer has 20 boxes per section. A hit strikes … the first
    intact one; excess is lost within that section": 25 → front destroyed, 5 lost,
    rear untouched; the next hit strikes the rear."""
    t = table_with({"body_tl": 1, "vehicles": [jeep()], "mounted": "Jeep"})
    out = hit(t, 3, roll=25)
    assert (out["layer"], out["section"], out["crossed"], out["lost"]) == (
        "vehicle",
        "front",
        20,
        5,
    )
    assert out["vehicle_destroyed"] is False
    second = hit(t, 3, roll=20)
    assert second["section"] == "rear"
    assert second["vehicle_destroyed"] is True
    third = hit(t, 1, roll=1)
    assert third["layer"] == "body"


def test_tl_10_a_named_section():
    """TL-10: "A hit strikes a named section": rear, TL1 weapon against TL3 vehicle,
    roll 9 → ⌊9/3⌋ = 3 boxes on the rear only."""
    t = table_with({"body_tl": 1, "vehicles": [jeep()], "mounted": "Jeep"})
    out = hit(t, 1, roll=9, section="rear")
    assert (out["section"], out["boxes"]) == ("rear", 3)
    sections = {s["name"]: s["crossed"] for s in t.state("t")["vehicle"]["sections"]}
    assert sections == {"front": 0, "rear": 3}


def test_tl_2_rider_carries_vehicle_layers_above_its_own():
    """TL-2: "A rider … carries the stack of its vehicle or mount above its own layers
    while mounted": the mount's armour (layer 2) before the vehicle (3) and the
    rider's own armour (5)."""
    mount = {"name": "Horse", "kind": "mount", "tl": 1, "worn": [armour(1, 10)]}
    t = table_with({"body_tl": 1, "worn": [armour(1, 10)], "vehicles": [mount], "mounted": "Horse"})
    out = hit(t, 1, roll=2)
    assert out["layer"] == "vehicle_armour"


def test_tl_8_mental_carry_is_lethal_and_turns_shock():
    """TL-8 with TL-7: the GSK excess "carries into KSK as lethal physical boxes" and
    lethal damage "crosses free boxes first, then turns shock boxes into lethal ones":
    GSK 9, KSK shock 9 (1 free), mental 4 → GSK 10, excess 3: 1 free crossed, 2 shock
    turned lethal."""
    t = table_with({"body_tl": 1}, {"gsk": 9, "ksk": {"lethal": 0, "shock": 9}})
    hit(t, 1, roll=4, type="mental")
    state = t.state("t")
    assert state["gsk"] == 10
    assert state["ksk"] == {"lethal": 3, "shock": 7}


def test_tl_6_a_mind_immune_to_mental_takes_nothing():
    """TL-6 for the mind: a being immune to ``mental`` takes 0 GSK."""
    t = table_with({"body_tl": 1, "immune": ["mental"]})
    out = hit(t, 5, roll=6, type="mental")
    assert (out["immune"], out["boxes"]) == (True, 0)
    assert t.state("t")["gsk"] == 0


def test_tl_11_an_armour_has_ten_or_twenty_boxes():
    """TL-11: "Armour has 10 or 20 boxes": a 15-box armour is refused, naming the
    field, and changes nothing."""
    t = table_with({"body_tl": 1})
    before = t.state("t")
    with pytest.raises(RollbridgeError) as refused:
        t.resolve("don", actor="t", params={"item": armour(1, 15)})
    assert refused.value.code == "invalid_params"
    assert "boxes" in str(refused.value)
    assert t.state("t") == before


def test_tl_9_a_magical_armour_stays_until_destroyed():
    """TL-9: "A magical armour cannot be taken off, replaced or stacked; it stays until
    destroyed or dispelled": a cast armour refuses another armour and another cast;
    once a hit destroys it, it comes off and a plain armour goes on."""
    t = table_with({"body_tl": 1})
    cast = {"mode": "cast", "spell": "Ironskin", "boxes": 10, "tl": 2}
    t.resolve("enchant", targets=["t"], params=cast)
    for action, params, code in (
        ("don", {"item": armour(1, 10)}, "magical_armour_present"),
        ("enchant", {**cast, "spell": "Stoneskin"}, "cast_onto_armour"),
    ):
        before = t.state("t")
        with pytest.raises(RuleViolation) as refused:
            t.resolve(
                action, actor="t", targets=["t"] if action == "enchant" else [], params=params
            )
        assert refused.value.code == code
        assert t.state("t") == before
    out = hit(t, 2, roll=10)
    assert out["destroyed"] is True
    t.resolve("doff", actor="t", params={"layer": "armour"})
    t.resolve("don", actor="t", params={"item": armour(1, 10)})
    assert t.state("t")["armour"]["magical"] is False


def test_tl_9_a_dispelled_magical_armour_frees_the_layer():
    """TL-9: the magical armour "stays until destroyed or dispelled" — the seed: "only
    then may another armour (magical or not) be used": dispelled, a plain armour goes
    on, and the next hit strikes it."""
    t = table_with({"body_tl": 1})
    t.resolve(
        "enchant", targets=["t"], params={"mode": "cast", "spell": "Ironskin", "boxes": 10, "tl": 2}
    )
    t.resolve("dispel", targets=["t"], params={"layer": "armour"})
    t.resolve("don", actor="t", params={"item": armour(1, 10)})
    assert t.state("t")["armour"]["magical"] is False
    out = hit(t, 1, roll=3)
    assert (out["layer"], out["crossed"]) == ("armour", 3)


def test_tl_8_setting_off_loses_the_gsk_excess():
    """TL-8's carry is a Decision with the setting ``mental_excess_to_body``: off, the
    seed's general rule holds ("boxes beyond what a layer can take … are lost"): GSK 8,
    mental 5 at TL1 → GSK 10, 3 lost, KSK untouched."""
    t = RulesetHarness(TechLevel(), settings={"ruleset": {"mental_excess_to_body": False}})
    t.add_actor("Target", {"body_tl": 3}, actor_id="t", state={"gsk": 8})
    out = hit(t, 1, roll=5, type="mental")
    assert (out["crossed"], out["lost"]) == (2, 3)
    assert t.state("t")["gsk"] == 10
    assert t.state("t")["ksk"] == {"lethal": 0, "shock": 0}


def test_tl_10_a_named_destroyed_section_takes_nothing():
    """TL-10 with TL-5: "A hit strikes a named section … excess is lost within that
    section" — Decision 9 of docs/rulesets/techlevel.md: a hit aimed at a
    destroyed section is lost; it passes neither to another section nor inward."""
    jeep_hit = {
        "name": "Jeep",
        "tl": 3,
        "sections": [{"name": "front", "crossed": 20}, {"name": "rear"}],
    }
    t = table_with({"body_tl": 1, "vehicles": [jeep_hit], "mounted": "Jeep"})
    out = hit(t, 3, roll=5, section="front")
    assert (out["layer"], out["section"], out["crossed"], out["lost"]) == ("vehicle", "front", 0, 5)
    sections = {s["name"]: s["crossed"] for s in t.state("t")["vehicle"]["sections"]}
    assert sections == {"front": 20, "rear": 0}
    assert t.state("t")["ksk"] == {"lethal": 0, "shock": 0}
