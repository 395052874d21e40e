"""Refusals are typed errors that change nothing (WD-4, WD-8, WD-9 and parameters).

Each test snapshots the actor's state, makes the refused request and checks
the error's class and code and that the state is still the snapshot.
"""

from __future__ import annotations

import copy

import pytest

from rollbridge.exceptions import InvalidParams, RollbridgeError, RuleViolation, UnknownRequest


def _refused(actors, error, code, call, *args, **kwargs):
    """Call ``call(*args, **kwargs)``, expect ``error`` with ``code``, and no state change."""
    snapshots = [copy.deepcopy(dict(a.state)) for a in actors]
    with pytest.raises(error) as err:
        call(*args, **kwargs)
    if code is not None:
        assert err.value.code == code
    assert isinstance(err.value, RollbridgeError)
    assert err.value.to_dict()["message"]
    for actor, snapshot in zip(actors, snapshots, strict=True):
        assert dict(actor.state) == snapshot
    return err.value


def _rolled(wd, actor, dice=(1, 1), request_id="r1"):
    res = wd.resolve(
        "trait", {"trait": "vigor"}, actor=actor, dice=list(dice), request_id=request_id
    )
    return wd.after(actor, res)


def test_second_chip_on_one_roll(wd):
    ana = _rolled(wd, wd.actor("ana"))
    ana = wd.after(ana, wd.resolve("chip", {"roll": "r1"}, actor=ana, dice=[3]))
    for die in ("trait", "wild"):
        params = {"roll": "r1", "die": die}
        _refused(
            [ana],
            RuleViolation,
            "chip_already_spent",
            wd.resolve,
            "chip",
            params,
            actor=ana,
            dice=[2],
        )
    # also under the canonical setting
    _refused(
        [ana],
        RuleViolation,
        "chip_already_spent",
        wd.resolve,
        "chip",
        {"roll": "r1"},
        actor=ana,
        dice=[2, 2],
        settings={"chip_reroll": "whole_roll"},
    )


def test_chip_the_player_does_not_have(wd):
    ana = _rolled(wd, wd.actor("ana", chips=0))
    err = _refused([ana], RuleViolation, "no_chips", wd.resolve, "chip", {}, actor=ana, dice=[3])
    assert "no chips" in err.message


def test_npc_without_chips_cannot_spend_one(wd):
    guard = _rolled(wd, wd.actor("g", kind="npc"), dice=[1])
    _refused([guard], RuleViolation, "no_chips", wd.resolve, "chip", {}, actor=guard, dice=[3])


def test_chip_on_the_wild_die_of_an_npc_roll(wd):
    guard = _rolled(wd, wd.actor("g", kind="npc", chips=2), dice=[1])
    _refused(
        [guard],
        RuleViolation,
        "no_wild_die",
        wd.resolve,
        "chip",
        {"die": "wild"},
        actor=guard,
        dice=[3],
    )


def test_chip_on_an_unknown_roll_or_with_no_roll(wd):
    ana = wd.actor("ana")
    _refused([ana], RuleViolation, "no_roll", wd.resolve, "chip", {}, actor=ana, dice=[3])
    ana = _rolled(wd, ana)
    _refused(
        [ana],
        UnknownRequest,
        "unknown_request",
        wd.resolve,
        "chip",
        {"roll": "nope"},
        actor=ana,
        dice=[3],
    )


def test_chip_on_a_melee_attack_must_name_its_target(wd):
    """The roll memory keeps no Defense; the chip names the target to recompute it."""
    ana = wd.actor("ana", skills={"fighting": "d8"})
    guard = wd.actor("g", kind="npc", skills={"fighting": "d10"})
    other = wd.actor("o", kind="npc")
    miss = wd.resolve(
        "attack", {"mode": "melee"}, actor=ana, targets=[guard], dice=[2, 3], request_id="a1"
    )
    ana = wd.after(ana, miss)
    assert "difficulty" not in ana.state["rolls"][-1]
    everyone = [ana, guard, other]
    chip = {"roll": "a1"}
    err = _refused(
        everyone, RuleViolation, "chip_target_required", wd.resolve, "chip", chip, actor=ana
    )
    assert err.details == {"roll": "a1", "target": "g"}
    for wrong in (other, ana):
        err = _refused(
            everyone,
            RuleViolation,
            "chip_wrong_target",
            wd.resolve,
            "chip",
            chip,
            actor=ana,
            targets=[wrong],
        )
        assert err.details == {"roll": "a1", "target": "g", "targets": [wrong.id]}


def test_chip_on_a_roll_without_a_target_names_none(wd):
    ana = _rolled(wd, wd.actor("ana"))
    guard = wd.actor("g", kind="npc")
    _refused(
        [ana, guard],
        RuleViolation,
        "chip_wrong_target",
        wd.resolve,
        "chip",
        {"roll": "r1"},
        actor=ana,
        targets=[guard],
        dice=[3],
    )


def test_incapacitated_actor_rolls_nothing(wd):
    ana = wd.actor("ana", state={"wounds": 3, "incapacitated": True})
    guard = wd.actor("g", kind="npc")
    _refused(
        [ana],
        RuleViolation,
        "incapacitated",
        wd.resolve,
        "trait",
        {"trait": "vigor"},
        actor=ana,
        dice=[4, 4],
    )
    _refused(
        [ana, guard],
        RuleViolation,
        "incapacitated",
        wd.resolve,
        "attack",
        {"mode": "melee"},
        actor=ana,
        targets=[guard],
        dice=[4, 4],
    )
    out = wd.actor("b", state={"wounds": 3, "incapacitated": True, "shaken": True})
    _refused(
        [out], RuleViolation, "incapacitated", wd.resolve, "recover", {}, actor=out, dice=[4, 4]
    )


def test_recover_when_not_shaken(wd):
    ana = wd.actor("ana")
    _refused([ana], RuleViolation, "not_shaken", wd.resolve, "recover", {}, actor=ana, dice=[4, 4])


@pytest.mark.parametrize(
    ("action", "params", "with_actor"),
    [
        ("attack", {"mode": "melee", "size": "large"}, True),
        ("attack", {"mode": "ranged"}, True),
        ("damage", {"dice": "2d6+"}, True),
        ("damage", {"dice": "d6", "melee": True}, False),
        ("heal", {"wounds": 0}, False),
        ("trait", {"trait": "vigor"}, False),
        ("trait", {"trait": "charisma"}, True),
        ("chip", {"die": "both"}, True),
    ],
)
def test_parameter_problems(wd, action, params, with_actor):
    ana = wd.actor("ana", strength="d8")
    guard = wd.actor("g", kind="npc")
    targets = [guard] if wd.ruleset.actions[action].min_targets else []
    _refused(
        [ana, guard],
        InvalidParams,
        "invalid_params",
        wd.resolve,
        action,
        params,
        actor=ana if with_actor else None,
        targets=targets,
        dice=[3, 3],
    )


def test_adjust_unknown_track(wd):
    ana = wd.actor("ana")
    _refused([ana], RuleViolation, "unknown_track", wd.ruleset.adjust, ana, "chips", 1)
