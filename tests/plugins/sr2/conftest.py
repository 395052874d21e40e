"""Fixtures for the sr2 tests: a kit that builds actors and resolves actions
the way the table engine does (params and settings validated, defaults
filled), with read-only actor states so any mutation of the input fails."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import pytest

from rollbridge.contract import ActionContext, Actor, Resolution
from rollbridge.dice import DiceSource, ScriptedDice, SeededDice
from rollbridge.plugins.sr2 import SR2Ruleset
from rollbridge.schema import validate


class Kit:
    """Builds sr2 actors and resolves actions on them."""

    def __init__(self) -> None:
        self.rs = SR2Ruleset()

    def actor(
        self,
        actor_id: str,
        sheet: Mapping[str, Any] | None = None,
        *,
        name: str | None = None,
        **state: Any,
    ) -> Actor:
        """An actor with a validated sheet (default Body 4) and a fresh state
        overridden by ``state``; the state is a read-only mapping."""
        valid = self.rs.validate_sheet(dict(sheet or {"body": 4}))
        fresh = self.rs.initial_state(valid)
        unknown = set(state) - set(fresh)
        assert not unknown, f"unknown state keys {unknown}"
        fresh.update(state)
        return Actor(actor_id, name or actor_id.title(), valid, MappingProxyType(fresh))

    def settings(self, **values: Any) -> dict[str, Any]:
        return validate(self.rs.settings_schema, values, where="settings")

    def context(
        self,
        action: str,
        params: Mapping[str, Any],
        actor: Actor | None = None,
        targets: Sequence[Actor] = (),
        settings: Mapping[str, Any] | None = None,
    ) -> ActionContext:
        valid = validate(self.rs.actions[action].params, dict(params))
        return ActionContext(
            action, valid, actor, tuple(targets), self.settings(**(settings or {}))
        )

    def resolve(
        self,
        action: str,
        params: Mapping[str, Any],
        actor: Actor | None = None,
        targets: Sequence[Actor] = (),
        *,
        dice: Sequence[int] | DiceSource | None = None,
        settings: Mapping[str, Any] | None = None,
    ) -> Resolution:
        """Resolve with supplied dice (every one must be used), a given source,
        or SeededDice(0)."""
        context = self.context(action, params, actor, targets, settings)
        if dice is None:
            source: DiceSource = SeededDice(0)
        elif isinstance(dice, DiceSource):
            source = dice
        else:
            source = ScriptedDice(list(dice))
        result = self.rs.resolve(context, source)
        source.finish()
        return result

    @staticmethod
    def after(actor: Actor, result: Resolution) -> Actor:
        """The actor with its state after ``result`` (unchanged if not listed)."""
        state = result.states.get(actor.id, actor.state)
        return Actor(actor.id, actor.name, actor.sheet, MappingProxyType(dict(state)))

    def common(self, actor: Actor, result: Resolution | None = None) -> Any:
        return self.rs.common_state(self.after(actor, result) if result else actor)


@pytest.fixture
def kit() -> Kit:
    return Kit()


@pytest.fixture
def sr2() -> SR2Ruleset:
    return SR2Ruleset()
