"""Fixtures for the techlevel tests: a small driver around the ruleset.

The driver returns a resolution as the GM's view renders it: narration, steps and
dice labels as English text, every private value in place (:func:`gm_resolution`).
``Driver.last`` keeps the resolution as the ruleset returned it, texts and
:class:`~rollbridge.text.Private` marks included.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from rollbridge import ActionContext, Actor, Resolution
from rollbridge.dice import DiceGroup, DiceSource, ScriptedDice
from rollbridge.plugins.techlevel import TechLevel
from rollbridge.schema import validate
from rollbridge.text import extract, view_of


def gm_resolution(result: Resolution) -> Resolution:
    """``result`` as the GM sees it: texts rendered in English, private values shown."""
    data, texts, private = extract(result.to_dict(), where="resolution")
    shown = view_of(data, texts, private)
    return Resolution(
        narration=shown["narration"],
        outcome=shown["outcome"],
        dice=[DiceGroup.from_dict(group) for group in shown["dice"]],
        states=shown["states"],
        steps=shown["steps"],
        params=shown["params"],
    )


class Driver:
    """Builds actors from sheets and resolves actions the way the engine does:
    params and settings validated with defaults, supplied dice all used."""

    def __init__(self) -> None:
        self.rs = TechLevel()
        self.last: Resolution | None = None

    def sheet(self, **fields: Any) -> dict[str, Any]:
        fields.setdefault("body_tl", 1)
        return self.rs.validate_sheet(fields)

    def actor(
        self, actor_id: str = "t", name: str | None = None, state: Any = None, **fields: Any
    ) -> Actor:
        sheet = self.sheet(**fields)
        return Actor(
            actor_id,
            name or actor_id.title(),
            sheet,
            self.rs.initial_state(sheet) if state is None else state,
        )

    def settings(self, **values: Any) -> dict[str, Any]:
        return validate(self.rs.settings_schema, values, where="settings")

    def run(
        self,
        action: str,
        params: Mapping[str, Any] | None = None,
        *,
        actor: Actor | None = None,
        targets: Sequence[Actor] = (),
        dice: Sequence[int] | DiceSource = (),
        settings: Mapping[str, Any] | None = None,
    ) -> Resolution:
        spec = self.rs.actions[action]
        checked = validate(spec.params, dict(params or {}))
        source = dice if isinstance(dice, DiceSource) else ScriptedDice(list(dice))
        context = ActionContext(
            action, checked, actor, tuple(targets), self.settings(**(settings or {}))
        )
        frozen = copy.deepcopy((actor, tuple(targets)))
        result = self.rs.resolve(context, source)
        source.finish()
        assert (actor, tuple(targets)) == frozen, "resolve mutated its input actors"
        self.last = result
        return gm_resolution(result)

    def hit(
        self, target: Actor, dice: str = "1d6", tl: int = 1, rolled: Sequence[int] = (), **params
    ) -> Resolution:
        return self.run(
            "hit", {"dice": dice, "tl": tl, **params}, targets=[target], dice=list(rolled)
        )

    @staticmethod
    def after(result: Resolution, actor: Actor) -> Actor:
        """``actor`` with the state ``result`` gave it."""
        return Actor(actor.id, actor.name, actor.sheet, result.states[actor.id])


def armour(name: str = "Armour", boxes: int = 10, tl: int = 1, **more: Any) -> dict[str, Any]:
    return {"name": name, "kind": "armour", "boxes": boxes, "tl": tl, **more}


def shield(name: str = "Shield", boxes: int = 10, tl: int = 1, **more: Any) -> dict[str, Any]:
    return {"name": name, "kind": "shield", "boxes": boxes, "tl": tl, **more}


@pytest.fixture(scope="session")
def tl() -> Driver:
    return Driver()


@pytest.fixture(scope="session")
def make_armour():
    return armour


@pytest.fixture(scope="session")
def make_shield():
    return shield
