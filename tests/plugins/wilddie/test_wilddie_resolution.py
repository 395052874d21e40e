"""What a resolution shows (issue item 3): both dice with every ace step, the
modifiers on each, the kept die, success, raises; damage against Toughness with
the effect and why; chips spent; the new states."""

from __future__ import annotations

from rollbridge.dice import Die


def test_trait_resolution_shows_dice_modifiers_kept_success_raises(wd):
    ana = wd.actor("ana", state={"wounds": 1}, skills={"shooting": "d6"})
    params = {"trait": "shooting", "difficulty": 5, "modifiers": [{"value": 2, "note": "aim"}]}
    res = wd.resolve("trait", params, actor=ana, dice=[6, 6, 1, 6, 2], request_id="q")
    out = res.outcome
    assert out["trait_die"] == {
        "faces": 6,
        "rolls": [6, 6, 1],
        "value": 13,
        "aces": 2,
        "modified": 14,
        "kept": True,
    }
    assert out["wild_die"] == {
        "faces": 6,
        "rolls": [6, 2],
        "value": 8,
        "aces": 1,
        "modified": 9,
        "kept": False,
    }
    assert out["modifiers"] == [{"value": -1, "note": "1 wound"}, {"value": 2, "note": "aim"}]
    assert out["modifier"] == 1
    assert (out["kept"], out["total"], out["success"], out["raises"]) == ("trait", 14, True, 2)
    assert out["chips_spent"] == 0 and out["chips_left"] == 3
    assert out["new_state"] == {"shaken": False, "wounds": 1, "incapacitated": False, "chips": 3}
    group = res.dice[0]
    assert group.total == 14 and group.target == 5
    assert [d.rolls for d in group.dice] == [(6, 6, 1), (6, 2)]
    assert [d.kept for d in group.dice] == [True, False]
    assert "wild" in group.dice[1].tags
    text = "\n".join(res.steps)
    assert "6 + 6 + 1 = 13 (2 aces)" in text
    assert "−1 (1 wound)" in text and "+2 (aim)" in text
    assert "kept the trait die: 14" in text
    assert "success with 2 raises" in res.narration


def test_chip_resolution_shows_replaced_die_and_chips(wd):
    ana = wd.actor("ana")
    ana = wd.after(
        ana, wd.resolve("trait", {"trait": "vigor"}, actor=ana, dice=[2, 1], request_id="q")
    )
    res = wd.resolve("chip", {"roll": "q", "die": "wild"}, actor=ana, dice=[6, 3])
    out = res.outcome
    assert out["replaced"] == {"wild": Die(6, (1,), 1, tags=("wild",)).to_dict()}
    assert out["wild_die"]["rolls"] == [6, 3]
    assert out["chips_spent"] == 1 and out["chips_left"] == 2
    assert out["before"] == {"kept": "trait", "total": 2, "success": False, "raises": 0}
    dice = res.dice[0].dice
    assert [("rerolled" in d.tags, "reroll" in d.tags) for d in dice] == [
        (False, False),
        (True, False),
        (False, True),
    ]
    assert res.states["ana"]["rolls"][-1]["chip_spent"] is True


def test_damage_resolution_shows_toughness_effect_and_why(wd):
    ana = wd.actor("ana", strength="d8")
    guard = wd.actor("g", kind="npc", vigor="d6", armor=1)  # Toughness 6
    res = wd.resolve(
        "damage", {"dice": "d6", "melee": True}, actor=ana, targets=[guard], dice=[8, 2, 3]
    )
    out = res.outcome
    assert out["total"] == 13 and out["toughness"] == 6
    assert out["toughness_parts"] == {"base": 2, "vigor": 3, "armor": 1}
    assert out["result"] == "wound" and out["margin"] == 7
    assert "by 7" in out["why"]
    assert out["new_state"]["incapacitated"] is True
    assert [g.label for g in res.dice] == ["Strength d8", "weapon 1d6"]
    assert any("armour 1" in s for s in res.steps)
    assert "out of the fight" in res.narration
