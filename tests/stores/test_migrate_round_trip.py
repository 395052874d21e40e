"""SQLite → Redis → SQLite (``rollbridge migrate`` both ways) of tables played over a real
server with every built-in ruleset: nothing of them is lost or changed on the way.

Each table (sr2, techlevel, bandits, wilddie) is played over a real WebSocket on a
real SQLite file, with seeded dice: every action of the ruleset between the player's
character and the NPCs (attacks among them), a GM's secret roll, an undo, and a
player's roll held for the GM's approval and approved. Moved to a real
``redis-server`` and back to a new file, each table has the same checksum in all
three stores, ``state`` reads the same for the GM and the player on a server of the
new file as on the original's, ``table export`` writes the same log (GM's and
player's), and the original join tokens let a client in and resume. Before
``migrate`` had its way back there was no new file (``--from redis://…`` was refused).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect

from rollbridge.dice import SeededDice
from rollbridge.host import PluginHost
from rollbridge.stores.migrate import checksum, dump_table
from rollbridge.stores.redis import RedisStore
from rollbridge.stores.sqlite import SQLiteStore
from tests.server.conftest import Peer, start
from tests.server.test_server_privacy_on_the_wire import RULESETS, requests_for, seed_every_ruleset
from tests.stores.test_migrate import run

RETAIN = 1000


def host() -> PluginHost:
    return PluginHost(environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})


async def join(url: str, table: str, token: str, **extra: Any) -> tuple[Peer, dict[str, Any]]:
    peer = Peer(await connect(url, max_size=2**22))
    welcome = await peer.request({"type": "hello", "table": table, "token": token, **extra})
    assert welcome["type"] == "welcome", welcome
    return peer, welcome


async def play(path: Path, tokens: dict[str, dict[str, str]]) -> None:
    """Every ruleset's actions, a secret roll, an undo and an approval, over a real
    server on ``path`` (seeded dice)."""
    plugins = host()
    server, store = await start(path, plugins, dice=lambda: SeededDice(24))
    peers = []
    try:
        for ruleset_id in RULESETS:
            gm, _ = await join(server.url, ruleset_id, tokens[ruleset_id]["gm"])
            player, _ = await join(server.url, ruleset_id, tokens[ruleset_id]["player"])
            peers += [gm, player]
            ruleset = plugins.rulesets[ruleset_id]
            ids = [f"a{i}" for i in range(len(ruleset.example_sheets))]
            results = [await gm.request(m) for m in requests_for(ruleset, ids)]
            assert sum(r["type"] == "result" for r in results) >= 2, ruleset_id
            secret = await gm.request({"type": "roll", "formula": "2d6", "secret": True})
            assert secret["type"] == "result", secret
            assert (await gm.request({"type": "undo"}))["type"] == "result"
            await gm.request({"type": "settings", "settings": {"approval": True}})
            held = await player.request({"type": "roll", "formula": "1d6"})
            assert held.get("status") == "pending", held
            approved = await gm.request({"type": "approve", "request": held["pending"]})
            assert approved["type"] == "result", approved
    finally:
        for peer in peers:
            peer._reader.cancel()
        await server.stop()
        store.close()


async def states(path: Path, tokens: dict[str, dict[str, str]]) -> dict[str, Any]:
    """``state`` of every table as its GM and its player read it, on a server of ``path``."""
    server, store = await start(path, host())
    peers, found = [], {}
    try:
        for ruleset_id in RULESETS:
            for role in ("gm", "player"):
                peer, _ = await join(server.url, ruleset_id, tokens[ruleset_id][role])
                peers.append(peer)
                reply = await peer.request({"type": "state", "id": "s"})
                assert reply["type"] == "result", reply
                found[ruleset_id, role] = reply
    finally:
        for peer in peers:
            peer._reader.cancel()
        await server.stop()
        store.close()
    return found


def exports(path: Path) -> dict[tuple[str, str], str]:
    """``table export`` (JSON Lines) of every table, as its GM and a player."""
    found = {}
    for ruleset_id in RULESETS:
        for audience in ("gm", "player"):
            status, out, err = run("table", "export", "--db", str(path), "--as", audience,
                                   "--format", "jsonl", ruleset_id)  # fmt: skip
            assert status == 0, err
            found[ruleset_id, audience] = out
    return found


@pytest.fixture
def redis_url(redis_factory) -> str:
    return redis_factory().url


async def test_sqlite_to_redis_and_back_keeps_every_ruleset_table(tmp_path, redis_url):
    original, again = tmp_path / "original.db", tmp_path / "again.db"
    tokens = seed_every_ruleset(original, host())
    await play(original, tokens)
    before, exported = await states(original, tokens), exports(original)
    assert any(e for e in exported.values())
    status, _out, err = run("migrate", "--from", str(original), "--to", redis_url)
    assert status == 0, err
    status, out, err = run("migrate", "--from", redis_url, "--to", str(again))
    assert status == 0, err
    assert out.count("checksum ok") == len(RULESETS)

    sources = [SQLiteStore(original), RedisStore(redis_url), SQLiteStore(again)]
    try:
        for ruleset_id in RULESETS:
            sums = {checksum(dump_table(store, ruleset_id)) for store in sources}
            assert len(sums) == 1, ruleset_id
            undone = [s.undos_after(ruleset_id, 0) for s in sources]
            assert undone[0] and undone[0] == undone[1] == undone[2]
    finally:
        for store in sources:
            store.close()

    assert await states(again, tokens) == before
    assert exports(again) == exported
    # a client from before both moves resumes on the new file with its old token
    table = before["sr2", "player"]["table"]
    welcome, resent = await _resume(again, tokens["sr2"]["player"], table["epoch"],
                                    table["seq"] - 1)  # fmt: skip
    assert welcome["seq"] == table["seq"]
    assert welcome["resume"] == {"recovered": True, "missed": 1}
    assert resent == [table["seq"]]


async def _resume(path: Path, token: str, epoch: int, seq: int) -> tuple[dict[str, Any], list]:
    """A client that last saw ``seq`` joins a server of ``path``: its welcome and the
    seqs of the events resent to it."""
    server, store = await start(path, host())
    try:
        peer, welcome = await join(server.url, "sr2", token, resume={"epoch": epoch, "seq": seq})
        missed = welcome.get("resume", {}).get("missed", 0)
        await peer.wait_for(lambda p: len(p.events) >= missed)
        peer._reader.cancel()
        return welcome, [e["seq"] for e in peer.events]
    finally:
        await server.stop()
        store.close()
