"""A ruleset that ships catalogues but gives an action's words as plain strings — as
docs/plugins.md's own ``Coin`` gives its action's summary — passed the conformance
suite, while every reader of another language read those words in English (the
``actions`` list of ``rollbridge connect --locale cs``: found writing a fifth ruleset
from the docs, December 2026). ``test_every_action_reads_in_every_locale`` says so,
naming each plain string, with a warning (``PlainWordsWarning``: plain strings are
allowed, and plugins written before the check — ``examples/hitpoints``' summary — must
not start failing)."""

from __future__ import annotations

import inspect
import warnings
from dataclasses import replace

import pytest

from rollbridge.exceptions import PlainWordsWarning
from rollbridge.plugins.techlevel.ruleset import TechLevel
from tests.plugins.rollunder import conformance_of


class PlainWords(TechLevel):
    """The techlevel ruleset with one action's summary and a hint in plain English."""

    def __init__(self) -> None:
        super().__init__()
        name, spec = next(iter(type(self).actions.items()))
        key = next(iter(spec.params.get("properties", {})), None)
        hints = {key: "a plain hint"} if key is not None else {}
        self.actions = {
            **type(self).actions,
            name: replace(spec, summary="Plain English summary.", hints=hints),
        }
        self.first = name, key


def test_plain_words_of_a_ruleset_with_catalogues_are_warned_of():
    ruleset = PlainWords()
    name, key = ruleset.first
    with pytest.warns(PlainWordsWarning) as warned:
        conformance_of(ruleset).test_every_action_reads_in_every_locale()
    (said,) = [str(w.message) for w in warned if w.category is PlainWordsWarning]
    assert said.startswith(
        "words people read are plain strings, which read in English in cs, de, ru: "
    ), said
    assert f"{name}: summary 'Plain English summary.'" in said, said
    assert f"{name}: hints[{key!r}] 'a plain hint'" in said, said
    assert "give each as a Text of your catalogue" in said


def test_a_ruleset_whose_words_are_texts_is_not_warned_of():
    with warnings.catch_warnings():
        warnings.simplefilter("error", PlainWordsWarning)
        conformance_of(TechLevel()).test_every_action_reads_in_every_locale()


def test_the_warning_points_at_the_rulesets_class():
    """The warning was given at the caller of the suite's test — under pytest, pytest's
    own ``_pytest/python.py`` (review of plugins19): the warnings summary named a
    line of pytest, not the author's ruleset."""
    with pytest.warns(PlainWordsWarning) as warned:
        conformance_of(PlainWords()).test_every_action_reads_in_every_locale()
    (met,) = [w for w in warned if w.category is PlainWordsWarning]
    assert (met.filename, met.lineno) == (
        inspect.getsourcefile(PlainWords),
        inspect.getsourcelines(PlainWords)[1],
    )
