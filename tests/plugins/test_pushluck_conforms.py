"""The eighth ruleset (tests/plugins/pushluck.py) through the conformance suite. Its
``push`` needs a dealer who staked (a state a secret GM action leaves), so fresh
example actors are refused it with every seed: the suite passed all the same, and
none of its checks of a resolution — texts, private values, dice — ever reached
``push``, the ruleset's one player action, without a word. The suite warns of such
an example now, naming it and its refusal, and ``example_states`` starts the example
actors where it can be done."""

from __future__ import annotations

import warnings

import pytest

from rollbridge.exceptions import NeverResolvedWarning
from rollbridge.testing import PLAYER, RulesetConformance, RulesetHarness
from tests.plugins.pushluck import PushLuck
from tests.plugins.rollunder import conformance_of


class TestPushLuckConforms(RulesetConformance):
    ruleset = PushLuck()
    example_states = {"Dealer": {"house": 12}}


def test_an_example_refused_with_every_seed_is_warned_of_naming_it():
    with pytest.warns(NeverResolvedWarning) as warned:
        conformance_of(PushLuck()).test_actions_resolve_through_the_engine()
    said = str(warned[0].message)
    assert said.startswith(
        "an action example never resolved with any seed ('push': no_stake: Dealer has "
        "staked nothing yet), so no check of a resolution reached it"
    ), said
    assert "example_states = {sheet name: state}" in said, said
    assert warned[0].filename.endswith("pushluck.py"), warned[0].filename


def test_with_example_states_it_resolves_and_nothing_is_warned():
    with warnings.catch_warnings():
        warnings.simplefilter("error", NeverResolvedWarning)
        TestPushLuckConforms().test_actions_resolve_through_the_engine()


def test_players_read_whether_the_pot_beats_the_house_never_its_number():
    """The house's total (a number no die shows: 17 from 6, 6, 5) reaches the GM,
    never a player — not in the steps, not as the dice group's target."""
    table = RulesetHarness(PushLuck())
    table.add_actor("Gambler", {"nerve": 4}, actor_id="g", player=True)
    table.add_actor("Dealer", {"nerve": 1}, actor_id="d")
    table.resolve("stake", actor="d", params={"dice": 3}, secret=True, dice=[6, 6, 5])
    table.resolve("push", actor="g", targets=["d"], params={"dice": 2}, who=PLAYER, dice=[5, 4])
    gm, players = table.views()
    assert gm["data"]["steps"] == ["pot 9 against the house's 17", "the house still leads"]
    assert players["data"]["steps"] == [
        "pot 9 against the house's (hidden)",
        "the house still leads",
    ]
    assert "17" not in str(players) and "target" not in players["data"]["dice"][0]
