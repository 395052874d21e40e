"""The export is what the protocol sent: over a real socket, the JSON frames a
player's, an observer's and the GM's connections received are, byte for byte, the
lines of their exports (CLI and HTTP) for the same events."""

from __future__ import annotations

import asyncio
import json

from rollbridge.dice.sources import SeededDice
from rollbridge.export import export_chunks, read_log
from rollbridge.stores.sqlite import SQLiteStore
from tests.server.httpclient import get

from .conftest import ATTACK, SECRET_ROLL


def event_frames(peer) -> list[str]:
    return [f for f in peer.frames if json.loads(f)["type"] == "event"]


async def play(tables) -> dict:
    gm, _ = await tables.join("sr2", "gm")
    player, _ = await tables.join("sr2", "player")
    watcher, _ = await tables.join("sr2", "observer")
    for message in (
        {"type": "roll", "formula": "3d6x+2", "label": "boom", "dice": [6, 4, 2, 6, 1]},
        SECRET_ROLL,
        {"type": "adjust", "actor": "guard-a", "track": "physical", "delta": 4},
        {"type": "undo"},
        {"type": "redo"},
    ):
        assert (await gm.request(message))["type"] == "result"
    attack = {"type": "resolve", "action": "attack", "actor": "tukan",
              "targets": ["guard-a"], "params": ATTACK}  # fmt: skip
    assert (await player.request(attack))["type"] == "result"
    for peer in (gm, player, watcher):
        await peer.wait_for(lambda p: len(p.events) == 6)
    return {"gm": gm, "player": player, "observer": watcher}


async def test_a_connections_frames_are_its_export(make_tables):
    tables = await make_tables(dice=lambda: SeededDice(17))
    peers = await play(tables)
    first = peers["player"].events[0]["seq"]  # after the seeded actors
    assert peers["player"].events[1]["kind"] == "hidden"  # the secret roll
    for role, peer in peers.items():
        frames = event_frames(peer)
        status, _, body = await get(tables.server, f"/tables/sr2/export?format=jsonl&since="
                                    f"{first - 1}", token=tables.tokens["sr2"][role])  # fmt: skip
        assert status == 200
        welcome, *lines = body.decode("utf-8").splitlines()
        assert json.loads(welcome)["type"] == "welcome"  # the table before the first
        assert lines == frames, role

        def offline(role=role) -> list[str]:
            with SQLiteStore(tables.path) as store:
                log = read_log(store, "sr2", tables.server.host.rulesets, first - 1)
                return "".join(export_chunks(log, "jsonl", role)).splitlines()[1:]

        assert await asyncio.to_thread(offline) == frames, role
