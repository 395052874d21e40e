"""A refusal the rules make only after a die was drawn passes every check of a table
without approval, and at a table with ``approval`` holds a player's request that
will be refused: the request is checked by running ``resolve`` up to its first die,
answered ``pending``, and refused only when the GM approves it — the player's
request then waits until the GM rejects it. The conformance suite asks for each
example as a player at such a table (docs/plugins.md, "Testing a ruleset")."""

from __future__ import annotations

import pytest

from rollbridge.dice import roll_die
from rollbridge.exceptions import InternalError, RuleViolation
from rollbridge.testing import PLAYER, RulesetHarness
from tests.plugins.rollunder import RollUnder, conformance_of, failure_of


class RollsThenRefuses(RollUnder):
    """Rolls its d10 before it sees that the target's guard leaves no chance."""

    example_sheets = {
        "Hero": {"skill": 7, "guard": 1, "toughness": 4},
        "Wall": {"skill": 5, "guard": 9, "toughness": 3},
    }

    def resolve(self, context, dice):
        roll_die(dice, 10)
        if context.actor.sheet["skill"] - context.targets[0].sheet["guard"] <= 1:
            raise RuleViolation("no chance against that guard", code="no_chance")
        return super().resolve(context, dice)


class RefusesFirst(RollsThenRefuses):
    """Refuses before it rolls."""

    def resolve(self, context, dice):
        if context.actor.sheet["skill"] - context.targets[0].sheet["guard"] <= 1:
            raise RuleViolation("no chance against that guard", code="no_chance")
        return RollUnder.resolve(self, context, dice)


def test_the_table_holds_the_request_it_will_refuse():
    table = RulesetHarness(RollsThenRefuses(), settings={"approval": True})
    table.add_actor("Hero", {"skill": 7}, actor_id="hero", player=True)
    table.add_actor("Wall", {"skill": 5, "guard": 9}, actor_id="wall")
    held = table.resolve("test", actor="hero", targets=["wall"], who=PLAYER)
    assert held["status"] == "pending"
    with pytest.raises(RuleViolation, match="no chance"):
        table.request({"type": "approve", "request": held["pending"]})


def test_the_suite_fails_it_saying_what_to_change():
    assert failure_of(RollsThenRefuses(), "test_refusals_come_before_the_first_die") == (
        "test: a player's request with its example was held for the GM's approval and "
        "refused only when the GM approved it (no_chance: no chance against that guard): "
        "at a table with approval a request is checked by running resolve up to its first "
        "die, so make every refusal before drawing any die (the dice a refused request "
        "drew are shown nowhere)"
    )


def test_a_refusal_before_the_dice_passes():
    conformance_of(RefusesFirst()).test_refusals_come_before_the_first_die()
    conformance_of(RollUnder()).test_refusals_come_before_the_first_die()


class CatchesEverything(RollUnder):
    """Catches every exception around its die and fails after: with real dice it never
    fails, but the dice that stop a request at its first die (at a table with
    approval) raise there, so a player's request fails ``internal`` before it is held."""

    def resolve(self, context, dice):
        try:
            roll_die(dice, 10)
        except BaseException:
            raise ValueError("no die") from None
        return super().resolve(context, dice)


def test_a_ruleset_failing_only_before_its_first_die_fails_the_suite():
    table = RulesetHarness(CatchesEverything(), settings={"approval": True})
    table.add_actor("Hero", {"skill": 7}, actor_id="hero", player=True)
    table.add_actor("Bandit", {"skill": 5}, actor_id="bandit")
    with pytest.raises(InternalError):  # what a player's request meets at the table
        table.resolve("test", actor="hero", targets=["bandit"], who=PLAYER)
    conformance_of(CatchesEverything()).test_actions_resolve_through_the_engine()
    assert failure_of(CatchesEverything(), "test_refusals_come_before_the_first_die") == (
        "test: a player's request with its example failed (internal: ruleset 'rollunder' "
        f"failed: ValueError: no die, at test_conformance_first_die.py:{RAISES_NO_DIE}) at "
        "a table with approval, where resolve is run up to its first die before the "
        "request is held for the GM: the dice stop it there with an exception derived "
        "from BaseException only, and resolve raised its own while that stop went through "
        "it — an `except BaseException:`, a bare `except:`, a `finally:` or a context "
        "manager's `__exit__` that raised. Let the stop pass: catch `Exception` (or "
        "narrower), and raise nothing in `finally`"
    )


#: The line CatchesEverything raises on.
RAISES_NO_DIE = CatchesEverything.resolve.__code__.co_firstlineno + 4


class SwallowsTheStop(RollUnder):
    """Catches every exception around its die and carries on without it: the dice's
    stop is swallowed, and resolve fails further on (the review of core17: the suite
    said to catch no BaseException, which this one's failure does not show)."""

    def resolve(self, context, dice):
        try:
            die = roll_die(dice, 10)
        except BaseException:
            die = None
        if die is None:
            raise ValueError("the die was lost")
        return super().resolve(context, dice)


class FailsForPlayers(RollUnder):
    """Fails whenever a player asks, at any table: nothing to do with the dice (the
    suite told its author to catch no BaseException, which it never did)."""

    def resolve(self, context, dice):
        if not context.by_gm:
            raise LookupError("no player table")
        return super().resolve(context, dice)


def failure_raising(ruleset, raised):
    """The first-die check's failure of ``ruleset``, which must name the exception
    ``raised`` (its type and words) and this file, where it was raised."""
    failure = failure_of(ruleset, "test_refusals_come_before_the_first_die")
    assert failure.startswith(
        "test: a player's request with its example failed (internal: ruleset 'rollunder' "
        f"failed: {raised}, at test_conformance_first_die.py:"
    ), failure
    return failure


def test_a_ruleset_swallowing_the_stop_is_told_so():
    failure = failure_raising(SwallowsTheStop(), "ValueError: the die was lost")
    assert ") at a table with approval only (it works without): " in failure, failure
    assert "Draw dice only through the DiceSource given" in failure


def test_a_ruleset_failing_every_players_request_is_not_told_of_the_dice():
    failure = failure_raising(FailsForPlayers(), "LookupError: no player table")
    assert failure.endswith(
        ", and fails so at a table without approval too: the example fails whenever a "
        "player asks for it (the first example actor theirs), whatever the dice — fix "
        "resolve for a player's request, or refuse it with a RuleViolation"
    ), failure
    assert "BaseException" not in failure


class Wordless(Exception):
    """A ruleset's exception whose own words fail."""

    def __str__(self) -> str:
        raise RuntimeError("no words")


class CatchesEverythingWordlessly(RollUnder):
    """Catches the dice's stop and raises an exception that cannot say itself."""

    def resolve(self, context, dice):
        try:
            roll_die(dice, 10)
        except BaseException:
            raise Wordless() from None
        return super().resolve(context, dice)


def test_an_exception_whose_words_fail_is_still_named():
    """Reading the ruleset's exception raised its __str__'s RuntimeError out of the
    suite's test (review of plugins19): the author read "no words" from the suite's
    own line, not what their ruleset did."""
    failure = failure_of(CatchesEverythingWordlessly(), "test_refusals_come_before_the_first_die")
    assert failure.startswith(
        "test: a player's request with its example failed (internal: ruleset 'rollunder' "
        "failed: Wordless (its __str__ raised RuntimeError), at test_conformance_first_die.py:"
    ), failure
    assert "and resolve raised its own while that stop went through it" in failure
