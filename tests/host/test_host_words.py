"""A ruleset's ``words`` (the version of its words, docs/plugins.md, "Changing what
your texts say") is a whole number from 1: anything else stops startup naming the
plugin, the ruleset and the value, before a table writes it into an event."""

from __future__ import annotations

import pytest

import rollbridge
from rollbridge.exceptions import PluginError
from rollbridge.testing import host_with
from tests.host.test_host_refusals import _ruleset


def _worded(words: object) -> rollbridge.Ruleset:
    ruleset = _ruleset("1.0.0")
    type(ruleset).words = words  # type: ignore[attr-defined]
    return ruleset


@pytest.mark.parametrize("words", [1, 2, 17])
def test_a_whole_number_from_one_is_taken(words):
    assert host_with(_worded(words)).rulesets["coin"].words == words


def test_a_ruleset_that_says_nothing_is_at_its_first_words():
    assert host_with(_ruleset("1.0.0")).rulesets["coin"].words == 1


@pytest.mark.parametrize("words", [0, -1, "2", 2.0, True, None])
def test_other_words_are_refused_naming_the_value(words):
    with pytest.raises(PluginError) as refused:
        host_with(_worded(words))
    assert str(refused.value) == (
        f"plugin 'under-test': ruleset 'coin' has words {words!r}: the version of its "
        "words is a whole number from 1 (raise it by one at each change of what its "
        "texts say)"
    )
    assert refused.value.details == {"plugin": "under-test"}
