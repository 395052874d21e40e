"""Secret rolls and hidden NPC details never reach a player's or observer's
connection, checked on the raw frames (issue 3, item 12); the approval flow."""

from __future__ import annotations

import json

import msgpack
from websockets.asyncio.client import connect

from rollbridge.dice.sources import SeededDice

from .conftest import Peer

#: A seed whose dice make Tukan's attack hit the guard (every request rolls them).
SEED_THAT_HITS = 17


def wire_text(peer) -> str:
    """Everything a connection received, as text."""
    return "\n".join(
        json.dumps(msgpack.unpackb(f)) if isinstance(f, bytes) else f for f in peer.frames
    )


async def test_a_secret_roll_reaches_only_the_gm(tables):
    gm, _ = await tables.join("sr2", "gm")
    player, _ = await tables.join("sr2", "player")
    watcher, _ = await tables.join("sr2", "observer", binary=True)
    secret = await gm.request({"type": "roll", "formula": "17d6+48611", "label": "ambush check",
                               "secret": True})  # fmt: skip
    visible = await gm.request({"type": "roll", "formula": "1d6"})
    for peer in (player, watcher):
        await peer.wait_for(lambda p: len(p.events) == 2)
        assert peer.events[0] == {"type": "event", "table": "sr2", "kind": "hidden",
                                  "epoch": 1, "seq": secret["seq"]}  # fmt: skip
        assert peer.events[1]["seq"] == visible["seq"]
        text = wire_text(peer)
        assert "17d6" not in text and "48611" not in text and "ambush" not in text
    await gm.wait_for(lambda p: len(p.events) == 2)
    assert gm.events[0]["data"]["formula"] == "17d6 + 48611"


async def test_a_players_blind_roll_is_not_shown_to_the_player(tables):
    player, _ = await tables.join("sr2", "player")
    gm, _ = await tables.join("sr2", "gm")
    reply = await player.request({"type": "roll", "formula": "9d6+55", "secret": True})
    assert reply["status"] == "secret" and "event" not in reply
    await gm.wait_for(lambda p: len(p.events) == 1)
    assert gm.events[0]["data"]["formula"] == "9d6 + 55"
    assert "9d6" not in wire_text(player)


async def test_npc_details_never_reach_players_or_observers(tables):
    gm, _ = await tables.join("sr2", "gm")
    player, welcome = await tables.join("sr2", "player")
    watcher, _ = await tables.join("sr2", "observer")
    guard = next(a for a in welcome["table"]["actors"] if a["id"] == "guard-a")
    assert guard["limited"] is True and guard["sheet"] is None and guard["state"] is None
    await gm.request({"type": "adjust", "actor": "guard-a", "track": "physical", "delta": 4})
    for peer in (player, watcher):
        await peer.wait_for(lambda p: len(p.events) == 1)
        assert peer.events[0]["data"] == {"actor": "guard-a"}  # not the track and delta
        seen = peer.events[0]["actors"][0]
        assert seen["limited"] is True and seen["state"] is None and seen["sheet"] is None
        assert seen["common"]["status"] == "impaired"
        assert all(t["key"] != "physical" or t["value"] != 4 for t in seen["common"]["tracks"])
        text = wire_text(peer)
        # Guard A's sheet is armour 4/2 (Tukan's, a player character, is 3/1)
        assert '"ballistic":4' not in text.replace(" ", "")
        assert '"impact":2' not in text.replace(" ", "")
        assert '"physical":4' not in text.replace(" ", "")
    await gm.wait_for(lambda p: len(p.events) == 1)
    assert gm.events[0]["actors"][0]["state"]["physical"] == 4


async def test_the_approval_flow(tables):
    gm, _ = await tables.join("tally", "gm")
    player, _ = await tables.join("tally", "player")
    await gm.request({"type": "settings", "settings": {"approval": True}})
    ask = {"type": "resolve", "id": "ask-1", "action": "hit", "actor": "ana",
           "targets": ["guard"]}  # fmt: skip
    pending = await player.request(ask)
    assert pending["status"] == "pending"
    await gm.wait_for(lambda p: any(e["kind"] == "approval.requested" for e in p.events))
    request = next(e for e in gm.events if e["kind"] == "approval.requested")
    assert request["data"]["pending"] == pending["pending"]
    state = await gm.request({"type": "state"})
    assert next(a for a in state["table"]["actors"] if a["id"] == "guard")["state"]["damage"] == 0
    assert [p["pending"] for p in state["table"]["pending"]] == [pending["pending"]]
    approved = await gm.request({"type": "approve", "request": pending["pending"], "dice": [6]})
    assert approved["status"] == "done"
    await player.wait_for(lambda p: any(e["kind"] == "resolution" for e in p.events))
    applied = next(e for e in player.events if e["kind"] == "resolution")
    assert applied["data"]["approved"] == pending["pending"]
    retry = await player.request(ask)
    assert retry["status"] == "done" and retry["seq"] == approved["seq"]
    second = await player.request({**ask, "id": "ask-2"})
    rejected = await gm.request({"type": "reject", "request": second["pending"],
                                 "reason": "not now"})  # fmt: skip
    assert rejected["status"] == "done"
    assert (await player.request({**ask, "id": "ask-2"}))["status"] == "rejected"
    state = await gm.request({"type": "state"})
    assert next(a for a in state["table"]["actors"] if a["id"] == "guard")["state"]["damage"] == 6


async def test_a_players_gm_roll_is_shown_to_that_player_as_players_see_it(make_tables):
    """Foundry's GM roll (issue 15, item 3): ``secret`` with ``requester_sees`` stays
    GM-only for every connection, but the requester's reply carries the players' view
    (an NPC's numbers hidden as ever), even with brief results; a repeat answers alike.
    Seeded dice: the attack hits, so the guard is among the actors it changed."""
    tables = await make_tables(dice=lambda: SeededDice(SEED_THAT_HITS))
    gm, _ = await tables.join("sr2", "gm")
    other, _ = await tables.join("sr2", "player")
    player = Peer(await connect(tables.server.url), binary=True)
    tables.peers.append(player)
    await player.request({"type": "hello", "table": "sr2", "token": tables.tokens["sr2"]["player"],
                          "results": "brief"})  # fmt: skip
    attack = {"type": "resolve", "id": "gmroll-1", "action": "attack", "actor": "tukan",
              "targets": ["guard-a"], "secret": True, "requester_sees": True,
              "params": {"weapon": "Hackler", "range": "short"}}  # fmt: skip
    reply = await player.request(attack)
    assert reply["status"] == "secret"
    seen = reply["event"]
    assert seen["kind"] == "resolution" and seen["seq"] == reply["seq"]
    assert seen["data"]["narration"] and "Tukan" in seen["data"]["narration"]
    guard = next(a for a in seen["actors"] if a["id"] == "guard-a")
    assert guard["limited"] is True and guard["sheet"] is None  # no NPC numbers
    await gm.wait_for(lambda p: any(e["seq"] == reply["seq"] for e in p.events))
    full = next(e for e in gm.events if e["seq"] == reply["seq"])
    assert full["gm_only"] is True and full["data"] != seen["data"]  # the GM's own view
    for peer in (other, player):  # the event frame itself stays a placeholder
        await peer.wait_for(lambda p: any(e["seq"] == reply["seq"] for e in p.events))
        frame = next(e for e in peer.events if e["seq"] == reply["seq"])
        assert frame["kind"] == "hidden"
    assert (await player.request(attack))["event"] == seen  # a repeat: the same view
    blind = await player.request({**attack, "id": "blind-1", "requester_sees": False})
    assert blind["status"] == "secret" and "event" not in blind
