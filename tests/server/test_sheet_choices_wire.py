"""Choices from the sheet on the wire (``choicesFrom``, docs/plugins.md): a player's
client gets the annotation and the sheet of the actor it plays, from which it offers
the choices itself, and never an NPC's sheet values through them — a real server, real
WebSockets, JSON and msgpack alike.

The GM gives the NPC Guard A a weapon and adds another armed NPC; the player's frames
(welcome, events) name neither weapon, the NPCs reach the player limited, without a
sheet, so the choices a client reads from them are none, while the GM's client reads
the NPC's weapons from the GM's own view.
"""

from __future__ import annotations

import msgpack
import pytest

from rollbridge.contract import sheet_choices

SECRET = "Secret Predator"
HIDDEN = "Hidden Ingram"
ARMED = {
    "body": 4,
    "combat_pool": 3,
    "armor": {"ballistic": 4, "impact": 2},
    "weapons": [{"name": SECRET, "code": "9M", "skill": 5}],
}


def _text(frame: bytes | str) -> str:
    """A frame as text: JSON as it came, msgpack decoded and shown as Python data."""
    return repr(msgpack.unpackb(frame)) if isinstance(frame, bytes) else frame


def _views(message: dict, actor_id: str) -> list[dict]:
    """The views of ``actor_id`` a welcome or an event carries."""
    holders = [message, message.get("table"), message.get("event")]
    return [
        view
        for holder in holders
        if isinstance(holder, dict) and isinstance(holder.get("actors"), list)
        for view in holder["actors"]
        if isinstance(view, dict) and view.get("id") == actor_id
    ]


@pytest.mark.parametrize("binary", [False, True], ids=["json", "msgpack"])
async def test_a_player_never_receives_an_npcs_sheet_values_through_choices(tables, binary):
    gm, _ = await tables.join("sr2", "gm")
    player, welcome = await tables.join("sr2", "player", binary=binary)

    # the player's welcome: the annotation, and Tukan's own weapons to offer
    attack = welcome["ruleset"]["actions"]["attack"]
    weapon = attack["params"]["properties"]["weapon"]
    assert weapon["choicesFrom"] == {"sheet": "weapons", "value": "name", "only": True}
    (tukan,) = _views(welcome, "tukan")
    assert sheet_choices(weapon, tukan["sheet"], tukan["state"]) == ["Hackler", "Stun baton"]

    # the GM arms Guard A and adds another armed NPC while the player is connected
    update = {"type": "actor.update", "actor": "guard-a", "sheet": ARMED}
    reply = await gm.request(update)
    assert reply["type"] == "result", reply
    ganger = {"id": "ganger", "name": "Ganger", "controllers": [], "sheet": {
        **ARMED, "weapons": [{"name": HIDDEN, "code": "6M", "skill": 4}]}}  # fmt: skip
    assert (await gm.request({"type": "actor.create", "actor": ganger}))["type"] == "result"
    await player.wait_for(lambda peer: len(peer.events) >= 2)
    # a player joining now gets the table as it is
    late, late_welcome = await tables.join("sr2", "player", binary=binary)

    # the GM's own view holds the weapons (its client offers them when acting for the NPC)
    _, gm_welcome = await tables.join("sr2", "gm")
    (guard,) = _views(gm_welcome, "guard-a")
    assert sheet_choices(weapon, guard["sheet"], guard["state"]) == [SECRET]

    for peer in (player, late):
        assert peer.frames, "the player received nothing"
        for frame in peer.frames:
            text = _text(frame)
            assert SECRET not in text and HIDDEN not in text, text[:400]
    messages = [*player.events, welcome, late_welcome]
    for npc in ("guard-a", "ganger"):
        views = [view for message in messages for view in _views(message, npc)]
        assert views, npc
        for view in views:
            assert view["limited"] is True and view["sheet"] is None, view
            assert sheet_choices(weapon, view["sheet"], view["state"]) == []
