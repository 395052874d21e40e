"""Verifiable dice over a real socket (issue 18, items 4 and 6): the events a player
received verify, the commitment arrives before the first die, and the seed is in no
frame and no log line before its reveal."""

from __future__ import annotations

import asyncio
import json

from rollbridge.dice.verify import verify_events

from .test_server_visibility import wire_text


async def test_a_players_received_events_verify_after_the_reveal(tables, caplog):
    caplog.set_level("DEBUG")
    gm, _ = await tables.join("sr2", "gm")
    player, _ = await tables.join("sr2", "player", binary=True)
    await gm.request({"type": "settings", "settings": {"verifiable": True}})
    rolls = [await player.request({"type": "roll", "formula": "6d6x>=5 + 1d20"}) for _ in range(3)]
    await gm.request({"type": "roll", "formula": "2d6", "secret": True})
    state = (await gm.request({"type": "state"}))["table"]["dice"]
    seed = tables.server.dice_key.seed("sr2", 1, 1, state["nonce"]).hex()
    assert seed not in wire_text(player) and seed not in wire_text(gm)
    assert seed not in caplog.text
    await gm.request({"type": "dice.reveal"})
    await player.wait_for(lambda p: any(e["kind"] == "dice.committed" and
                                        e["data"]["segment"] == 2 for e in p.events))  # fmt: skip
    events = json.loads(json.dumps(player.events))
    kinds = [e["kind"] for e in events]
    assert kinds.index("dice.committed") < kinds.index("roll")
    report = verify_events(events)
    assert report.ok, report.problems
    # hidden: the GM's secret roll and the GM stream's reveal (the GM's log only)
    assert report.verified_events == 3 and report.hidden == 2
    assert sorted(report.verified_seqs) == sorted(r["seq"] for r in rolls)
    assert seed in wire_text(player)  # published now


async def test_a_player_alone_cannot_probe_reconnect_and_roll_the_probed_dice(tables):
    """A request refused after drawing dice (a total past 64 bits) moves the next
    request at its seq to another stream; a player alone at the table who leaves
    (the table is dropped from memory) and comes back still rolls that other stream."""
    gm, _ = await tables.join("sr2", "gm")
    await gm.request({"type": "settings", "settings": {"verifiable": True}})
    await gm.close()
    probe = "100d6 * 1000000000 * 1000000000 * 1000000000"
    player, _ = await tables.join("sr2", "player")
    refused = await player.request({"type": "roll", "formula": probe})
    assert refused["code"] == "dice_limit"
    await player.close()
    for _ in range(100):  # the last client gone, the server lets the table go
        if "sr2" not in tables.server.tables.open:
            break
        await asyncio.sleep(0.01)
    assert "sr2" not in tables.server.tables.open
    again, _ = await tables.join("sr2", "player")
    done = await again.request({"type": "roll", "formula": "2d6"})
    assert done["event"]["data"]["draws"]["attempt"] == 1
