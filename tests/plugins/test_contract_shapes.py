"""A result a ruleset builds in the wrong shape stops where it is built, naming the
class and the field (docs/plugins.md, "What the engine does for you"): met by a
newcomer writing a d100 ruleset from the docs (author27), where ``steps=STEP()``
failed as "the server failed; try again" with no ruleset named, a condition given as
one string was drawn letter by letter, and ``initial_state`` or ``adjust`` returning
None failed deep in the engine ("'NoneType' object is not subscriptable")."""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from enum import IntEnum
from typing import Any

import pytest

from rollbridge import CommonState, Resolution, Track
from rollbridge.contract import Actor, PlayerView
from rollbridge.dice import DiceGroup, Die
from rollbridge.exceptions import InternalError
from rollbridge.testing import RulesetHarness
from rollbridge.text import Messages, Private

from .rollunder import WOUNDS, RollUnder, conformance_of, failure_of

say = Messages("shapes_tests")
STEP = say("step", "a step")


def test_a_resolution_names_a_field_given_in_the_wrong_shape() -> None:
    with pytest.raises(TypeError, match=r"Resolution\.steps must be a list or a tuple"):
        Resolution(STEP(), steps=STEP())
    with pytest.raises(TypeError, match=r"Resolution\.dice\[0\] must be a DiceGroup, not Die"):
        Resolution(STEP(), dice=[Die(100, (7,), 7)])
    with pytest.raises(TypeError, match=r"Resolution\.states must be a map"):
        Resolution(STEP(), states=[("a", {})])
    with pytest.raises(TypeError, match=r"Resolution\.states\['a'\] must be a map"):
        Resolution(STEP(), states={"a": 3})
    with pytest.raises(TypeError, match=r"Resolution\.narration must be"):
        Resolution(None)
    # what the built-in rulesets give is taken: tuples, plain strings, a hidden step
    hidden = Private(STEP(), of="orc", aspect="sheet", instead="")
    Resolution("words", dice=(DiceGroup("d", (Die(6, (2,), 2),)),), steps=("a", hidden))


def test_a_common_state_and_a_view_name_a_field_given_in_the_wrong_shape() -> None:
    with pytest.raises(TypeError, match=r"CommonState\.conditions must be a list or a tuple"):
        CommonState("impaired", conditions="bleeding")  # drawn b, l, e, e, … before
    with pytest.raises(TypeError, match=r"CommonState\.status must be one of ok, .*'hurt'"):
        CommonState("hurt")
    with pytest.raises(TypeError, match=r"CommonState\.tracks\[0\] must be a Track"):
        CommonState("ok", ({"key": "wounds"},))
    with pytest.raises(TypeError, match=r"Track\.value must be an int, not float"):
        Track("wounds", WOUNDS(), 0.5, 3)
    with pytest.raises(TypeError, match=r"PlayerView\.sheet must be a map \(dict\) or None"):
        PlayerView(CommonState(), sheet="secret")
    with pytest.raises(TypeError, match=r"PlayerView\.common must be a CommonState"):
        PlayerView({"status": "ok"})


class StepNotListed(RollUnder):
    """``steps=STEP()`` where ``steps=[STEP()]`` was meant."""

    def resolve(self, context: Any, dice: Any) -> Resolution:
        made = super().resolve(context, dice)
        return Resolution(made.narration, made.outcome, made.dice, made.states, steps=STEP())


def _failed_resolving(ruleset: RollUnder, caplog: Any) -> tuple[RulesetHarness, Any]:
    """The player's Hero's ``test`` against the Bandit, refused as ``ruleset``'s
    failure ("ruleset 'rollunder' failed"): its table and the engine's one log record."""
    table = RulesetHarness(ruleset)
    table.add_actor("Hero", RollUnder.example_sheets["Hero"], actor_id="h", player=True)
    table.add_actor("Bandit", RollUnder.example_sheets["Bandit"], actor_id="b")
    with caplog.at_level(logging.ERROR, "rollbridge.engine"), pytest.raises(InternalError) as e:
        table.resolve("test", actor="h", targets=["b"], dice=[1])
    assert str(e.value) == "ruleset 'rollunder' failed"
    [record] = [r for r in caplog.records if r.name == "rollbridge.engine"]
    return table, record


