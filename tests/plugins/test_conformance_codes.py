"""A ruleset's refusal carries a code of its own (docs/plugins.md, "Errors"): clients
act on rollbridge's codes — the browser client sends a request refused ``busy`` or
``rate_limited`` again, and reads ``internal`` as the server's failure — so a
ruleset that refused with ``busy`` had every player's request resent, refused again,
and the suite passed it, as it passed a code that is no name (``42``, ``""``)."""

from __future__ import annotations

import pytest

from rollbridge.exceptions import RuleViolation
from tests.plugins.rollunder import RollUnder, conformance_of, failure_of


def refusing(code):
    """The fixture ruleset, refusing every test with ``code``."""

    class Refuses(RollUnder):
        def resolve(self, context, dice):
            raise RuleViolation("the target is out of reach", code=code)

    return Refuses()


def test_a_code_of_rollbridges_own_fails_naming_it():
    with pytest.raises(AssertionError) as failed:
        conformance_of(refusing("busy")).test_actions_resolve_through_the_engine()
    assert str(failed.value) == (
        "test: refused: the refusal's code 'busy' is one of rollbridge's own, which clients "
        "act on (busy and rate_limited are sent again, internal reads as the server's "
        'failure): give it a code of your ruleset\'s (code="no_ammo")'
    )


@pytest.mark.parametrize("code", [42, "", "No reach", "out-of-reach"])
def test_a_code_that_is_no_name_fails(code):
    with pytest.raises(AssertionError, match=rf"test: refused: the refusal's code is {code!r}"):
        conformance_of(refusing(code)).test_actions_resolve_through_the_engine()


def test_a_player_refused_before_the_dice_is_checked_too():
    with pytest.raises(AssertionError, match=r"test: refused to a player: .* 'internal' is one"):
        conformance_of(refusing("internal")).test_refusals_come_before_the_first_die()


def test_a_code_of_the_rulesets_own_passes():
    """Refused every time, the example fails the suite only for resolving nothing."""
    with pytest.raises(AssertionError, match="no action example resolved"):
        conformance_of(refusing("out_of_reach")).test_actions_resolve_through_the_engine()
    conformance_of(refusing("out_of_reach")).test_refusals_come_before_the_first_die()
    conformance_of(refusing("rule_violation")).test_refusals_come_before_the_first_die()


class NotThere(RuleViolation):
    """A ruleset's own refusal class, as Python authors write one: its code a class
    attribute, here one of rollbridge's (the Foundry module reads ``not_found`` as a
    refusal of the actor)."""

    code = "not_found"


def test_a_subclass_carrying_a_code_of_rollbridges_own_fails_too():
    """The check looked only at ``RuleViolation`` itself: a subclass with a class
    ``code`` of rollbridge's passed."""

    class Refuses(RollUnder):
        def resolve(self, context, dice):
            raise NotThere("no such weapon in the hero's hands")

    assert failure_of(Refuses(), "test_actions_resolve_through_the_engine").startswith(
        "test: refused: the refusal's code 'not_found' is one of rollbridge's own"
    )


@pytest.mark.parametrize("code", ["refused", "stopped", "held_dice_secret", "not_pending"])
def test_a_code_a_client_gives_or_acts_on_fails(code):
    """The browser client rejects a request its connection could not send with
    ``refused`` or ``stopped``; the Foundry module keeps a player's held request
    rejected so and asks again at each connection. A request the rules refused with
    that code (asked again after the GM approved it while the player was away) stayed
    held for ever, the player never told; the suite passed the code. An approval
    refused ``held_dice_secret`` has the web view ask for the GM's dice, one refused
    ``not_pending`` the Foundry module mark it settled: no class of rollbridge's has
    those codes, and the suite passed them (rev27a)."""
    assert failure_of(refusing(code), "test_actions_resolve_through_the_engine") == (
        f"test: refused: the refusal's code {code!r} is one a client gives a request its "
        "connection could not send (stopped, refused: the Foundry module keeps a player's "
        "held request refused so and asks for it again at every connection, never telling "
        "the player) or acts on in a reply (held_dice_secret: the web view asks for the "
        "GM's dice; not_pending: the Foundry module marks the approval settled); give it "
        'a code of your ruleset\'s (code="no_ammo")'
    )


class Refused(RuleViolation):
    """A ruleset's refusal class that keeps ``RuleViolation``'s code."""


