"""A ruleset that hides a dice group's target from players (an NPC's guard, marked
``Private``) but counts its dice with ``count_successes`` shows players every die
tagged ``success`` or ``failure``: the lowest success and the highest failure bracket
the hidden number. Found writing a dice pool with a hidden guard from the docs alone
(author28); the conformance suite said nothing. ``test_texts_are_data_and_render_for_
every_audience`` now warns of it (``ToldTargetWarning``: a warning, for a ruleset may
mean the range to be known, and sr2's resistance test is so today)."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from rollbridge import Resolution
from rollbridge.dice import DiceGroup, count_successes, roll_pool
from rollbridge.exceptions import ToldTargetWarning
from rollbridge.text import Private
from tests.plugins.rollunder import STRIKES, RollUnder, conformance_of


class Pool(RollUnder):
    """Three d10 against the target's guard + 5, which players may not see; each hit a
    wound. ``tagged``: counted with ``count_successes`` (its dice tagged)."""

    def __init__(self, tagged: bool, marked: bool = True) -> None:
        self.tagged = tagged
        self.marked = marked

    def resolve(self, context: Any, dice: Any) -> Resolution:
        target = context.targets[0]
        guard = Private(target.sheet["guard"] + 5, of=target.id, aspect="sheet")
        rolled = roll_pool(dice, 3, 10)
        if self.tagged:
            rolled, hits = count_successes(rolled, guard.value)
        else:
            hits = sum(1 for die in rolled if die.value >= guard.value)
        counted = Private(hits, of=target.id, aspect="sheet") if self.marked else hits
        group = DiceGroup("pool", rolled, formula="3d10", target=guard, successes=counted)
        wounds = min(target.sheet["toughness"], target.state["wounds"] + hits)
        words = STRIKES(actor="a", roll=hits, needed=guard, target=target.name)
        return Resolution(words, {}, dice=[group], states={target.id: {"wounds": wounds}})


def test_dice_tagged_against_a_hidden_target_are_warned_of():
    with pytest.warns(ToldTargetWarning) as warned:
        conformance_of(Pool(tagged=True)).test_texts_are_data_and_render_for_every_audience()
    (said,) = {str(w.message) for w in warned if w.category is ToldTargetWarning}
    assert said.startswith("test: dice group 0 ('pool') hides its target from players"), said
    assert "count the hits without tagging the dice" in said


def test_hits_counted_untagged_are_not_warned_of():
    with warnings.catch_warnings():
        warnings.simplefilter("error", ToldTargetWarning)
        conformance_of(Pool(tagged=False)).test_texts_are_data_and_render_for_every_audience()


def test_a_count_shown_of_untagged_dice_against_a_hidden_target_is_warned_of():
    """rev28a: the warning looked at the dice' tags alone — a group whose target is
    hidden but whose count of hits players read beside the dice (untagged, the count
    not marked: what the guide says to mark too) tells them as much: with the dice
    3, 8, 9 and 2 hits, the guard is over 3 and at most 8. It passed unwarned."""
    with pytest.warns(ToldTargetWarning) as warned:
        suite = conformance_of(Pool(tagged=False, marked=False))
        suite.test_texts_are_data_and_render_for_every_audience()
    (said,) = {str(w.message) for w in warned if w.category is ToldTargetWarning}
    assert said.startswith("test: dice group 0 ('pool') hides its target from players"), said
    assert "shows them its count of successes" in said and "mark the count Private" in said


class SteadiedPool(RollUnder):
    """At the start of each turn the actor steadies: three d10 against its own guard
    + 5, which players may not see of an NPC, counted with ``count_successes`` (its dice
    tagged) — a turn hook's dice group, not a resolution's."""

    def on_turn_start(self, context: Any, dice: Any) -> Resolution:
        actor = context.actor
        guard = Private(actor.sheet["guard"] + 5, of=actor.id, aspect="sheet")
        rolled, hits = count_successes(roll_pool(dice, 3, 10), guard.value)
        counted = Private(hits, of=actor.id, aspect="sheet")
        group = DiceGroup("steady", rolled, formula="3d10", target=guard, successes=counted)
        return Resolution(STRIKES(actor="a", roll=hits, needed=guard, target="b"), dice=[group])


def test_a_turn_hooks_dice_tagged_against_a_hidden_target_are_warned_of():
    """rev28a: the warning looked only at the resolutions of the actions' examples; a
    turn hook's group told players its hidden target as well and passed unwarned.
    ``test_what_players_see_of_every_hook_holds_no_look_alike`` walks the turn hooks'
    results and warns of it, naming the hook."""
    with pytest.warns(ToldTargetWarning) as warned:
        conformance_of(SteadiedPool()).test_what_players_see_of_every_hook_holds_no_look_alike()
    said = {str(w.message) for w in warned if w.category is ToldTargetWarning}
    assert any(
        line.startswith("on_turn_start (encounter.") and "dice group 0 ('steady')" in line
        for line in said
    ), said
