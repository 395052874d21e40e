"""Fixtures for the sr2 tests: a kit that builds actors and resolves actions
the way the table engine does (params and settings validated, defaults
filled), with read-only actor states so any mutation of the input fails.

A resolution comes back as the GM sees it (:class:`Resolved`: texts rendered,
private values shown, plain data), with the ruleset's own
:class:`~rollbridge.contract.Resolution` beside it and the view of players who
see every actor as an NPC."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import pytest

from rollbridge.contract import ActionContext, Actor, CommonState, Resolution, Track
from rollbridge.dice import DiceGroup, DiceSource, ScriptedDice, SeededDice
from rollbridge.plugins.sr2 import SR2Ruleset
from rollbridge.schema import validate
from rollbridge.text import extract, render, view_of


def english(common: CommonState) -> CommonState:
    """A common state with its texts (track labels, conditions, modifier note) rendered
    in English, as the tests quote them; the ruleset's own holds texts (rendered in
    each client's language when a view is built)."""
    return CommonState(
        status=common.status,
        tracks=tuple(Track(t.key, render(t.label), t.value, t.max) for t in common.tracks),
        conditions=tuple(render(c) for c in common.conditions),
        modifier=common.modifier,
        modifier_note=render(common.modifier_note),
    )


class Resolved:
    """A resolution as the GM sees it: ``narration`` and ``steps`` rendered, ``outcome``,
    ``params`` and ``dice`` with every private value shown, as the engine stores and
    sends them; ``resolution`` is what the ruleset returned."""

    def __init__(self, resolution: Resolution) -> None:
        self.resolution = resolution
        self._stored = extract(
            {
                "params": resolution.params,
                "narration": resolution.narration,
                "outcome": resolution.outcome,
                "dice": [group.to_dict() for group in resolution.dice],
                "steps": list(resolution.steps),
            },
            where="resolution",
        )
        gm = self.view()
        self.narration: str = gm["narration"]
        self.outcome: dict[str, Any] = gm["outcome"]
        self.steps: list[str] = gm["steps"]
        self.params: dict[str, Any] | None = gm["params"]
        self.dice = [DiceGroup.from_dict(group) for group in gm["dice"]]
        self.states = resolution.states

    def view(self, hidden: Sequence[str] | None = None) -> dict[str, Any]:
        """The resolution as an audience sees it: the GM (``hidden`` None), or players
        for whom the actors ``hidden`` are NPCs whose details no setting reveals."""
        data, texts, private = self._stored
        if hidden is None:
            return view_of(data, texts, private)
        return view_of(data, texts, private, hides=lambda of, aspect: of in hidden)

    def to_dict(self) -> dict[str, Any]:
        """The GM's view and the new states (for comparing resolutions)."""
        return {**self.view(), "states": self.states}


class Kit:
    """Builds sr2 actors and resolves actions on them."""

    #: A common state with its texts in English (see :func:`english`).
    english = staticmethod(english)

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
    ) -> Resolved:
        """Resolve with supplied dice (every one must be used), a given source,
        or SeededDice(0); the resolution as the GM sees it."""
        context = self.context(action, params, actor, targets, settings)
        if dice is None:
            source: DiceSource = SeededDice(0)
        elif isinstance(dice, DiceSource):
            source = dice
        else:
            source = ScriptedDice(list(dice))
        result = self.rs.resolve(context, source)
        source.finish()
        return Resolved(result)

    @staticmethod
    def after(actor: Actor, result: Resolved | Resolution) -> Actor:
        """The actor with its state after ``result`` (unchanged if not listed)."""
        state = result.states.get(actor.id, actor.state)
        return Actor(actor.id, actor.name, actor.sheet, MappingProxyType(dict(state)))

    def common(self, actor: Actor, result: Resolved | Resolution | None = None) -> CommonState:
        """The actor's common state (after ``result``), its texts in English."""
        return english(self.rs.common_state(self.after(actor, result) if result else actor))


@pytest.fixture
def kit() -> Kit:
    return Kit()


@pytest.fixture
def sr2() -> SR2Ruleset:
    return SR2Ruleset()
