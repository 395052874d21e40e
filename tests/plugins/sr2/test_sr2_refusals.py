"""Bad input is a typed error that changes nothing and rolls nothing: an
unknown damage level, negative dice, more Combat Pool than is left, an unknown
actor, and the other refusals of docs/rulesets/sr2.md."""

from __future__ import annotations

import pytest

from rollbridge.contract import ActionContext
from rollbridge.dice import SeededDice
from rollbridge.exceptions import (
    InvalidParams,
    InvalidSheet,
    RollbridgeError,
    RuleViolation,
    UnknownAction,
    UnknownActor,
)
from rollbridge.schema import validate
from rollbridge.testing import RulesetHarness

SHOOTER = {"body": 4, "combat_pool": 3, "weapons": [{"name": "Pistol", "code": "9M", "skill": 4}]}


def refused(kit, error, action, params, actor=None, targets=(), *, validated=True, **kw):
    """Resolve and expect ``error``; check that no die was drawn and no state changed."""
    before = [dict(a.state) for a in (actor, *targets) if a is not None]
    dice = SeededDice(1)
    if validated:
        context = kit.context(action, params, actor, targets, kw.get("settings"))
    else:  # straight to the ruleset, skipping the engine's schema check
        context = ActionContext(action, params, actor, tuple(targets), kit.settings())
    with pytest.raises(error) as caught:
        kit.rs.resolve(context, dice)
    assert dice.drawn == 0
    assert [dict(a.state) for a in (actor, *targets) if a is not None] == before
    return caught.value


# -- an unknown damage level ------------------------------------------------------------


@pytest.mark.parametrize("action", ["attack", "damage"])
def test_unknown_damage_level_7Q(kit, action):
    shooter, target = kit.actor("s", SHOOTER), kit.actor("t")
    params = {"code": "7Q", "skill": 3, "range": "short"}
    if action == "damage":
        params = {"code": "7Q", "attack_successes": 2}
    actor = shooter if action == "attack" else None
    error = refused(kit, InvalidParams, action, params, actor, [target])
    assert "unknown damage level 'Q'" in error.message
    assert error.code == "invalid_params"
    assert error.details["field"] == "params.code"


def test_unknown_damage_level_skipping_the_schema(kit):
    error = refused(
        kit,
        InvalidParams,
        "damage",
        {"code": "7Q", "attack_successes": 2},
        targets=[kit.actor("t")],
        validated=False,
    )
    assert "7Q" in error.message


def test_unknown_damage_level_on_a_sheet(sr2):
    with pytest.raises(InvalidSheet, match=r"sheet.weapons\[0\].code: unknown damage level"):
        sr2.validate_sheet({"body": 3, "weapons": [{"name": "X", "code": "7Q"}]})


def test_malformed_code_refused_by_the_schema(kit):
    with pytest.raises(InvalidParams, match="pattern"):
        kit.context("damage", {"code": "M9", "attack_successes": 1}, targets=[kit.actor("t")])


# -- negative dice ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "params"),
    [
        ("success_test", {"dice": -1, "tn": 4}),
        ("attack", {"code": "9M", "skill": -2, "range": "short"}),
        ("attack", {"code": "9M", "skill": 3, "attacker_pool": -1, "range": "short"}),
        ("attack", {"code": "9M", "skill": 3, "defender_pool": -1, "range": "short"}),
        ("damage", {"code": "9M", "attack_successes": -1}),
        ("damage", {"code": "9M", "attack_successes": 1, "defender_pool": -3}),
    ],
)
def test_negative_dice(kit, action, params):
    shooter, target = kit.actor("s", SHOOTER), kit.actor("t")
    spec = kit.rs.actions[action]
    with pytest.raises(InvalidParams, match="≥ 0"):
        validate(spec.params, params)
    actor = shooter if spec.actor != "none" else None
    targets = [target] if spec.max_targets else []
    error = refused(kit, InvalidParams, action, params, actor, targets, validated=False)
    assert error.details["field"].startswith("params.")


def test_boolean_is_not_a_dice_count(kit):
    refused(
        kit, InvalidParams, "success_test", {"dice": True, "tn": 4}, kit.actor("a"), validated=False
    )


# -- more Combat Pool than is left -----------------------------------------------------


def test_attacker_pool_exhausted(kit):
    shooter, target = kit.actor("s", SHOOTER, pool=2), kit.actor("t")
    error = refused(
        kit,
        RuleViolation,
        "attack",
        {"weapon": "Pistol", "range": "short", "attacker_pool": 3},
        shooter,
        [target],
    )
    assert error.code == "pool_exhausted"


