"""A ruleset's refusal carries a code of its own (docs/plugins.md, "Errors"): clients
act on rollbridge's codes — the browser client sends a request refused ``busy`` or
``rate_limited`` again, and reads ``internal`` as the server's failure — so a
ruleset that refused with ``busy`` had every player's request resent, refused again,
and the suite passed it, as it passed a code that is no name (``42``, ``""``)."""

from __future__ import annotations

import pytest

from rollbridge.exceptions import RuleViolation
from tests.plugins.rollunder import RollUnder, conformance_of


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
