"""A turn hook's texts read in every locale the ruleset ships: the suite's locale test
resolved the action examples alone, so a turn hook's message left untranslated in a
catalogue passed it, though the encounter the suite runs reached it — the Russian
"catches breath" of a step-die ruleset written from docs/plugins.md read in English
at every table (author29). ``test_every_action_reads_in_every_locale`` now runs an
encounter of the example actors too, and renders its events in each locale."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from rollbridge import ActionContext, ActionSpec, Actor, CommonState, Resolution, Ruleset
from rollbridge.contract import TurnContext
from rollbridge.dice import DiceGroup, DiceSource, roll_die
from rollbridge.testing import RulesetConformance
from rollbridge.text import Messages
from tests.catalogue_files import write_catalogue

#: The ruleset's messages (key: English, Czech); the turn hook's is left out of the
#: Czech catalogue where the test says so.
WORDS = {
    "poke": ("Poke", "Šťouchnout"),
    "poke.summary": ("Roll a d6.", "Hoď k6."),
    "poke.done": ("{actor} rolls {roll}", "{actor} hází {roll}"),
    "dice.d6": ("d6", "k6"),
    "turn.rest": ("{actor} rests", "{actor} odpočívá"),
}


def _ruleset(folder: Path, domain: str) -> Ruleset:
    say = Messages(domain, catalogs=folder)
    said = {key: say(key, english) for key, (english, _czech) in WORDS.items()}

    class Resting(Ruleset):
        """One action, and a turn hook that says something at every turn's start."""

        id = domain
        name = "Resting"
        version = "1.0.0"
        sheet_schema = {"type": "object", "properties": {"hp": {"type": "integer"}}}
        settings_schema = {"type": "object", "properties": {}}
        state_schema = {"type": "object", "properties": {}}
        example_sheets = {"Ana": {"hp": 3}}
        actions = {
            "poke": ActionSpec("poke", said["poke.summary"](), params={"type": "object"},
                               label=said["poke"](), example={}),
        }  # fmt: skip

        def initial_state(self, sheet: Mapping[str, Any]) -> dict[str, Any]:
            return {}

        def resolve(self, context: ActionContext, dice: DiceSource) -> Resolution:
            assert context.actor is not None
            die = roll_die(dice, 6)
            narration = said["poke.done"](actor=context.actor.name, roll=die.value)
            return Resolution(narration, {}, dice=[DiceGroup(said["dice.d6"](), (die,))])

        def on_turn_start(self, context: TurnContext, dice: DiceSource) -> Resolution | None:
            assert context.actor is not None
            return Resolution(said["turn.rest"](actor=context.actor.name), {})

        def common_state(self, actor: Actor) -> CommonState:
            return CommonState("ok", ())

    return Resting()


def _suite(tmp_path: Path, domain: str, *, hook_translated: bool) -> RulesetConformance:
    entries = {key: words for key, words in WORDS.items()
               if hook_translated or key != "turn.rest"}  # fmt: skip
    write_catalogue(tmp_path, "cs", domain, entries)
    ruleset = _ruleset(tmp_path, domain)
    return type("Suite", (RulesetConformance,), {"ruleset": ruleset, "seeds": (1,)})()


def test_a_turn_hooks_untranslated_message_fails_naming_it(tmp_path: Path) -> None:
    suite = _suite(tmp_path, "resting_untranslated", hook_translated=False)
    with pytest.raises(AssertionError) as failed:
        suite.test_every_action_reads_in_every_locale()
    said = str(failed.value)
    assert "('resting_untranslated.turn.rest', 'cs')" in said, said


def test_a_turn_hook_translated_passes(tmp_path: Path) -> None:
    suite = _suite(tmp_path, "resting_translated", hook_translated=True)
    suite.test_every_action_reads_in_every_locale()
