"""The conformance suite holds every state the rules make to the ruleset's own schema.

A resolution's or a turn hook's new state that its ``state_schema`` refuses (an
unknown field, a value past a bound) is stored and sent without complaint — the
engine does not check a ruleset's own output against its schema on every request —
but the GM's ``actor.update`` resending that actor as it stands is then refused
(``invalid_state``), and no supplied state can reach it. The suite catches it.
"""

from __future__ import annotations

import dataclasses

import pytest

from rollbridge.contract import Resolution
from rollbridge.plugins.bandits import BanditsRuleset
from rollbridge.testing import RulesetConformance


def _spoilt(result):
    """``result`` with a field no bandits state has added to each new state."""
    if result is None:
        return None
    states = {key: {**state, "mood": "grim"} for key, state in result.states.items()}
    return dataclasses.replace(result, states=states)


class _StrayField(BanditsRuleset):
    def resolve(self, context, dice):
        return _spoilt(super().resolve(context, dice))


class _StrayFieldInHooks(BanditsRuleset):
    def on_turn_start(self, context, dice):
        result = super().on_turn_start(context, dice)
        if result is None:  # an actor who is not dying: still make a state for it
            result = Resolution(narration="x", states={context.actor.id: dict(context.actor.state)})
        return _spoilt(result)


def _suite(ruleset):
    return type("Suite", (RulesetConformance,), {"ruleset": ruleset, "seeds": (1, 2)})()


def test_a_resolution_state_outside_the_schema_fails_the_suite():
    with pytest.raises(AssertionError, match="breaks the state schema"):
        _suite(_StrayField()).test_actions_resolve_through_the_engine()


def test_a_turn_hook_state_outside_the_schema_fails_the_suite():
    with pytest.raises(AssertionError, match="breaks the state schema"):
        _suite(_StrayFieldInHooks()).test_turn_hooks_touch_only_participants()


def test_the_rulesets_own_states_pass():
    """The same checks on bandits as it is (the four rulesets run them in their own
    conformance tests)."""
    suite = _suite(BanditsRuleset())
    suite.test_actions_resolve_through_the_engine()
    suite.test_turn_hooks_touch_only_participants()
