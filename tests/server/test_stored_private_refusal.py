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
    assert refused["code"] == "too_tough"
    assert refused["details"] == {"hp": "<Private>", "origin": "ruleset"}  # the ruleset's
    # everything but the request's own id (made by the test client: it may hold "100")
    assert "100" not in str({key: value for key, value in refused.items() if key != "id"})


async def test_a_stored_form_in_an_outcome_is_left_out_as_its_private_is(
    tables, tally, monkeypatch
):
    """Review plugins-22: in an outcome a stored form the ruleset built (from data it
    kept: a follow-up's parameters) was data like any other, sent to players as it was —
    the NPC's number with it; the guide called it the author's duty. The server reads
    it as the ``Private`` it stands for now: players' outcome leaves it out, the GM's
    holds the value, as for a ``Private`` (the narration read it as private already)."""
    from rollbridge import Resolution
    from rollbridge.text import Messages, Private

    said = Messages("test_stored_private_refusal")("armor", "armour {armor}")

    def resolve(self, context, dice):
        target = context.targets[0]
        kept = {"private": target.sheet["hp"], "of": target.id, "aspect": "sheet"}
        private = Private(target.sheet["hp"], of=target.id, aspect="sheet")
        instead = {**kept, "instead": "?"}
        not_one = {"private": 5, "of": target.id, "why": "a map of the ruleset's own"}
        return Resolution(
            said(armor=kept),
            outcome={"kept": kept, "private": private, "instead": [instead], "own": not_one},
        )

    monkeypatch.setattr(type(tally), "resolve", resolve)
    gm, _ = await tables.join("tally", "gm")
    shown = await gm.request({"type": "settings", "settings": {"ruleset": {"show_damage": True}}})
    assert shown["status"] == "done", shown
    player, _ = await tables.join("tally", "player")
    data = (await player.request(RESOLVE))["event"]["data"]
    assert data["narration"] == "armour (hidden)"
    own = {"private": 5, "of": "guard", "why": "a map of the ruleset's own"}
    assert data["outcome"] == {"instead": ["?"], "own": own}, data["outcome"]

    def resolutions(peer) -> list[dict]:
        return [e for e in peer.events if e.get("kind") == "resolution"]

    await gm.wait_for(resolutions)
    gm_data = resolutions(gm)[0]["data"]
    assert gm_data["outcome"] == {"kept": 100, "private": 100, "instead": [100], "own": own}