def test_a_subclass_keeping_rule_violation_passes():
    """As ``RuleViolation`` itself passes with ``rule_violation``; the suite read a
    subclass keeping it as one giving a code of rollbridge's own (rev27a)."""

    class Refuses(RollUnder):
        def resolve(self, context, dice):
            raise Refused("the target is out of reach")

    conformance_of(Refuses()).test_refusals_come_before_the_first_die()


def test_the_gms_adjust_refused_is_checked_too():
    """The suite's adjust tried every track but passed any refusal's code: an adjust
    refused ``busy`` is sent again by the browser client, refused again."""

    class AdjustsNothing(RollUnder):
        def adjust(self, actor, track, delta):
            raise RuleViolation("the GM may not mark wounds", code="busy")

    assert failure_of(AdjustsNothing(), "test_adjustments_make_states_the_rules_take").startswith(
        "adjust of a0's track 'wounds' by +1: refused: the refusal's code 'busy' is one of "
        "rollbridge's own"
    )


def test_a_subclass_with_a_code_of_its_own_passes():
    class OutOfReach(RuleViolation):
        code = "out_of_reach"

    class Refuses(RollUnder):
        def resolve(self, context, dice):
            raise OutOfReach("the target is out of reach")

        def adjust(self, actor, track, delta):
            raise OutOfReach("the GM's hand is out of reach")

    with pytest.raises(AssertionError, match="no action example resolved"):
        conformance_of(Refuses()).test_actions_resolve_through_the_engine()
    conformance_of(Refuses()).test_refusals_come_before_the_first_die()
    conformance_of(Refuses()).test_adjustments_make_states_the_rules_take()


class NoAmmo(RuleViolation):
    """A ruleset's refusal class, defined where Python holds every subclass of
    rollbridge's errors: the suite counted its code among rollbridge's own."""

    code = "no_ammo"


def test_a_code_a_rulesets_own_class_carries_passes():
    """A ruleset that has a class for a refusal and raises ``RuleViolation`` with its
    code elsewhere (or two rulesets in one test run, one with such a class) failed the
    suite, told that ``no_ammo`` was one of rollbridge's own codes."""

    class Refuses(RollUnder):
        def resolve(self, context, dice):
            raise RuleViolation("the hero has no ammunition left", code=NoAmmo.code)

    with pytest.raises(AssertionError, match="no action example resolved"):
        conformance_of(Refuses()).test_actions_resolve_through_the_engine()
    conformance_of(Refuses()).test_refusals_come_before_the_first_die()


@pytest.mark.parametrize("code", ["2nd_wind_used", "3_actions_taken", "4d6_needed"])
def test_a_code_starting_with_a_digit_is_a_name(code):
    """docs/protocol.md ("Error codes"): clients take a code as an opaque string, and
    the suite asks what it says there: a name of lowercase letters, digits and
    underscores with a letter among it. It failed a code starting with a digit."""
    with pytest.raises(AssertionError, match="no action example resolved"):
        conformance_of(refusing(code)).test_actions_resolve_through_the_engine()
    conformance_of(refusing(code)).test_refusals_come_before_the_first_die()


@pytest.mark.parametrize("code", ["42", "_private", "2_3", "x" * 65])
def test_a_code_without_a_letter_or_from_an_underscore_fails(code):
    with pytest.raises(AssertionError, match=rf"test: refused: the refusal's code is {code!r}"):
        conformance_of(refusing(code)).test_actions_resolve_through_the_engine()


class RefusesWhenWounded(RollUnder):
    """Refuses a wounded actor's test with one of rollbridge's codes: a refusal the
    examples never reach (their actor is never wounded), the fuzzed states do."""

    def resolve(self, context, dice):
        if context.actor.state["wounds"]:
            raise RuleViolation("too hurt to try", code="busy")
        return super().resolve(context, dice)


def test_a_refusal_only_a_supplied_state_reaches_is_checked_too():
    conformance_of(RefusesWhenWounded()).test_actions_resolve_through_the_engine()
    suite = conformance_of(RefusesWhenWounded())
    suite.state_seed, suite.state_examples = 20261206, 200  # states with wounds among them
    with pytest.raises(AssertionError, match=r"test by \w+ with the state \{'wounds': [1-6]"):
        suite.test_supplied_states_are_refused_or_work()
