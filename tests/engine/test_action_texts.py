"""An action's label, summary, parameter labels, hints and choices are texts:
rendered in each reader's language in the ruleset's description and the welcome."""

from __future__ import annotations

import dataclasses

import pytest

from rollbridge.contract import ActionSpec
from rollbridge.engine.model import Principal
from rollbridge.offline import TableService
from rollbridge.stores import MemoryStore
from rollbridge.testing import host_with
from rollbridge.text import Messages
from tests.test_i18n import _plugin, _translate_and_compile, registry  # noqa: F401 (a fixture)

say = Messages("action_texts_tests")
HIT = say("action.hit", "Hit")()
BONUS = say("param.bonus", "Bonus")()
BONUS_HINT = say("hint.bonus", "added to the die")()
LOW = say("choice.low", "low")()


@pytest.fixture
def labelled(tally):
    hit = tally.actions["hit"]
    params = {"type": "object", "properties": {
        "bonus": {"type": "integer", "minimum": 0, "default": 0},
        "aim": {"type": "string", "enum": ["low", "high"], "description": "where"}}}  # fmt: skip
    spec = dataclasses.replace(
        hit, params=params, label=HIT, summary=say("summary.hit", "Roll a hit.")(),
        labels={"bonus": BONUS}, hints={"bonus": BONUS_HINT}, choices={"aim": {"low": LOW}},
    )  # fmt: skip
    return type("Labelled", (type(tally),), {"actions": {**tally.actions, "hit": spec}})()


def test_an_actions_texts_are_rendered_in_the_description(labelled):
    described = labelled.describe("en")["actions"]["hit"]
    assert described["label"] == "Hit" and described["summary"] == "Roll a hit."
    assert described["labels"] == {"bonus": "Bonus"}
    assert described["hints"] == {"bonus": "added to the die"}
    assert described["choices"] == {"aim": {"low": "low"}}
    assert labelled.describe()["actions"]["heal"]["label"] == "heal"  # none given: its name


def test_the_welcome_carries_them_in_the_members_language(labelled, monkeypatch):
    """The welcome's ruleset is rendered for the member's locale (no Text objects on
    the wire: the whole welcome packs)."""
    rendered = []
    real = ActionSpec.to_dict

    def spy(self, locale="en"):
        rendered.append(locale)
        return real(self, locale)

    monkeypatch.setattr(ActionSpec, "to_dict", spy)
    svc = TableService(MemoryStore(), host_with(labelled))
    svc.create_table("t", "tally", table_id="t")
    fields = svc.protocol("t").welcome_fields(Principal("player", "p", "tok"), "de")
    assert "de" in rendered
    assert fields["ruleset"]["actions"]["hit"]["label"] == "Hit"  # no German catalogue here


def test_choices_of_null_and_booleans_are_keyed_as_a_browser_writes_them(tally):
    """A form looks an option's label up by JavaScript's String(value): `None` keyed
    "None" left bandits' "no choice" reading `null`."""
    hit = tally.actions["hit"]
    params = {"type": "object", "properties": {
        "wield": {"type": ["string", "null"], "enum": [None, "pierce"]},
        "aim": {"type": ["boolean", "integer"], "enum": [True, 2]}}}  # fmt: skip
    spec = dataclasses.replace(hit, params=params, choices={
        "wield": {None: "none", "pierce": "pierce"}, "aim": {True: "yes", 2: "two"}})  # fmt: skip
    choices = spec.to_dict("en")["choices"]
    assert choices == {"wield": {"null": "none", "pierce": "pierce"},
                       "aim": {"true": "yes", "2": "two"}}  # fmt: skip


@pytest.mark.usefixtures("registry")
def test_a_welcome_reads_catalogues_given_after_the_tables_first_welcome(tally, tmp_path):
    """A table renders its ruleset's description for a welcome once per locale and
    keeps it; a catalogue of the ruleset's domain given after that first welcome (a
    ``Messages`` naming the folder later; or compiled again in this process:
    ``rollbridge.text.forget``) was never read by the table's later welcomes, though
    the texts themselves read it at once (docs/plugins.md). They read it now."""
    package = _plugin(tmp_path, "welcomelate")
    _translate_and_compile(package, "welcomelate", "de", "{name} handelt")
    said = Messages("welcomelate")("said", "{name} acts")
    spec = dataclasses.replace(tally.actions["hit"], label=said(name="Ana"))
    late = type("Late", (type(tally),), {"actions": {**tally.actions, "hit": spec}})()
    svc = TableService(MemoryStore(), host_with(late))
    svc.create_table("t", "tally", table_id="t")
    protocol, player = svc.protocol("t"), Principal("player", "p", "tok")
    label = lambda: protocol.welcome_fields(player, "de")["ruleset"]["actions"]["hit"]["label"]  # noqa: E731
    assert label() == "Ana acts"  # no catalogue given yet
    Messages("welcomelate", catalogs=package / "locale")
    assert label() == "Ana handelt"
    _translate_and_compile(package, "welcomelate", "de", "{name} tut es")
    assert label() == "Ana tut es" and label() == "Ana tut es"
