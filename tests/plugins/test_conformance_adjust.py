"""The conformance suite tries the GM's ``adjust`` of each example actor's tracks
(docs/plugins.md, "Testing a ruleset"). It did not call ``adjust`` at all: a ruleset
whose ``adjust`` healed a track below zero passed, and at a table the engine stored
the state it returned — a track of −4 boxes, and the GM's ``actor.update`` resending
the actor refused with ``invalid_state``."""

from __future__ import annotations

import pytest

from rollbridge.testing import RulesetHarness
from tests.plugins.rollunder import RollUnder, conformance_of


class Unclamped(RollUnder):
    """Adds the GM's delta to the wounds as it comes: past the track, below zero."""

    def adjust(self, actor, track, delta):
        return {"wounds": actor.state["wounds"] + delta}


class Clamped(RollUnder):
    """Keeps the wounds within the track."""

    def adjust(self, actor, track, delta):
        most = actor.sheet["toughness"]
        return {"wounds": max(0, min(most, actor.state["wounds"] + delta))}


class Raises(RollUnder):
    """Reads a field the state does not have."""

    def adjust(self, actor, track, delta):
        return {"wounds": actor.state["boxes"] + delta}


def test_what_the_engine_stores_unchecked():
    """The table as the suite now fails it for: the state is stored as returned."""
    table = RulesetHarness(Unclamped())
    table.add_actor("Hero", {"skill": 7, "toughness": 4}, actor_id="hero")
    table.request({"type": "adjust", "actor": "hero", "track": "wounds", "delta": -3})
    assert table.state("hero") == {"wounds": -3}


def test_an_adjust_past_the_track_fails_the_suite_naming_the_request():
    """The hero's track is 4 long (its toughness; the state schema takes up to 6)."""
    with pytest.raises(AssertionError) as failed:
        conformance_of(Unclamped()).test_adjustments_make_states_the_rules_take()
    assert str(failed.value) == (
        "adjust of a0's track 'wounds' by +5: track 'wounds' reads 6 of 4: keep "
        "adjust's state within the track"
    )


def test_an_adjust_below_zero_fails_it_too():
    class HealsTooFar(Clamped):
        def adjust(self, actor, track, delta):
            return {"wounds": max(-9, min(actor.sheet["toughness"], actor.state["wounds"] + delta))}

    with pytest.raises(AssertionError) as failed:
        conformance_of(HealsTooFar()).test_adjustments_make_states_the_rules_take()
    assert str(failed.value) == (
        "adjust of a0's track 'wounds' by -10 breaks the state schema: state.wounds: "
        "must be ≥ 0, got -7"
    )


def test_an_adjust_that_raises_fails_it_naming_the_request():
    with pytest.raises(AssertionError, match=r"adjust of a0's track 'wounds' by \+1: internal"):
        conformance_of(Raises()).test_adjustments_make_states_the_rules_take()


def test_a_clamped_adjust_passes():
    conformance_of(Clamped()).test_adjustments_make_states_the_rules_take()


def test_a_ruleset_without_adjust_is_skipped_saying_why():
    with pytest.raises(pytest.skip.Exception, match="does not override adjust"):
        conformance_of(RollUnder()).test_adjustments_make_states_the_rules_take()
