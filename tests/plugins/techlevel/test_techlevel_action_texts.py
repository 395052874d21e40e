"""techlevel's actions in the reader's language: every action has a label and a
summary, every parameter a label and a hint, every enum value a choice — texts of the
ruleset's catalogue, which ``describe(locale)`` renders (the welcome and the web
table's forms show them)."""

from __future__ import annotations

import pytest

from rollbridge.plugins.techlevel import TechLevel
from rollbridge.text import Text

RULESET = TechLevel()

#: One action, one parameter and one choice of each, as a Czech and a German player
#: read them (the glossary of docs/rulesets/techlevel.md).
READS = {
    "cs": {"label": "Sundat", "param": "Vrstva", "choice": "Zbroj", "mode": "Vylepšit nasazenou"},
    "de": {
        "label": "Ablegen",
        "param": "Schicht",
        "choice": "Rüstung",
        "mode": "Getragene verbessern",
    },
}


@pytest.mark.parametrize("locale", sorted(READS))
def test_the_actions_words_are_translated(locale):
    english = RULESET.describe("en")["actions"]
    actions = RULESET.describe(locale)["actions"]
    reads = READS[locale]
    doff = actions["doff"]
    assert doff["label"] == reads["label"] != english["doff"]["label"]
    assert doff["labels"]["layer"] == reads["param"] != english["doff"]["labels"]["layer"]
    assert doff["choices"]["layer"]["armour"] == reads["choice"]
    assert doff["choices"]["layer"]["armour"] != english["doff"]["choices"]["layer"]["armour"]
    assert actions["enchant"]["choices"]["mode"]["improve"] == reads["mode"]
    assert doff["summary"] != english["doff"]["summary"]
    assert doff["hints"]["layer"] != english["doff"]["hints"]["layer"]


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
