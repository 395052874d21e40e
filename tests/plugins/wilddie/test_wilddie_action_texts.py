"""wilddie's actions in the reader's language: every action has a label and a
summary, every parameter a label and a hint, every enum value a choice — texts of the
ruleset's catalogue, which ``describe(locale)`` renders (the welcome and the web
table's forms show them). That every built-in ruleset gives them all:
tests/plugins/test_action_words.py."""

from __future__ import annotations

import pytest

from rollbridge.plugins.wilddie import WildDieRuleset

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