def test_a_wrong_shape_is_the_rulesets_failure_named_in_the_log(caplog) -> None:
    """Before, the client read "the server failed; try again" and the log named no
    ruleset: the steps failed as the event was packed, outside the ruleset's call."""
    table, record = _failed_resolving(StepNotListed(), caplog)
    assert "ruleset 'rollunder' failed" in record.getMessage()
    assert record.exc_info is not None
    assert "Resolution.steps must be a list or a tuple" in str(record.exc_info[1])
    assert table.events()[-1].kind == "actor.created"  # the table is unchanged


class OutcomeListed(RollUnder):
    """An outcome given as a list of its facts, set after the result was made (past
    the check as it is made) — the contract's outcome is a map of them by name."""

    def resolve(self, context: Any, dice: Any) -> Resolution:
        made = super().resolve(context, dice)
        made.outcome = [made.outcome]
        return made


class OutcomeListedOnTurn(RollUnder):
    def on_turn_start(self, context: Any, dice: Any) -> Resolution:
        made = Resolution(STEP())
        made.outcome = ["rested"]
        return made


def test_an_outcome_that_is_no_map_is_refused_naming_the_hook_and_the_field() -> None:
    """A list passed the conformance suite and the host (clients read an outcome's
    facts by name; the server's walks of outcomes skipped it)."""
    with pytest.raises(TypeError, match=r"Resolution\.outcome must be a map \(dict\)"):
        Resolution(STEP(), outcome=[{"success": True}])
    failure = failure_of(OutcomeListed(), "test_actions_resolve_through_the_engine")
    assert "ruleset 'rollunder' returned list as the outcome of resolve, not dict" in failure
    table = RulesetHarness(OutcomeListedOnTurn())
    table.add_actor("Hero", RollUnder.example_sheets["Hero"], actor_id="h")
    with pytest.raises(InternalError) as refused:
        table.request({"type": "encounter.start", "order": ["h"]})
    expected = "ruleset 'rollunder' returned list as the outcome of on_turn_start, not dict"
    assert str(refused.value) == expected
    assert [e.kind for e in table.events()] == ["actor.created"]  # nothing changed


class ConditionAsString(RollUnder):
    def common_state(self, actor: Any) -> CommonState:
        return replace(super().common_state(actor), conditions="bleeding")


def test_the_conformance_suite_fails_a_condition_given_as_one_string() -> None:
    """It passed, and every client drew the conditions b, l, e, e, d, i, n, g."""
    with pytest.raises(Exception, match=r"CommonState\.conditions must be a list or a tuple"):
        conformance_of(ConditionAsString()).test_example_sheets_validate_and_states_are_json()


class FreshNone(RollUnder):
    def initial_state(self, sheet: Any) -> Any:
        return None


class AdjustsNothing(RollUnder):
    def adjust(self, actor: Any, track: str, delta: int) -> Any:
        {**actor.state, "wounds": actor.state["wounds"] + delta}  # no return


@pytest.mark.parametrize(
    ("ruleset", "hook"), [(FreshNone(), "initial_state"), (AdjustsNothing(), "adjust")]
)
def test_a_hook_returning_no_state_is_named(ruleset: RollUnder, hook: str) -> None:
    """Before: "ruleset 'rollunder' failed", and a TypeError in the engine's code."""
    table = RulesetHarness(ruleset)
    with pytest.raises(InternalError) as refused:
        table.add_actor("Hero", RollUnder.example_sheets["Hero"], actor_id="h")
        table.request({"type": "adjust", "actor": "h", "track": "wounds", "delta": 1})
    assert str(refused.value) == f"ruleset 'rollunder' returned NoneType from {hook}, not dict"


class ChecksNothing(RollUnder):
    def validate_state(self, sheet: Any, state: Any) -> Any:
        super().validate_state(sheet, state)  # no return


@pytest.mark.parametrize(
    ("ruleset", "hook", "request_type"),
    [
        (FreshNone(), "initial_state", "actor.create"),
        (ChecksNothing(), "validate_state", "actor.create"),
        (ChecksNothing(), "validate_state", "actor.update"),
    ],
)
def test_a_supplied_state_over_no_fresh_state_is_named(
    ruleset: RollUnder, hook: str, request_type: str
) -> None:
    """Before: an ``initial_state`` returning None on the supplied-state path (an actor
    created with a state of the GM's) failed as "ruleset 'rollunder' failed", a
    TypeError in ``complete_state`` (``dict(None)``), naming no hook — and an
    overridden ``validate_state`` without a ``return`` stored None as the state."""
    table = RulesetHarness(ruleset)
    sheet, state = RollUnder.example_sheets["Hero"], {"wounds": 1}
    with pytest.raises(InternalError) as refused:
        if request_type == "actor.update":
            table.add_actor("Hero", sheet, actor_id="h")
            table.request({"type": "actor.update", "actor": "h", "state": state})
        else:
            table.add_actor("Hero", sheet, actor_id="h", state=state)
    assert refused.value.code == "internal"
    assert str(refused.value) == f"ruleset 'rollunder' returned NoneType from {hook}, not dict"
    assert [e.kind for e in table.events()] == (
        ["actor.created"] if "update" in request_type else []
    )