def test_defender_pool_exhausted(kit):
    shooter, target = kit.actor("s", SHOOTER), kit.actor("t", {"body": 3, "combat_pool": 2})
    error = refused(
        kit,
        RuleViolation,
        "attack",
        {"weapon": "Pistol", "range": "short", "defender_pool": 3},
        shooter,
        [target],
    )
    assert error.code == "pool_exhausted"
    assert error.details["actor"] == "t"


def test_pool_of_one_actor_attacking_itself_counts_both_spends(kit):
    shooter = kit.actor("s", SHOOTER)  # 3 dice left
    error = refused(
        kit,
        RuleViolation,
        "attack",
        {"weapon": "Pistol", "range": "short", "attacker_pool": 2, "defender_pool": 2},
        shooter,
        [shooter],
    )
    assert error.code == "pool_exhausted"


def test_damage_and_success_test_pool_exhausted(kit):
    target = kit.actor("t", {"body": 3, "combat_pool": 2}, pool=1)
    for action, params, actor, targets in [
        ("damage", {"code": "9M", "attack_successes": 1, "defender_pool": 2}, None, [target]),
        ("success_test", {"dice": 2, "tn": 4, "pool": 2}, target, []),
    ]:
        assert refused(kit, RuleViolation, action, params, actor, targets).code == "pool_exhausted"


# -- an unknown actor -----------------------------------------------------------------------


def test_unknown_actor_is_refused_by_the_engine_and_changes_nothing(sr2):
    table = RulesetHarness(sr2)
    table.add_actor("Tukan", SHOOTER, actor_id="tukan")
    before = table.state("tukan")
    seq = table.table.info.seq
    with pytest.raises(UnknownActor):
        table.resolve(
            "attack",
            actor="tukan",
            targets=["nobody"],
            params={"weapon": "Pistol", "range": "short"},
        )
    assert table.state("tukan") == before
    assert table.table.info.seq == seq


# -- the other refusals ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"weapon": "Pistol", "code": "9M", "range": "short"}, "not both"),
        ({"skill": 3, "range": "short"}, "give a weapon"),
        ({"weapon": "Rifle", "range": "short"}, "has no weapon 'Rifle'"),
        ({"weapon": "Pistol"}, "range band"),
        ({"weapon": "Pistol", "range": "short", "tn": 4}, "exactly one"),
        ({"code": "9M", "range": "short"}, "params.skill"),
    ],
)
def test_bad_attack_params(kit, params, match):
    error = refused(kit, InvalidParams, "attack", params, kit.actor("s", SHOOTER), [kit.actor("t")])
    assert match in error.message


@pytest.mark.parametrize(
    ("state", "status"),
    [
        ({"stun": 10}, "down"),
        ({"physical": 10}, "dying"),
        ({"physical": 10, "overflow": 5}, "dead"),
    ],
)
def test_incapacitated_attacker(kit, state, status):
    shooter = kit.actor("s", SHOOTER, **state)
    error = refused(
        kit,
        RuleViolation,
        "attack",
        {"weapon": "Pistol", "range": "short"},
        shooter,
        [kit.actor("t")],
    )
    assert error.code == "attacker_incapacitated"
    assert error.details["status"] == status


def test_rule_violation_codes_of_the_bookkeeping_actions(kit):
    dead = kit.actor("d", {"body": 2}, physical=10, overflow=3)
    stable = kit.actor("s", {"body": 2}, physical=10, stabilised=True)
    cases = [
        ("heal", {"monitor": "stun"}, dead, "actor_dead"),
        ("bleed", {}, dead, "actor_dead"),
        ("stabilise", {}, dead, "actor_dead"),
        ("stabilise", {}, stable, "already_stabilised"),
        ("bleed", {}, stable, "stabilised"),
        ("bleed", {}, kit.actor("ok"), "not_dying"),
    ]
    for action, params, target, code in cases:
        assert refused(kit, RuleViolation, action, params, targets=[target]).code == code


def test_wrong_target_count_and_missing_attacker(kit):
    shooter = kit.actor("s", SHOOTER)
    params = {"weapon": "Pistol", "range": "short"}
    refused(kit, InvalidParams, "attack", params, shooter, [], validated=False)
    refused(kit, InvalidParams, "attack", params, None, [kit.actor("t")], validated=False)
    refused(kit, InvalidParams, "heal", {"monitor": "stun"}, targets=[], validated=False)


def test_unknown_action(kit):
    error = refused(kit, UnknownAction, "fireball", {}, validated=False)
    assert "success_test" in error.message


def test_adjust_unknown_track(kit):
    with pytest.raises(InvalidParams, match="no track 'mana'"):
        kit.rs.adjust(kit.actor("t"), "mana", 2)


def test_every_refusal_is_a_rollbridge_error():
    for error in (InvalidParams, InvalidSheet, RuleViolation, UnknownAction, UnknownActor):
        assert issubclass(error, RollbridgeError)
