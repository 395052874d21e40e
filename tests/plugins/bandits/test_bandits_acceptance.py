"""The six acceptance examples of rulesets/bandits.md, each through ``resolve``."""

from __future__ import annotations


def test_acceptance_1_seriously_wounded_takes_2_marks_heavily_then_disadvantage(kit):
    """Slots {2} marked, takes 2 wounds → {2, 3}; the next move roll has disadvantage."""
    boris = kit.bandit("boris", slots={2})
    # taking harm: 2d6 [3, 4] = 7 − Steady 0 − Armour 0 + Pierce 0 = 7 → 2 wounds
    hit = kit.run("harm", {"direction": "taken", "pierce": 0}, dice=[3, 4], targets=[boris])
    assert hit.outcome["wounds"] == 2
    boris = kit.apply(boris, hit)
    assert kit.slots(boris) == {2, 3}

    move = kit.run("move", {}, dice=[6, 5, 1], actor=boris)
    assert move.outcome["disadvantage"] is True
    assert move.outcome["dice"] == [6, 5, 1]
    assert move.outcome["dropped"] == 6  # the highest is dropped
    assert move.outcome["total"] == 6
    assert move.outcome["band"] == "miss"


def test_acceptance_2_harm_14_is_4_wounds_and_dying(kit):
    """Slots {} and a harm roll of 14 → 4 wounds → slot 4: dying."""
    ana = kit.bandit("ana")
    # 6 + 6 + attacker's Pierce 2 = 14
    hit = kit.run("harm", {"direction": "taken", "pierce": 2}, dice=[6, 6], targets=[ana])
    assert hit.outcome["total"] == 14
    assert hit.outcome["wounds"] == 4
    assert hit.outcome["slot"] == 4
    ana = kit.apply(ana, hit)
    assert kit.slots(ana) == {4}
    assert ana.state["dying"] is True and ana.state["dead"] is False
    assert kit.ruleset.common_state(ana).status == "dying"


def test_acceptance_3_heavily_and_dying_then_3_wounds_is_dead(kit):
    """Slots {3, 4} and 3 wounds → dead."""
    ana = kit.bandit("ana", slots={3, 4})
    hit = kit.run("harm", {"direction": "taken", "pierce": 0}, dice=[5, 5], targets=[ana])
    assert hit.outcome["wounds"] == 3
    ana = kit.apply(ana, hit)
    assert ana.state["dead"] is True
    assert kit.ruleset.common_state(ana).status == "dead"


def test_acceptance_4_medpacks(kit):
    """{2, 3} + medpack-1 → {1, 3}; {2, 3} + medpack-3 → {2}."""
    ana = kit.bandit("ana", slots={2, 3})
    small = kit.run("medpack", {"n": 1}, targets=[ana])
    assert kit.slots(small.states["ana"]) == {1, 3}
    big = kit.run("medpack", {"n": 3}, targets=[ana])
    assert kit.slots(big.states["ana"]) == {2}


def test_acceptance_5_stat_3_and_situational_3_is_plus_4(kit):
    """Move with stat +3 and situational +3 → modifier +4."""
    ana = kit.bandit("ana", stats={"cool": 3})
    move = kit.run("move", {"stat": "cool", "modifiers": [3]}, dice=[2, 3], actor=ana)
    assert move.outcome["modifier_raw"] == 6
    assert move.outcome["modifier"] == 4
    assert move.outcome["clamped"] is True
    assert move.outcome["total"] == 2 + 3 + 4


def test_acceptance_6_extra_hit_for_1_is_wounded_then_out(kit):
    """An extra hit for 1 wound is wounded; hit again for 1, out."""
    ana = kit.bandit("ana")
    guard = kit.extra("guard")
    # dealing harm: 2d6 [2, 3] = 5 − Armour 0 + Pierce 0 = 5 → 1 wound
    first = kit.run("harm", {"direction": "dealt"}, dice=[2, 3], actor=ana, targets=[guard])
    assert first.outcome["wounds"] == 1
    guard = kit.apply(guard, first)
    assert guard.state["wounded"] is True and guard.state["out"] is False
    second = kit.run("harm", {"direction": "dealt"}, dice=[1, 3], actor=ana, targets=[guard])
    assert second.outcome["wounds"] == 1
    guard = kit.apply(guard, second)
    assert guard.state["out"] is True
    assert kit.ruleset.common_state(guard).status == "down"
