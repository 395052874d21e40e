"""Everywhere a player could learn what an always-secret action hid
(``ActionSpec(secret=True)``; review rev24p of plugins24), over a real server on a
real port and a real SQLite file: the player's Hero listens (a request that does
not ask for secret) with verifiable dice on, the GM reveals them, and the player
reconnects with a resume, asks ``state`` at an earlier seq and exports the log.
Nothing a player receives holds the narration, the outcome or the die — only that
something happened — and the dice were rolled on the GM stream, whose seed the
reveal keeps to the GM (docs/protocol.md, ``dice_segment_public_only``)."""

from __future__ import annotations

import asyncio
import json

from websockets.asyncio.client import connect

from rollbridge.dice.verify import verify_events
from tests.plugins.test_secret_actions import joined, served
from tests.server.conftest import Peer
from tests.server.httpclient import fetch
from tests.server.test_server_visibility import wire_text

#: Words and keys of the listen's result that no player may receive.
HIDDEN = ("hears", "heard", '"action":"listen"', '"action": "listen"')


def _none_of(text: str, where: str) -> None:
    for word in HIDDEN:
        assert word not in text, f"{where}: {word!r} reached a player: {text[:2000]}"


async def test_nothing_of_a_listen_reaches_a_player_anywhere(tmp_path):
    server, store, tokens = await served(tmp_path)
    try:
        gm, _ = await joined(server, tokens["gm"])
        player, _ = await joined(server, tokens["player"])
        await gm.request({"type": "settings", "settings": {"verifiable": True}})
        asked = {"type": "resolve", "action": "listen", "actor": "hero"}
        reply = await player.request(asked)
        assert reply["status"] == "secret" and "event" not in reply, reply
        listened = reply["seq"]
        whole = (await gm.request({"type": "state"}))["table"]
        assert whole["dice"]["open"] is True
        await gm.wait_for(lambda p: any(e["seq"] == listened for e in p.events))
        event = next(e for e in gm.events if e["seq"] == listened)
        # rolled on the GM stream, whose seed the reveal keeps to the GM
        assert event["data"]["draws"]["stream"] == "gm", event["data"]["draws"]
        await gm.request({"type": "dice.reveal"})
        rolled = await gm.request({"type": "roll", "formula": "1d6"})  # a public one after
        last = rolled["event"]["seq"]
        for peer in (gm, player):
            await peer.wait_for(lambda p: any(e["seq"] == last for e in p.events))
        gm_seeds = [e["data"]["seed"] for e in gm.events
                    if e["kind"] == "dice.revealed.gm"]  # fmt: skip
        assert gm_seeds, [e["kind"] for e in gm.events]
        seen = wire_text(player)
        assert gm_seeds[0] not in seen, "the GM stream's seed reached a player"
        report = verify_events(json.loads(json.dumps(player.events)))
        assert report.ok and listened not in report.verified_seqs, report
        secret = {e["seq"] for e in gm.events if e.get("gm_only")}
        assert listened in secret
        for e in player.events:
            if e["seq"] in secret:
                assert e["kind"] == "hidden" and "data" not in e, e
        # a resume's backfill, state at an earlier seq, the player's export
        again, welcome = await joined_resuming(server, tokens["player"], listened - 1)
        assert welcome["resume"]["recovered"] is True, welcome.get("resume")
        await again.wait_for(lambda p: any(e["seq"] == last for e in p.events))
        at = await again.request({"type": "state", "at": listened})
        bearer = {"Authorization": f"Bearer {tokens['player']}"}
        exported = []
        for form in ("jsonl", "markdown"):
            status, _, body = await asyncio.to_thread(
                fetch, server, f"/tables/night/export?format={form}", "GET", bearer
            )
            assert status == 200, body
            exported.append(body.decode())
        read = {"live": seen, "resume": wire_text(again), "state at": json.dumps(at),
                "export": "\n".join(exported)}  # fmt: skip
        for where, text in read.items():
            _none_of(text, where)
        for peer in (gm, player, again):
            await peer.close()
    finally:
        await server.stop()
        store.close()


async def joined_resuming(server, token, seq):
    """A player's new connection resuming after ``seq`` of epoch 1."""
    peer = Peer(await connect(server.url))
    hello = {"type": "hello", "table": "night", "token": token, "resume": {"epoch": 1, "seq": seq}}
    return peer, await peer.request(hello)
