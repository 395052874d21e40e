"""Every built-in ruleset gives every action a label and a summary, every parameter a
label and a hint, every value of an enum a choice — all texts of its catalogue, none
left to the schema's English (the web table's forms show them in the reader's
language; the conformance suite checks they are translated)."""

from __future__ import annotations

import pytest

from rollbridge.cli.offline import offline_host
from rollbridge.text import Text

HOST = offline_host()
BUILTIN = ("sr2", "techlevel", "bandits", "wilddie")
ACTIONS = [(ruleset, name) for ruleset in BUILTIN for name in HOST.ruleset(ruleset).actions]


@pytest.mark.parametrize(("ruleset", "name"), ACTIONS)
def test_every_action_parameter_and_choice_has_its_words(ruleset, name):
    spec = HOST.ruleset(ruleset).actions[name]
    properties = spec.params["properties"]
    assert isinstance(spec.label, Text) and isinstance(spec.summary, Text)
    assert set(spec.labels) == set(properties) == set(spec.hints)
    enums = {p: set(s["enum"]) for p, s in properties.items() if "enum" in s}
    assert {p: set(values) for p, values in spec.choices.items()} == enums
    texts = [*spec.labels.values(), *spec.hints.values()]
    texts += [text for values in spec.choices.values() for text in values.values()]
    assert all(isinstance(text, Text) for text in texts)
