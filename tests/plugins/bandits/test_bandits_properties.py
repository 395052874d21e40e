"""Property tests (hypothesis): marked slots only grow under harm (BD-6), dead is final
within a raid (BD-6, BD-8), the move modifier always lies within −4..+4 (BD-1)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from rollbridge.dice import ScriptedDice, SeededDice
from rollbridge.exceptions import RuleViolation

die = st.integers(1, 6)
slot_sets = st.sets(st.integers(1, 4))


@settings(max_examples=300, deadline=None)
@given(
    slots=slot_sets,
    stabilised=st.booleans(),
    steady=st.integers(-3, 3),
    armour=st.integers(0, 10),
    pierce=st.integers(0, 20),
    dice=st.tuples(die, die),
    direction=st.sampled_from(["dealt", "taken"]),
    reduction=st.integers(0, 7),
    instead=st.booleans(),
)
def test_BD6_marked_slots_only_grow_under_harm(
    kit, slots, stabilised, steady, armour, pierce, dice, direction, reduction, instead
):
    target = kit.bandit(
        "boris",
        slots=slots,
        stabilised=stabilised and 4 in slots,
        stats={"steady": steady},
        armour=armour,
    )
    params = {
        "direction": direction,
        "pierce": pierce,
        "reduction": reduction,
        "wound_instead_of_trouble": instead and direction == "taken",
    }
    attacker = kit.bandit("ana") if direction == "dealt" else None
    hit = kit.run("harm", params, dice=list(dice), actor=attacker, targets=[target])
    after = hit.states["boris"]
    assert kit.slots(after) >= slots
    assert len(kit.slots(after) - slots) <= 1
    if not after["dead"]:
        assert hit.outcome["wounds"] <= 4
        assert (hit.outcome["slot"] is None) == (hit.outcome["wounds"] == 0)
    assert json.loads(json.dumps(after)) == after


HARM = st.tuples(st.just("harm"), st.tuples(die, die), st.integers(0, 12))
OPS = st.one_of(
    HARM,
    HARM,  # weighted: more sequences reach death and go on after it
    st.tuples(st.just("medpack"), st.integers(1, 10)),
    st.tuples(st.just("stabilise")),
    st.tuples(st.just("end_of_turn")),
    st.tuples(st.just("turn_start")),
    st.tuples(st.just("turn_end")),
    st.tuples(st.just("move"), st.tuples(die, die, die)),
)


def _step(kit, ana, op):
    """Apply one operation to Ana; a refusal leaves her as she was."""
    kind = op[0]
    try:
        if kind == "harm":
            params = {"direction": "taken", "pierce": op[2]}
            return kit.apply(ana, kit.run("harm", params, dice=list(op[1]), targets=[ana]))
        if kind == "medpack":
            return kit.apply(ana, kit.run("medpack", {"n": op[1]}, targets=[ana]))
        if kind == "stabilise":
            return kit.apply(ana, kit.run("stabilise", {}, targets=[ana]))
        if kind == "end_of_turn":
            return kit.apply(ana, kit.run("end_of_turn", {}, actor=ana))
        if kind == "turn_start":
            return kit.apply(ana, kit.ruleset.on_turn_start(kit.turn(ana), SeededDice(0)))
        if kind == "turn_end":
            return kit.apply(ana, kit.ruleset.on_turn_end(kit.turn(ana), SeededDice(0)))
        source = ScriptedDice(list(op[1]))
        kit.ruleset.resolve(kit.context("move", {}, actor=ana), source)
        return ana
    except RuleViolation:
        return ana


@settings(max_examples=200, deadline=None)
@given(ops=st.lists(OPS, min_size=1, max_size=25))
def test_BD8_dead_is_final_within_a_raid(kit, ops):
    ana = kit.bandit("ana")
    dead_seen = False
    for op in ops:
        ana = _step(kit, ana, op)
        if dead_seen:
            assert ana.state["dead"] is True, op
            assert kit.ruleset.common_state(ana).status == "dead"
        dead_seen = dead_seen or ana.state["dead"]
    if dead_seen:
        raid = kit.run("end_of_raid", {}, targets=[ana])
        assert raid.states["ana"]["dead"] is True


@settings(max_examples=200, deadline=None)
@given(ops=st.lists(HARM, min_size=1, max_size=12))
def test_BD6_slots_grow_over_a_sequence_of_hits(kit, ops):
    ana = kit.bandit("ana")
    previous: set[int] = set()
    for op in ops:
        ana = _step(kit, ana, op)
        assert kit.slots(ana) >= previous
        previous = kit.slots(ana)


@settings(max_examples=300, deadline=None)
@given(
    stat=st.integers(-10, 10),
    modifiers=st.lists(st.integers(-20, 20), max_size=20),
    advantage=st.booleans(),
    disadvantage=st.booleans(),
    heavy=st.booleans(),
    seed=st.integers(0, 2**32),
)
def test_BD1_the_modifier_is_always_within_minus_4_and_plus_4(
    kit, stat, modifiers, advantage, disadvantage, heavy, seed
):
    ana = kit.bandit("ana", slots={3} if heavy else (), stats={"cool": stat})
    params = {
        "stat": "cool",
        "modifiers": modifiers,
        "advantage": advantage,
        "disadvantage": disadvantage,
    }
    move = kit.resolve(kit.context("move", params, actor=ana), SeededDice(seed))
    out = move.outcome
    assert -4 <= out["modifier"] <= 4
    assert out["modifier_raw"] == stat + sum(modifiers)
    assert out["modifier"] == max(-4, min(4, out["modifier_raw"]))
    assert out["total"] == sum(out["kept"]) + out["modifier"]
    assert len(out["kept"]) == 2
    assert len(out["dice"]) == (3 if out["dice_mode"] in ("advantage", "disadvantage") else 2)
