"""A form's example reads in its reader's language.

A list or object parameter's example is shown greyed out in every form (the web
table's) as how to fill it in: its free words — a modifier's label or note, an
item's or a vehicle's name — were English on Czech, German and Russian pages
("dark", "cover", "Chainmail"). They are texts now (``ActionSpec.example_in``),
rendered for each reader; what a request must send as it is (an ``enum``'s value,
a number) stays as it is.

A text parameter's example is shown too — put in a field the action needs, else
greyed out in it — and `rollbridge rulesets` prints every example: sr2's test label
("Body (death roll)"), bandits' move ("act under fire"), techlevel's weapon
("Revolver") and spell ("Ironskin") were English in every language. A text the
request must send as it is — a name from the actor's sheet (``choicesFrom`` with
``only``), a code of a ``pattern``, dice notation — stays as it is.
"""

from __future__ import annotations

from typing import Any

import pytest

from rollbridge.host import PluginHost
from rollbridge.schema import validate
from rollbridge.text import Text

BUILT_IN = ("sr2", "techlevel", "bandits", "wilddie")
#: Defaults that are keys, not words: techlevel's damage type is matched against
#: the immunities a sheet lists (``kinetic``, ``shock``, ``mental``; TL rules), as an
#: ``enum``'s value would be, but the set is open.
KEYS = {("techlevel", "hit", "type")}
#: Parameters whose text is dice notation, the same in every language.
NOTATION = {("techlevel", "hit", "dice"), ("wilddie", "damage", "dice")}


def _free_words(schema: dict[str, Any], value: Any, path: str) -> list[str]:
    """The plain strings of ``value`` where ``schema`` does not fix the value
    (no ``enum``): words a reader reads, which must be texts."""
    if "enum" in schema or "const" in schema or isinstance(value, Text):
        return []
    if isinstance(value, str):
        return [f"{path}: {value!r}"]
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        return [
            word
            for key, item in value.items()
            for word in _free_words(properties.get(key, {}), item, f"{path}.{key}")
        ]
    if isinstance(value, list):
        items = schema.get("items", {})
        return [
            word
            for i, item in enumerate(value)
            for word in _free_words(items, item, f"{path}[{i}]")
        ]
    return []


@pytest.fixture(scope="module")
def host() -> PluginHost:
    return PluginHost()


@pytest.mark.parametrize("ruleset", BUILT_IN)
def test_the_free_words_of_a_shown_example_are_texts(host, ruleset):
    found = []
    for name, spec in host.rulesets[ruleset].actions.items():
        properties = spec.params.get("properties", {})
        for key, value in (spec.example or {}).items():
            if isinstance(value, list | dict):  # shown greyed out, as how to write it
                found += _free_words(properties.get(key, {}), value, f"{name}.{key}")
    assert not found, found


def _sent_as_it_is(schema: dict[str, Any]) -> bool:
    """Whether a text parameter's value is one the request must send as it is: a
    pattern's code, or a name the actor's sheet offers and no other."""
    return "pattern" in schema or bool(schema.get("choicesFrom", {}).get("only"))


@pytest.mark.parametrize("ruleset", BUILT_IN)
def test_the_free_words_of_a_text_parameters_example_are_texts(host, ruleset):
    found = [
        f"{name}.{key}: {value!r}"
        for name, spec in host.rulesets[ruleset].actions.items()
        for key, value in (spec.example or {}).items()
        if isinstance(value, str)
        and not _sent_as_it_is(spec.params.get("properties", {}).get(key, {}))
        and _free_words(spec.params.get("properties", {}).get(key, {}), value, key)
        and (ruleset, name, key) not in KEYS | NOTATION
    ]
    assert not found, found


@pytest.mark.parametrize(
    ("ruleset", "action", "path", "words"),
    [
        ("wilddie", "trait", ("modifiers", 0, "note"),
         {"en": "dark", "cs": "tma", "de": "Dunkelheit", "ru": "темнота"}),
        ("bandits", "move", ("modifiers", 0, "label"),
         {"en": "cover", "cs": "kryt", "de": "Deckung", "ru": "укрытие"}),
        ("techlevel", "don", ("item", "name"),
         {"en": "Chainmail", "cs": "Kroužková zbroj", "de": "Kettenhemd", "ru": "Кольчуга"}),
        ("techlevel", "mount", ("vehicle", "sections", 1, "name"),
         {"en": "rear", "cs": "záď", "de": "hinten", "ru": "зад"}),
        ("sr2", "success_test", ("label",),
         {"en": "Body (death roll)", "cs": "Tělo (hod na smrt)",
          "de": "Konstitution (Todeswurf)", "ru": "Телосложение (бросок на смерть)"}),
        ("bandits", "move", ("move",),
         {"en": "act under fire", "cs": "jednání pod palbou", "de": "Handeln unter Feuer",
          "ru": "действие под огнем"}),
        ("techlevel", "hit", ("weapon",),
         {"en": "Revolver", "cs": "Revolver", "de": "Revolver", "ru": "Револьвер"}),
        ("techlevel", "enchant", ("spell",),
         {"en": "Ironskin", "cs": "Železná kůže", "de": "Eisenhaut", "ru": "Железная кожа"}),
    ],
)  # fmt: skip
def test_a_form_gets_the_example_in_its_language(host, ruleset, action, path, words):
    spec = host.rulesets[ruleset].actions[action]
    for locale, word in words.items():
        sent = spec.to_dict(locale)["example"]
        at = sent
        for step in path:
            at = at[step]
        assert at == word, (locale, sent)
        validate(spec.params, sent)  # and a request may send it as it reads


@pytest.mark.parametrize("ruleset", BUILT_IN)
def test_no_free_word_is_a_schema_default(host, ruleset):
    """A parameter's default is shown greyed out too, and a schema cannot carry a
    text: a free word there read English in every language (sr2's test label,
    "Success test"). Such a parameter has no default; left out, the ruleset says it
    in each reader's language."""
    found = [
        f"{name}.{key}: {schema['default']!r}"
        for name, spec in host.rulesets[ruleset].actions.items()
        for key, schema in spec.params.get("properties", {}).items()
        if isinstance(schema.get("default"), str)
        and schema["default"]
        and "enum" not in schema
        and (ruleset, name, key) not in KEYS
    ]
    assert not found, found
