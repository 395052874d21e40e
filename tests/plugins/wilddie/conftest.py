"""Fixtures for the wilddie tests: a ruleset, actor builders, a resolver that
validates parameters and fills settings defaults as the table engine does, and
returns the resolution as the GM reads it (texts rendered, private values shown)."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from rollbridge import ActionContext, Actor, Resolution
from rollbridge.dice import DiceGroup, DiceSource, ScriptedDice
from rollbridge.plugins.wilddie import WildDieRuleset
from rollbridge.schema import validate
from rollbridge.text import extract, view_of

ATTRS = ("strength", "vigor", "coordination", "reaction", "intuition", "character")


class WildDieKit:
    """Builds actors and resolves actions against one WildDieRuleset."""

    def __init__(self) -> None:
        self.ruleset = WildDieRuleset()

    def actor(
        self,
        actor_id: str = "ana",
        name: str | None = None,
        *,
        kind: str = "pc",
        skills: Mapping[str, str] | None = None,
        armor: int | None = None,
        chips: int | None = None,
        state: Mapping[str, Any] | None = None,
        **attributes: str,
    ) -> Actor:
        sheet: dict[str, Any] = {
            "kind": kind,
            "attributes": {a: attributes.get(a, "d6") for a in ATTRS},
            "skills": dict(skills or {}),
        }
        if armor is not None:
            sheet["armor"] = armor
        if chips is not None:
            sheet["chips"] = chips
        sheet = self.ruleset.validate_sheet(sheet)
        fresh = self.ruleset.initial_state(sheet)
        if state:
            fresh.update(copy.deepcopy(dict(state)))
        return Actor(actor_id, name or actor_id.capitalize(), sheet, fresh)

    def settings(self, **values: Any) -> dict[str, Any]:
        return validate(self.ruleset.settings_schema, values, where="settings")

    def resolve(
        self,
        action: str,
        params: Mapping[str, Any] | None = None,
        *,
        actor: Actor | None = None,
        targets: Sequence[Actor] = (),
        dice: DiceSource | Sequence[int] = (),
        settings: Mapping[str, Any] | None = None,
        request_id: str | None = None,
        by_gm: bool = True,
    ) -> Resolution:
        spec = self.ruleset.actions[action]
        checked = validate(spec.params, dict(params or {}))
        source = dice if isinstance(dice, DiceSource) else ScriptedDice(list(dice))
        context = ActionContext(
            action=action,
            params=checked,
            actor=actor,
            targets=tuple(targets),
            settings=self.settings(**dict(settings or {})),
            request_id=request_id,
            by_gm=by_gm,
        )
        resolution = self.ruleset.resolve(context, source)
        source.finish()  # every supplied die was used: no silent extra or missing rolls
        return self.read(resolution)

    @staticmethod
    def read(resolution: Resolution) -> Resolution:
        """``resolution`` as the GM reads it: its narration, steps, dice labels and
        notes (and any text in the outcome) rendered in English, every private value
        shown as itself. Checks on the way that it is plain data made of declared
        messages (as the engine does) and that every state round-trips through JSON."""
        for state in resolution.states.values():
            assert json.loads(json.dumps(state)) == state
        data, texts, _ = extract(
            {
                "narration": resolution.narration,
                "outcome": resolution.outcome,
                "dice": [group.to_dict() for group in resolution.dice],
                "steps": list(resolution.steps),
                "params": resolution.params,
            }
        )
        shown = view_of(data, texts, [], hides=None)
        json.dumps(shown)
        return Resolution(
            narration=shown["narration"],
            outcome=shown["outcome"],
            dice=[DiceGroup.from_dict(group) for group in shown["dice"]],
            states=resolution.states,
            steps=shown["steps"],
            params=shown["params"],
        )

    @staticmethod
    def after(actor: Actor, resolution: Resolution) -> Actor:
        """``actor`` with the new state the resolution gave it (or unchanged)."""
        state = resolution.states.get(actor.id, actor.state)
        return Actor(actor.id, actor.name, actor.sheet, state)


@pytest.fixture
def wd() -> WildDieKit:
    return WildDieKit()
