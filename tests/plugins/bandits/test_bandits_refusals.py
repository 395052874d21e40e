"""Refusals are typed errors with stable codes, and change nothing."""

from __future__ import annotations

import copy

import pytest

from rollbridge.exceptions import InvalidParams, RuleViolation
from rollbridge.testing import GM, PLAYER


def _refused(kit, error, action, params, **where):
    """Resolve, expect ``error``; check no input actor was touched. Returns the error."""
    actors = [a for a in (where.get("actor"), *where.get("targets", ())) if a is not None]
    before = [copy.deepcopy((dict(a.sheet), dict(a.state))) for a in actors]
    with pytest.raises(error) as caught:
        kit.run(action, params, **where)
    assert [(dict(a.sheet), dict(a.state)) for a in actors] == before
    return caught.value


@pytest.mark.parametrize(
    ("slots", "dead", "code"),
    [
        (set(), False, "no_wounds"),
        ({4}, False, "medpack_cannot_help"),
        ({1, 2, 3, 4}, True, "target_dead"),
    ],
)
def test_BD10_medpack_refusals_change_nothing(kit, slots, dead, code):
    patient = kit.bandit("ana", slots=slots, dead=dead)
    err = _refused(kit, RuleViolation, "medpack", {"n": 2}, targets=[patient])
    assert err.code == code
    assert err.message


def test_BD10_medpack_on_an_extra_is_refused(kit):
    err = _refused(kit, RuleViolation, "medpack", {"n": 1}, targets=[kit.extra("guard")])
    assert err.code == "not_a_bandit"


def test_BD10_a_healer_who_cannot_act_cannot_use_a_medpack(kit):
    doc = kit.bandit("doc", slots={4}, stabilised=True)
    err = _refused(
        kit, RuleViolation, "medpack", {"n": 1}, actor=doc, targets=[kit.bandit("ana", slots={1})]
    )
    assert err.code == "cannot_act"


def test_BD10_medpack_size_is_checked_by_the_schema(kit):
    with pytest.raises(InvalidParams, match=r"params\.n"):
        kit.context("medpack", {"n": 0}, targets=[kit.bandit("ana", slots={1})])


def test_BD10_medpack_refusal_through_the_engine_changes_nothing(ruleset_harness, kit):
    table = ruleset_harness(kit.ruleset)
    ana = table.add_actor("Ana", {"kind": "bandit"}, actor_id="ana", player=True)
    seq = table.table.info.seq
    before = table.state(ana)
    with pytest.raises(RuleViolation) as err:
        table.request(
            {"type": "resolve", "action": "medpack", "params": {"n": 1}, "targets": [ana]},
            who=GM,
        )
    assert err.value.code == "no_wounds"
    assert table.state(ana) == before
    assert table.table.info.seq == seq


@pytest.mark.parametrize(
    ("build", "action", "params", "code"),
    [
        (lambda k: {"actor": k.bandit("ana", dead=True)}, "move", {}, "actor_dead"),
        (
            lambda k: {"actor": k.bandit("ana", slots={4}, stabilised=True)},
            "move",
            {},
            "cannot_act",
        ),
        (
            lambda k: {"actor": k.bandit("ana"), "targets": [k.bandit("bo", dead=True)]},
            "harm",
            {"direction": "dealt"},
            "target_dead",
        ),
        (
            lambda k: {"actor": k.bandit("ana"), "targets": [k.extra("g", out=True)]},
            "harm",
            {"direction": "dealt"},
            "target_out",
        ),
        (
            lambda k: {"actor": k.bandit("ana"), "targets": [k.extra("g")]},
            "harm",
            {"direction": "dealt", "attacker_dual_wield": "pierce"},
            "no_two_light_weapons",
        ),
        (
            lambda k: {
                "actor": k.bandit("ana", two_light_weapons=True, dual_wield="pierce"),
                "targets": [k.extra("g")],
            },
            "harm",
            {"direction": "dealt", "attacker_dual_wield": "armour"},
            "dual_wield_locked",
        ),
        (
            lambda k: {"targets": [k.bandit("ana")], "by_gm": False},
            "harm",
            {"direction": "taken", "pierce": 1, "reduction": 1},
            "reduction_needs_gm",
        ),
        (lambda k: {"targets": [k.bandit("ana")]}, "stabilise", {}, "not_dying"),
        (
            lambda k: {"targets": [k.bandit("ana", slots={4})]},
            "end_of_raid",
            {},
            "dying_not_resolved",
        ),
        (
            lambda k: {"targets": [k.bandit("ana", slots={1})]},
            "end_of_raid",
            {"kept_wounds": {"ana": 3}},
            "kept_wound_not_marked",
        ),
    ],
)
def test_rule_refusals_have_codes_and_change_nothing(kit, build, action, params, code):
    where = build(kit)
    err = _refused(kit, RuleViolation, action, params, dice=[3, 3], **where)
    assert err.code == code


def test_player_reduction_through_the_engine_is_refused(ruleset_harness, kit):
    table = ruleset_harness(kit.ruleset)
    ana = table.add_actor("Ana", {"kind": "bandit"}, actor_id="ana", player=True)
    before = table.state(ana)
    with pytest.raises(RuleViolation) as err:
        table.request(
            {
                "type": "resolve",
                "action": "harm",
                "targets": [ana],
                "params": {"direction": "taken", "pierce": 2, "reduction": 1},
            },
            who=PLAYER,
        )
    assert err.value.code == "reduction_needs_gm"
    assert table.state(ana) == before
