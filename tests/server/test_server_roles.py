"""Roles and security over real sockets (issue 3, items 3, 4 and 12)."""

from __future__ import annotations

import logging

from rollbridge.tokens import hash_token


async def test_welcome_carries_role_ruleset_actors_epoch_seq(tables):
    _gm, welcome = await tables.join("sr2", "gm")
    assert welcome["type"] == "welcome" and welcome["protocol"] == 1
    assert welcome["role"] == "gm" and welcome["ruleset"]["id"] == "sr2"
    assert welcome["epoch"] == 1 and welcome["seq"] == 2
    actors = {a["id"]: a for a in welcome["table"]["actors"]}
    assert set(actors) == {"tukan", "guard-a"}
    assert actors["guard-a"]["common"]["status"] == "ok"
    assert "attack" in welcome["ruleset"]["actions"]


async def test_gm_player_and_observer_boundaries(tables):
    gm, _ = await tables.join("sr2", "gm")
    player, _ = await tables.join("sr2", "player")
    watcher, _ = await tables.join("sr2", "observer")
    attack = {"type": "resolve", "action": "attack", "actor": "tukan", "targets": ["guard-a"],
              "params": {"weapon": "Hackler", "range": "short"}}  # fmt: skip
    assert (await player.request(attack))["status"] == "done"
    as_npc = {**attack, "actor": "guard-a", "targets": ["tukan"], "params": {"code": "6L",
              "skill": 3, "range": "short"}}  # fmt: skip
    forbidden = [
        (player, as_npc),
        (player, {"type": "adjust", "actor": "tukan", "track": "physical", "delta": -1}),
        (player, {"type": "undo"}),
        (player, {"type": "actor.create", "actor": {"name": "X", "sheet": {"body": 3}}}),
        (player, {"type": "settings", "settings": {"approval": True}}),
        (watcher, {"type": "roll", "formula": "1d6"}),
        (watcher, attack),
    ]
    seq = (await gm.request({"type": "state"}))["table"]["seq"]
    for peer, message in forbidden:
        reply = await peer.request(message)
        assert reply["type"] == "error" and reply["code"] == "forbidden", (message, reply)
    assert (await gm.request({"type": "state"}))["table"]["seq"] == seq
    assert (await watcher.request({"type": "state"}))["table"]["seq"] == seq
    assert (await gm.request({"type": "undo"}))["status"] == "done"


async def test_a_token_of_one_table_never_opens_another(tables):
    peer, reply = await tables.join("tally", "gm", token=tables.tokens["sr2"]["gm"])
    assert reply["type"] == "error" and reply["code"] == "unauthorized"
    assert await peer.wait_closed() == 1008


async def test_a_wrong_token(tables):
    peer, reply = await tables.join("sr2", "gm", token="rbt_not-a-real-token")
    assert reply["code"] == "unauthorized"
    assert await peer.wait_closed() == 1008


async def test_requests_before_hello_are_refused(tables):
    peer, _ = await tables.join("sr2", "gm")
    fresh = type(peer)(await __import__("websockets").asyncio.client.connect(tables.server.url))
    tables.peers.append(fresh)
    reply = await fresh.request({"type": "roll", "formula": "1d6"})
    assert reply["code"] == "unauthorized"
    # protocol.md: every request before hello is refused, ping too (issue 16, item 7)
    refused = await fresh.request({"type": "ping"})
    assert refused["type"] == "error" and refused["code"] == "unauthorized"


async def test_tokens_are_stored_hashed_and_never_logged(tables, caplog):
    caplog.set_level(logging.DEBUG)
    token = tables.tokens["sr2"]["player"]
    await tables.join("sr2", "player")
    raw = tables.path.read_bytes() + b"".join(
        p.read_bytes() for p in tables.path.parent.glob("*.db-wal")
    )
    assert token.encode() not in raw
    assert hash_token(token).encode() in raw or bytes.fromhex(hash_token(token)) in raw
    assert token not in caplog.text
