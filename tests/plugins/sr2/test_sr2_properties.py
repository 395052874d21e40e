"""Property tests (hypothesis): boxes stay within their limits under any
sequence of actions, staging is symmetric, overflow above Body if and only if
dead, resolutions touch only the actors of their context, and the plugin's
roller agrees with the dice engine."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rollbridge.contract import Actor
from rollbridge.dice import SeededDice, count_successes, roll_pool
from rollbridge.exceptions import RuleViolation
from rollbridge.plugins.sr2.codes import LEVELS, stage
from rollbridge.plugins.sr2.monitor import status
from rollbridge.plugins.sr2.rolls import roll_test

CODES = st.builds(
    lambda power, level: f"{power}{level}", st.integers(0, 20), st.sampled_from(LEVELS)
)

OPERATIONS = st.one_of(
    st.tuples(
        st.just("damage"),
        CODES,
        st.sampled_from(["physical", "stun"]),
        st.integers(0, 14),
        st.integers(0, 3),
        st.integers(0, 2**16),
    ),
    st.tuples(
        st.just("attack"),
        CODES,
        st.integers(1, 12),
        st.integers(0, 10),
        st.integers(0, 3),
        st.integers(0, 2**16),
    ),
    st.tuples(st.just("heal"), st.sampled_from(["physical", "stun"]), st.integers(1, 15)),
    st.tuples(st.just("bleed"), st.integers(1, 4)),
    st.tuples(st.just("stabilise")),
    st.tuples(st.just("new_turn")),
    st.tuples(
        st.just("adjust"), st.sampled_from(["stun", "physical", "overflow"]), st.integers(-15, 15)
    ),
)


def _check_invariants(kit, actor: Actor) -> None:
    state = actor.state
    body = actor.sheet["body"]
    assert 0 <= state["stun"] <= 10
    assert 0 <= state["physical"] <= 10
    assert 0 <= state["overflow"] <= body + 1
    assert 0 <= state["pool"] <= actor.sheet["combat_pool"]
    assert isinstance(state["stabilised"], bool)
    common = kit.rs.common_state(actor)
    assert (state["overflow"] > body) == (common.status == "dead")
    for track in common.tracks:
        assert 0 <= track.value <= track.max
    assert json.loads(json.dumps(dict(state))) == dict(state)


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    body=st.integers(1, 8),
    combat_pool=st.integers(0, 6),
    operations=st.lists(OPERATIONS, max_size=25),
)
def test_boxes_stay_within_their_limits(kit, body, combat_pool, operations):
    """SR-11, SR-13, SR-14, SR-15: whatever happens, every box count stays in
    0..limit, pools in 0..rating, and overflow > Body exactly when dead."""
    target = kit.actor("t", {"body": body, "combat_pool": combat_pool})
    shooter = kit.actor("s", {"body": 4, "combat_pool": 3})
    for op in operations:
        kind = op[0]
        before = dict(target.state)
        try:
            if kind == "damage":
                _, code, kind_of, successes, pool, seed = op
                params = {"code": code, "damage_type": kind_of, "attack_successes": successes}
                params["defender_pool"] = pool
                result = kit.resolve("damage", params, targets=[target], dice=SeededDice(seed))
            elif kind == "attack":
                _, code, rounds, skill, pool, seed = op
                params = {"code": code, "rounds": rounds, "skill": skill, "range": "short"}
                params["defender_pool"] = pool
                result = kit.resolve("attack", params, shooter, [target], dice=SeededDice(seed))
            elif kind == "heal":
                params = {"monitor": op[1], "boxes": op[2]}
                result = kit.resolve("heal", params, targets=[target])
            elif kind == "bleed":
                result = kit.resolve("bleed", {"boxes": op[1]}, targets=[target])
            elif kind in ("stabilise", "new_turn"):
                result = kit.resolve(kind, {}, targets=[target])
            else:
                new = kit.rs.adjust(target, op[1], op[2])
                target = Actor(target.id, target.name, target.sheet, new)
                _check_invariants(kit, target)
                continue
        except RuleViolation:
            assert dict(target.state) == before  # a refusal changes nothing
            continue
        assert set(result.states) <= {"s", "t"}
        target = kit.after(target, result)
        _check_invariants(kit, target)


@given(level=st.sampled_from(LEVELS), net=st.integers(-40, 40))
def test_staging_is_symmetric(level, net):
    """SR-10: n extra successes move the level as far up for the attacker as
    down for the defender: ⌊|n|/2⌋ steps, one spare success on odd n."""
    up, down = stage(level, net), stage(level, -net)
    assert up.shift == -down.shift
    assert abs(up.shift) == abs(net) // 2
    assert up.spare == down.spare == abs(net) % 2


@given(level=st.sampled_from(LEVELS), net=st.integers(-40, 40))
def test_staging_back_and_forth_returns_the_level(level, net):
    """SR-10: staging by n then by −n gives the level back unless it was
    clipped (below L, or past D into overflow)."""
    there = stage(level, net)
    if there.level is None or there.overflow:
        return
    assert stage(there.level, -net).level == level


@given(
    body=st.integers(1, 12),
    stun=st.integers(0, 10),
    physical=st.integers(0, 10),
    overflow=st.integers(0, 13),
    stabilised=st.booleans(),
)
def test_overflow_above_body_iff_dead(body, stun, physical, overflow, stabilised):
    """SR-11 / SR-13: dead exactly when overflow exceeds Body."""
    state = {"stun": stun, "physical": physical, "overflow": overflow, "stabilised": stabilised}
    assert (status(state, body) == "dead") == (overflow > body)


@settings(max_examples=80, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    code=CODES,
    skill=st.integers(0, 12),
    pools=st.tuples(st.integers(0, 8), st.integers(0, 8)),
    left=st.tuples(st.integers(0, 5), st.integers(0, 5)),
    seed=st.integers(0, 2**16),
)
def test_pool_refusal_changes_nothing_and_rolls_nothing(kit, code, skill, pools, left, seed):
    """SR-14: spending more than is left raises pool_exhausted before any die;
    otherwise only the two actors of the context are touched."""
    shooter = kit.actor("s", {"body": 3, "combat_pool": 5}, pool=left[0])
    target = kit.actor("t", {"body": 3, "combat_pool": 5}, pool=left[1])
    before = (dict(shooter.state), dict(target.state))
    dice = SeededDice(seed)
    params = {"code": code, "skill": skill, "range": "medium"}
    params.update(attacker_pool=pools[0], defender_pool=pools[1])
    try:
        result = kit.resolve("attack", params, shooter, [target], dice=dice)
    except RuleViolation as exc:
        assert exc.code == "pool_exhausted"
        assert pools[0] > left[0] or pools[1] > left[1]
        assert dice.drawn == 0
        assert (dict(shooter.state), dict(target.state)) == before
        return
    assert pools[0] <= left[0] and pools[1] <= left[1]
    assert set(result.states) <= {"s", "t"}
    json.loads(json.dumps(result.to_dict()))


@given(seed=st.integers(0, 2**32), count=st.integers(0, 30), tn=st.integers(-5, 20))
def test_roller_agrees_with_the_dice_engine(seed, count, tn):
    """SR-1/SR-2: the plugin's roller draws the same dice as roll_pool(compounding)
    and tags them as count_successes does against the floored TN."""
    mine = roll_test(SeededDice(seed), count, tn)
    dice, hits = count_successes(
        roll_pool(SeededDice(seed), count, 6, compounding=True), max(tn, 2)
    )
    assert mine.dice == dice
    all_ones = count > 0 and all(d.rolls[0] == 1 for d in dice)
    assert mine.botch == all_ones
    assert mine.successes == (0 if all_ones else hits)
