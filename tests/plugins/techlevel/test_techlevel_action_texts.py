"""techlevel's actions in the reader's language: every action has a label and a
summary, every parameter a label and a hint, every enum value a choice — texts of the
ruleset's catalogue, which ``describe(locale)`` renders (the welcome and the web
table's forms show them). That every built-in ruleset gives them all:
tests/plugins/test_action_words.py."""

from __future__ import annotations

import pytest

from rollbridge.plugins.techlevel import TechLevel

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