class Level(IntEnum):
    ONE = 1


class AliveTrack(RollUnder):
    """A track drawn from a flag (a bool is an int: docs/plugins.md's ``value: int``)
    and a modifier from an ``IntEnum``, as rulesets gave them before the shapes were
    checked."""

    def common_state(self, actor: Any) -> CommonState:
        made = super().common_state(actor)
        alive = Track("alive", "Alive", actor.state["wounds"] < actor.sheet["toughness"], True)
        return replace(made, tracks=(*made.tracks, alive), modifier=Level.ONE)


def test_an_int_of_a_subclass_is_an_int() -> None:
    """``Track("alive", "Alive", True, 1)`` was refused as "no int" (rev27a), a
    ruleset that played before failing at every table; as before, clients get the
    value as JSON gives it (``true``)."""
    Track("wounds", WOUNDS(), False, True)
    CommonState("ok", modifier=Level.ONE)
    table = RulesetHarness(AliveTrack())
    table.add_actor("Hero", RollUnder.example_sheets["Hero"], actor_id="h", player=True)
    table.add_actor("Bandit", RollUnder.example_sheets["Bandit"], actor_id="b")
    table.resolve("test", actor="h", targets=["b"], dice=[1])
    gm, _ = table.views()
    [bandit] = gm["actors"]
    alive = {"key": "alive", "label": "Alive", "value": True, "max": True}
    assert bandit["common"]["tracks"][-1] == alive and bandit["common"]["modifier"] == 1


class NobodysPrivate(RollUnder):
    """A hidden number marked as no actor's (``of=None``)."""

    def resolve(self, context: Any, dice: Any) -> Resolution:
        made = super().resolve(context, dice)
        made.outcome["edge"] = Private(3, of=None)  # type: ignore[arg-type]
        return made


def test_a_private_value_names_an_actor() -> None:
    """``Private(of=None)`` was taken: hidden from players as an NPC's (no player
    controls None) — but its stored form, ``{"private": 3, "of": null}``, is not read
    back as private, so a ruleset that kept it in a state and put it in an outcome
    showed it to players. The contract's ``of`` is the id of the actor whose detail
    it is: refused as it is made, naming the field, never the value."""
    with pytest.raises(TypeError) as refused:
        Private(7, of=None)  # type: ignore[arg-type]
    said = str(refused.value)
    assert (
        said
        == "Private.of must be the id of the actor whose detail it is (a str), not NoneType None"
    )
    with pytest.raises(TypeError, match=r"Private\.of must be .*, not Actor"):
        Private(7, of=Actor("orc", "Orc", {}, {}))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"Private\.aspect must be a str, not NoneType"):
        Private(7, of="orc", aspect=None)  # type: ignore[arg-type]
    failure = failure_of(NobodysPrivate(), "test_actions_resolve_through_the_engine")
    assert "internal: ruleset 'rollunder' failed" in failure


class OddsOverNothing(ChecksNothing):
    """A ruleset with odds of its own and an overridden ``validate_state`` without a
    ``return``: the odds request lays an asker's ``assume`` over the state with it."""

    def odds(self, context: Any) -> Any:
        context.targets[0].state.get("wounds")  # the state it was given, read
        return None


def test_an_odds_assumption_checked_to_no_state_is_named() -> None:
    """rev28a: item 4's check missed the odds request's path — an ``assume`` of a
    state was laid over by ``validate_state`` (engine/odds.py) and its None handed to
    ``odds`` as the actor's state: "ruleset 'rollunder' failed", an AttributeError in
    the ruleset naming no hook, where actor.create and actor.update name it."""
    table = RulesetHarness(OddsOverNothing())
    table.add_actor("Hero", RollUnder.example_sheets["Hero"], actor_id="h")
    table.add_actor("Bandit", RollUnder.example_sheets["Bandit"], actor_id="b")
    ask = {"type": "odds", "action": "test", "actor": "h", "targets": ["b"], "params": {}}
    with pytest.raises(InternalError) as refused:
        table.request({**ask, "assume": {"b": {"state": {"wounds": 2}}}})
    said = "ruleset 'rollunder' returned NoneType from validate_state, not dict"
    assert str(refused.value) == said


