"""The five acceptance examples of rulesets/wilddie.md, one test each."""

from __future__ import annotations

import copy

import pytest

from rollbridge.exceptions import RuleViolation
from rollbridge.plugins.wilddie.traits import defense, toughness


def test_example1_toughness_and_defense(wd):
    """Vigor d8 → Toughness 6; Fighting d10 → Defense 7; no Fighting → Defense 2."""
    tough = wd.actor("t", vigor="d8")
    fighter = wd.actor("f", skills={"fighting": "d10"})
    brawler_less = wd.actor("n", skills={"shooting": "d8"})
    assert toughness(tough.sheet) == 6
    assert defense(fighter.sheet) == 7
    assert defense(brawler_less.sheet) == 2

    # and the actions use them: a melee attack rolls against Defense 7 / 2 ...
    ana = wd.actor("ana", skills={"fighting": "d6"})
    res = wd.resolve("attack", {"mode": "melee"}, actor=ana, targets=[fighter], dice=[3, 2])
    assert res.outcome["difficulty"] == 7
    res = wd.resolve("attack", {"mode": "melee"}, actor=ana, targets=[brawler_less], dice=[3, 2])
    assert res.outcome["difficulty"] == 2
    # ... and damage against Toughness 6
    res = wd.resolve("damage", {"dice": "d10"}, targets=[tough], dice=[5])
    assert res.outcome["toughness"] == 6


@pytest.mark.parametrize(
    ("total", "shaken_before", "result", "wounds"),
    [
        (10, False, "wound", 1),
        (7, False, "shaken", 0),
        (7, True, "wound", 1),
        (5, False, "none", 0),
    ],
)
def test_example2_damage_against_toughness(wd, total, shaken_before, result, wounds):
    """Damage 10 vs Toughness 6 → wound; 7 → Shaken; 7 while Shaken → wound; 5 → nothing."""
    target = wd.actor("t", vigor="d8", state={"shaken": shaken_before})
    res = wd.resolve("damage", {"dice": "d12"}, targets=[target], dice=[total])
    assert res.outcome["total"] == total
    assert res.outcome["result"] == result
    assert res.outcome["wounds_inflicted"] == wounds
    new = res.states["t"]
    assert new["wounds"] == wounds
    assert new["shaken"] is (result != "none" or shaken_before)


def test_example2_as_a_sequence(wd):
    """7 makes a fresh target Shaken; a second 7 then wounds it."""
    target = wd.actor("t", vigor="d8")
    first = wd.resolve("damage", {"dice": "d12"}, targets=[target], dice=[7])
    assert first.states["t"]["shaken"] is True
    assert first.states["t"]["wounds"] == 0
    target = wd.after(target, first)
    second = wd.resolve("damage", {"dice": "d12"}, targets=[target], dice=[7])
    assert second.outcome["result"] == "wound"
    assert second.states["t"]["wounds"] == 1


def test_example3_wild_die_aces_and_is_kept(wd):
    """A pc rolls d8 showing 2 and the wild die 6 then 3 (9): 9, success vs 4, one raise."""
    ana = wd.actor("ana", skills={"notice": "d8"})
    res = wd.resolve("trait", {"trait": "notice"}, actor=ana, dice=[2, 6, 3])
    out = res.outcome
    assert out["trait_die"]["rolls"] == [2]
    assert out["wild_die"]["rolls"] == [6, 3]
    assert out["wild_die"]["value"] == 9
    assert out["kept"] == "wild"
    assert out["total"] == 9
    assert out["difficulty"] == 4
    assert out["success"] is True
    assert out["raises"] == 1


def test_example4_npc_has_no_wild_die(wd):
    """An npc rolls d6 showing 3 against 4: failure; it has no wild die."""
    guard = wd.actor("g", kind="npc", skills={"notice": "d6"})
    # ScriptedDice([3]).finish() in the kit fails if a second (wild) die were rolled
    res = wd.resolve("trait", {"trait": "notice"}, actor=guard, dice=[3])
    assert res.outcome["wild_die"] is None
    assert res.outcome["total"] == 3
    assert res.outcome["success"] is False
    assert len(res.dice[0].dice) == 1


def test_example5_chip_rerolls_trait_die_only_then_second_chip_refused(wd):
    """A chip rerolls the trait die only; a second chip on the same roll is refused."""
    ana = wd.actor("ana", skills={"notice": "d8"})
    first = wd.resolve("trait", {"trait": "notice"}, actor=ana, dice=[2, 3], request_id="r1")
    assert first.outcome["total"] == 3
    ana = wd.after(ana, first)
    # the reroll draws exactly one d8 (finish() would fail on a wild die too)
    chip = wd.resolve("chip", {"roll": "r1", "die": "trait"}, actor=ana, dice=[7])
    assert chip.outcome["rerolled"] == ["trait"]
    assert chip.outcome["trait_die"]["rolls"] == [7]
    assert chip.outcome["wild_die"]["rolls"] == [3]  # untouched
    assert chip.outcome["total"] == 7
    assert chip.states["ana"]["chips"] == 2
    ana = wd.after(ana, chip)
    before = copy.deepcopy(dict(ana.state))
    with pytest.raises(RuleViolation) as err:
        wd.resolve("chip", {"roll": "r1", "die": "wild"}, actor=ana, dice=[4])
    assert err.value.code == "chip_already_spent"
    assert dict(ana.state) == before
