"""A refusal's message keeps a ruleset's private arguments from those who may not
see them (audit finding 1): a ruleset that refuses with ``RuleViolation(TEXT(capacity=
Private(5, of=npc)))`` sent the hidden value to every player ("stress 0 of 5"). Now the
message is rendered for the asker's audience, as views are: players and observers get
the hidden argument left out, the GM gets it in full; a player's own actor's details
stay theirs."""

from __future__ import annotations

import pytest

from rollbridge.exceptions import RuleViolation
from rollbridge.text import Messages, Private

say = Messages("refusal_privacy_tests")
FULL = say("full", "{name} has taken {boxes} of {capacity} boxes")


@pytest.fixture
def refusing(tables, tally, monkeypatch):

    def refuse(self, context, dice):
        target = context.targets[0]
        raise RuleViolation(
            FULL(name=target.name,
                 boxes=Private(target.state["damage"], of=target.id, aspect="stress"),
                 capacity=Private(target.sheet["hp"], of=target.id, aspect="stress")),
            code="taken_out",
        )  # fmt: skip

    monkeypatch.setattr(type(tally), "resolve", refuse)
    return tables


async def test_a_refusal_hides_an_npcs_private_arguments_from_players(refusing):
    gm, _ = await refusing.join("tally", "gm")
    player, _ = await refusing.join("tally", "player")
    refused = await player.request(
        {"type": "resolve", "action": "hit", "actor": "ana", "targets": ["guard"]}
    )
    assert refused["type"] == "error" and refused["code"] == "taken_out", refused
    assert refused["message"] == "Guard has taken (hidden) of (hidden) boxes"
    # everything but the request's own id (made by the test client: it may hold "100")
    assert "100" not in str({key: value for key, value in refused.items() if key != "id"})
    full = await gm.request({"type": "resolve", "action": "hit", "targets": ["guard"]})
    assert full["code"] == "taken_out"
    assert full["message"] == "Guard has taken 0 of 100 boxes"


async def test_a_players_own_actors_details_stay_in_its_refusal(refusing):
    player, _ = await refusing.join("tally", "player")
    refused = await player.request(
        {"type": "resolve", "action": "hit", "actor": "ana", "targets": ["ana"]}
    )
    assert refused["message"] == "Ana has taken 0 of 100 boxes"


async def test_a_refusal_in_another_language_hides_them_too(refusing):
    player, _ = await refusing.join("tally", "player", locale="de")
    refused = await player.request(
        {"type": "resolve", "action": "hit", "actor": "ana", "targets": ["guard"]}
    )
    assert refused["code"] == "taken_out"
    assert "100" not in refused["message"], refused


async def test_what_the_tables_settings_reveal_a_refusal_shows_too(refusing, tally, monkeypatch):
    """A ruleset's ``reveals`` reads the ruleset's own settings, as for events: with
    the GM's "show damage" on, a refusal shows the player what an event would."""

    def reveals(self, aspect, settings):
        return bool(settings.get("show_damage"))

    monkeypatch.setattr(type(tally), "reveals", reveals)
    gm, _ = await refusing.join("tally", "gm")
    player, _ = await refusing.join("tally", "player")
    done = await gm.request({"type": "settings", "settings": {"ruleset": {"show_damage": True}}})
    assert done["type"] == "result", done
    refused = await player.request(
        {"type": "resolve", "action": "hit", "actor": "ana", "targets": ["guard"]}
    )
    assert refused["message"] == "Guard has taken 0 of 100 boxes", refused
