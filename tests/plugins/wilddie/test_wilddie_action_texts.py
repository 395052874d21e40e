"""wilddie's actions in the reader's language: every action has a label and a
summary, every parameter a label and a hint, every enum value a choice — texts of the
ruleset's catalogue, which ``describe(locale)`` renders (the welcome and the web
table's forms show them)."""

from __future__ import annotations

import pytest

from rollbridge.plugins.wilddie import WildDieRuleset
from rollbridge.text import Text

RULESET = WildDieRuleset()

#: One action, one parameter and one choice of each, as a Czech and a German player
#: read them (the glossary of docs/rulesets/wilddie.md).
READS = {
    "cs": {"label": "Útok", "param": "Vzdálenost", "choice": "Krátká", "trait": "Všímavost"},
    "de": {"label": "Angriff", "param": "Reichweite", "choice": "Kurz", "trait": "Wahrnehmung"},
}


@pytest.mark.parametrize("locale", sorted(READS))
def test_the_actions_words_are_translated(locale):
    english = RULESET.describe("en")["actions"]
    actions = RULESET.describe(locale)["actions"]
    reads = READS[locale]
    attack = actions["attack"]
    assert attack["label"] == reads["label"] != english["attack"]["label"]
    assert attack["labels"]["range"] == reads["param"] != english["attack"]["labels"]["range"]
    assert attack["choices"]["range"]["short"] == reads["choice"]
    assert attack["choices"]["range"]["short"] != english["attack"]["choices"]["range"]["short"]
    assert actions["trait"]["choices"]["trait"]["notice"] == reads["trait"]
    assert attack["summary"] != english["attack"]["summary"]
    assert attack["hints"]["range"] != english["attack"]["hints"]["range"]


@pytest.mark.parametrize("name", sorted(RULESET.actions))
def test_every_action_parameter_and_choice_has_its_words(name):
    """Every action a label and a summary, every parameter a label and a hint, every
    value of an enum a choice: all texts, none left to the schema's English."""
    spec = RULESET.actions[name]
    properties = spec.params["properties"]
    assert isinstance(spec.label, Text) and isinstance(spec.summary, Text)
    assert set(spec.labels) == set(properties) == set(spec.hints)
    enums = {p: set(s["enum"]) for p, s in properties.items() if "enum" in s}
    assert {p: set(values) for p, values in spec.choices.items()} == enums
    texts = [*spec.labels.values(), *spec.hints.values()]
    texts += [text for values in spec.choices.values() for text in values.values()]
    assert all(isinstance(text, Text) for text in texts)
