"""A refusal quoting a stored private form (``{"private", "of", "aspect"}``) a ruleset
made or kept itself — in its ``details`` and in a data class given as its message —
reached players with the NPC's number; over a real WebSocket it reaches them as a
``Private`` does: ``"<Private>"`` in the details, hidden in the repr
(tests/engine/test_stored_private_forms.py has the cases)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rollbridge.exceptions import RuleViolation

RESOLVE = {"type": "resolve", "action": "hit", "actor": "ana", "targets": ["guard"]}


@dataclass
class Blow:
    """What the ruleset quotes: the weapon and the target's hit points as kept."""

    weapon: str
    hp: Any


async def test_a_stored_form_reaches_no_player(tables, tally, monkeypatch):
    def resolve(self, context, dice):
        target = context.targets[0]
        hp = {"private": target.sheet["hp"], "of": target.id, "aspect": "sheet"}
        raise RuleViolation(Blow("bow", hp), code="too_tough", details={"hp": hp})

    monkeypatch.setattr(type(tally), "resolve", resolve)
    player, _ = await tables.join("tally", "player")
    refused = await player.request(RESOLVE)
    assert refused["code"] == "too_tough" and refused["details"] == {"hp": "<Private>"}
    # everything but the request's own id (made by the test client: it may hold "100")
    assert "100" not in str({key: value for key, value in refused.items() if key != "id"})
