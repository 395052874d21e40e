"""Shared helpers for the bandits tests: build actors in a given state and resolve
actions with supplied (scripted) or seeded dice.

A resolution's texts and private marks are read as the GM reads them
(:func:`as_gm`): every :class:`~rollbridge.text.Private` by its value, every
:class:`~rollbridge.text.Text` rendered in English. What players see is tested
through the engine (``test_bandits_player_resolution.py``, ``test_bandits_privacy.py``).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pytest

from rollbridge import ActionContext, Actor, Resolution, TurnContext
from rollbridge.dice import DiceSource, ScriptedDice
from rollbridge.plugins.bandits import BanditsRuleset
from rollbridge.schema import validate
from rollbridge.text import Private, Text

SLOT_KEYS = {1: "lightly", 2: "seriously", 3: "heavily", 4: "dying"}


def gm_value(value: Any) -> Any:
    """``value`` as the GM reads it: marks unwrapped, texts rendered (English)."""
    if isinstance(value, Private):
        return gm_value(value.value)
    if isinstance(value, Text):
        return value.render()
    if isinstance(value, Mapping):
        return {key: gm_value(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(gm_value(item) for item in value)
    return value


def as_gm(resolution: Resolution) -> Resolution:
    """A resolution as the GM reads it (see :func:`gm_value`); states are left as they are."""
    fields = ("label", "formula", "total", "target", "successes", "note")
    dice = [
        dataclasses.replace(g, **{f: gm_value(getattr(g, f)) for f in fields})
        for g in resolution.dice
    ]
    return Resolution(
        narration=gm_value(resolution.narration),
        outcome=gm_value(resolution.outcome),
        dice=dice,
        states=resolution.states,
        steps=gm_value(list(resolution.steps)),
        params=gm_value(resolution.params),
    )


class Kit:
    """Test helpers around one :class:`BanditsRuleset`."""

    def __init__(self) -> None:
        self.ruleset = BanditsRuleset()

    # -- actors --------------------------------------------------------------

    def bandit(
        self,
        actor_id: str = "ana",
        *,
        slots: Iterable[int] = (),
        stabilised: bool = False,
        dead: bool = False,
        dying_turn_started: bool = False,
        dual_wield: str | None = None,
        heavy_this_raid: bool = False,
        **sheet: Any,
    ) -> Actor:
        """A bandit with exactly ``slots`` marked (state written by hand, not by the plugin)."""
        valid = self.ruleset.validate_sheet({"kind": "bandit", **sheet})
        marked = set(slots)
        state = {
            "kind": "bandit",
            "slots": {name: n in marked for n, name in SLOT_KEYS.items()},
            "dying": 4 in marked and not dead,
            "stabilised": stabilised,
            "dead": dead,
            "dying_turn_started": dying_turn_started,
            "dual_wield": dual_wield,
            "heavy_this_raid": heavy_this_raid,
        }
        return Actor(actor_id, actor_id.capitalize(), valid, state)

    def extra(
        self,
        actor_id: str = "guard",
        *,
        wounded: bool = False,
        out: bool = False,
        **sheet: Any,
    ) -> Actor:
        valid = self.ruleset.validate_sheet({"kind": "extra", **sheet})
        state = {"kind": "extra", "wounded": wounded, "out": out, "dual_wield": None}
        return Actor(actor_id, actor_id.capitalize(), valid, state)

    @staticmethod
    def with_state(actor: Actor, state: Mapping[str, Any]) -> Actor:
        return Actor(actor.id, actor.name, actor.sheet, copy.deepcopy(dict(state)))

    def apply(self, actor: Actor, resolution: Resolution | None) -> Actor:
        """The actor after ``resolution`` (unchanged if it does not list it)."""
        if resolution is None or actor.id not in resolution.states:
            return actor
        return self.with_state(actor, resolution.states[actor.id])

    @staticmethod
    def slots(actor_or_state: Actor | Mapping[str, Any]) -> set[int]:
        state = actor_or_state.state if isinstance(actor_or_state, Actor) else actor_or_state
        return {n for n, name in SLOT_KEYS.items() if state["slots"][name]}

    # -- resolving -----------------------------------------------------------

    def context(
        self,
        action: str,
        params: Mapping[str, Any] | None = None,
        *,
        actor: Actor | None = None,
        targets: Sequence[Actor] = (),
        settings: Mapping[str, Any] | None = None,
        by_gm: bool = True,
    ) -> ActionContext:
        spec = self.ruleset.actions[action]
        valid = validate(spec.params, dict(params or {}))
        table_settings = validate(self.ruleset.settings_schema, dict(settings or {}))
        return ActionContext(action, valid, actor, tuple(targets), table_settings, "r1", by_gm)

    def run(
        self,
        action: str,
        params: Mapping[str, Any] | None = None,
        *,
        dice: Sequence[int] | DiceSource = (),
        **where: Any,
    ) -> Resolution:
        """Resolve, read as the GM reads it (:func:`as_gm`); scripted dice must all be
        used (``finish`` checks)."""
        source = ScriptedDice(dice) if not isinstance(dice, DiceSource) else dice
        result = self.resolve(self.context(action, params, **where), source)
        source.finish()
        return result

    def resolve(self, context: ActionContext, dice: DiceSource) -> Resolution:
        """``ruleset.resolve``, read as the GM reads it (:func:`as_gm`)."""
        return as_gm(self.ruleset.resolve(context, dice))

    def turn(self, actor: Actor, participants: Sequence[Actor] = ()) -> TurnContext:
        return TurnContext(1, actor, tuple(participants) or (actor,), {})


@pytest.fixture(scope="session")
def kit() -> Kit:
    return Kit()