class KeptNobodys(RollUnder):
    """A hidden number in the stored form a ``Private(of=None)`` was kept in before
    author28 (``{"private": 3, "of": null, ...}`` in a state written then), or a form
    the ruleset builds itself with an ``of`` that names no actor (``context.actor and
    context.actor.id`` where no actor acts), put in its outcome."""

    def resolve(self, context: Any, dice: Any) -> Resolution:
        made = super().resolve(context, dice)
        made.outcome["edge"] = {"private": 9731, "of": None, "aspect": "sheet"}
        return made


@pytest.mark.parametrize("show", [False, True])
def test_a_stored_form_of_no_actor_in_an_outcome_is_hidden_from_players(show: bool) -> None:
    """rev28a: author28 refused ``Private(of=None)`` as it is made, but the leak it
    named went on by another path: its stored form, ``of`` null — kept in a state
    written before, or built by the ruleset — was not read back as private, and every
    player read 9731 in the outcome. It is read as the private value of no actor: no
    player controls it, so players see it only where the ruleset reveals its aspect,
    as ``Private(of=None)`` was shown before."""
    table = RulesetHarness(KeptNobodys(), settings={"ruleset": {"show_npc_details": show}})
    table.add_actor("Hero", RollUnder.example_sheets["Hero"], actor_id="h", player=True)
    table.add_actor("Bandit", RollUnder.example_sheets["Bandit"], actor_id="b")
    table.request({"type": "resolve", "action": "test", "actor": "h", "targets": ["b"]})
    gm, players = table.views()
    assert gm["data"]["outcome"]["edge"] == 9731
    if show:
        assert players["data"]["outcome"]["edge"] == 9731
    else:
        assert "edge" not in players["data"]["outcome"]
        assert "9731" not in json.dumps(players)


def _set_after(field: str, value: Any) -> type[RollUnder]:
    class SetAfter(RollUnder):
        def resolve(self, context: Any, dice: Any) -> Resolution:
            made = super().resolve(context, dice)
            setattr(made, field, value(made) if callable(value) else value)
            return made

    return SetAfter


class StepsSetOnTurn(RollUnder):
    def on_turn_start(self, context: Any, dice: Any) -> Resolution:
        made = Resolution(STEP())
        made.steps = "rested"  # type: ignore[assignment]
        return made


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("steps", "abc", "Resolution.steps must be a list or a tuple"),
        ("dice", lambda made: [d for g in made.dice for d in g.dice], "Resolution.dice[0]"),
        ("dice", "abc", "Resolution.dice must be a list or a tuple"),
        ("narration", 5, "Resolution.narration must be"),
        ("states", [1], "Resolution.states must be"),
        ("params", [1], "Resolution.params must be"),
        ("apply", "again", "Resolution.apply must be"),
    ],
)
def test_any_field_set_after_the_result_was_made_is_the_rulesets_failure(
    caplog, field: str, value: Any, said: str
) -> None:
    """rev28a: author28 checked an outcome set after the ``Resolution`` was made
    (past its shape check), no other field: ``steps = "abc"`` was drawn by every
    client letter by letter, the dice a list of dice with no group and a narration a
    number reached clients as they were, and a ``states`` or ``dice`` of no list
    failed as "the server failed; try again" naming no ruleset. Each is the ruleset's
    failure now, its shape named in the log, the table unchanged."""
    table, record = _failed_resolving(_set_after(field, value)(), caplog)
    assert record.exc_info is not None and said in str(record.exc_info[1])
    assert table.events()[-1].kind == "actor.created"  # the table is unchanged


def test_steps_set_after_a_turn_hooks_result_was_made_are_its_failure(caplog) -> None:
    table = RulesetHarness(StepsSetOnTurn())
    table.add_actor("Hero", RollUnder.example_sheets["Hero"], actor_id="h")
    with caplog.at_level(logging.ERROR, "rollbridge.engine"), pytest.raises(InternalError) as e:
        table.request({"type": "encounter.start", "order": ["h"]})
    assert str(e.value) == "ruleset 'rollunder' failed"
    [record] = [r for r in caplog.records if r.name == "rollbridge.engine"]
    assert "Resolution.steps must be a list or a tuple" in str(record.exc_info[1])
    assert [e.kind for e in table.events()] == ["actor.created"]
