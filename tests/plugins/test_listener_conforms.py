"""A ruleset with an action that is always secret passes the whole conformance
suite, as ``rollbridge new-plugin``'s package with one such action added does: the
suite's tests that read players' view of each example's event read its ``hidden``
placeholder (no ``data``) as what players see, not as the ruleset's failure — they
stopped on ``KeyError: 'data'`` (review plugins25, following docs/plugins.md from
``rollbridge new-plugin`` to a secret action)."""

from __future__ import annotations

import dataclasses

import pytest

from plugins.wilddie.ruleset import WildDieRuleset
from rollbridge.testing import RulesetConformance
from tests.plugins.listener import Listener
from tests.plugins.rollunder import conformance_of


class TestListenerConforms(RulesetConformance):
    """tests/plugins/listener.py: ``listen`` always secret, beside ``test``."""

    ruleset = Listener()


class AllSecretWildDie(WildDieRuleset):
    """wilddie with every action always secret: its catalogues in cs, de and ru, so
    the locale test reads each example's events in them too (Listener ships none)."""

    actions = {name: dataclasses.replace(spec, secret=True)
               for name, spec in WildDieRuleset.actions.items()}  # fmt: skip


@pytest.mark.parametrize(
    "test",
    [
        "test_texts_are_data_and_render_for_every_audience",
        "test_every_action_reads_in_every_locale",
    ],
)
def test_the_suite_reads_players_placeholder_of_an_always_secret_action(test):
    """Every example's players' view is the placeholder; the GM's is rendered whole."""
    getattr(conformance_of(AllSecretWildDie()), test)()
