"""A GM's client log of every ruleset, received over real sockets from a server on a
SQLite file, through each kind of welcome the server sends: a snapshot at the start,
a recovered resume that missed events (another GM acted meanwhile), one that missed
none, and, after the server restarted on the same file, one that missed events
again. ``rollbridge verify`` reads it whole: every ``resume`` the server sends carries
its ``missed`` count (docs/dice.md, "Checking"), the missed events follow it, and
every resolution is resolved again — the review of the recovered-resume check
(foundry26) found no honest log it rejects."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rollbridge.cli import main
from rollbridge.engine import Principal
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore

from .conftest import Peer, Tables, start

GM = Principal("gm", "gm")

#: Per ruleset: its player's and its NPC's example sheets, and a resolution the GM
#: asks for (its actor the player's, a target the NPC where the action needs one).
PLAYS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "sr2": ("Tukan", "Guard A", {"action": "success_test", "params": {"dice": 4, "tn": 5}}),
    "wilddie": ("Ana", "Guard", {"action": "trait", "params": {"trait": "notice"}}),
    "bandits": ("Ana", "Guard", {"action": "move", "params": {"move": "Run", "stat": "cool"}}),
    "techlevel": ("Ana", "Guard", {"action": "hit", "targets": ["npc"], "params": {
        "weapon": "Revolver", "dice": "1d6", "tl": 2, "type": "kinetic"}}),
}  # fmt: skip


def _seed(path, host: PluginHost, ruleset: str) -> dict[str, str]:
    """A verifiable table of ``ruleset`` with the player's actor ``pc`` and the NPC
    ``npc``: its tokens by role."""
    with SQLiteStore(path) as store:
        service = TableService(store, host)
        _, tokens = service.create_table(
            ruleset, ruleset, settings={"verifiable": True}, table_id=ruleset
        )
        pc, npc, _ = PLAYS[ruleset]
        sheets = host.rulesets[ruleset].example_sheets
        for actor_id, name, controllers in (("pc", pc, ["player"]), ("npc", npc, [])):
            actor = {"id": actor_id, "name": name, "sheet": dict(sheets[name]),
                     "controllers": controllers}  # fmt: skip
            service.handle(ruleset, {"type": "actor.create", "id": actor_id, "actor": actor}, GM)
    return tokens


async def _act(peer: Peer, ruleset: str, n: int) -> int:
    """The GM's resolution of ``ruleset`` asked on ``peer``: its seq."""
    request = {"type": "resolve", "id": f"r{n}", "actor": "pc", **PLAYS[ruleset][2]}
    done = await peer.request(request)
    assert done["status"] == "done", done
    return done["seq"]


@pytest.mark.parametrize("ruleset", sorted(PLAYS))
async def test_a_gms_log_through_every_kind_of_resume_verifies(tmp_path, capsys, ruleset):
    host = PluginHost()
    path = tmp_path / "t.db"
    tokens = _seed(path, host, ruleset)
    server, store = await start(path, host)
    world = Tables(server, store, path, {ruleset: tokens})
    logged: list[Any] = []
    welcomes: list[dict] = []
    try:
        gm, welcome = await world.join(ruleset, "gm")
        welcomes.append(welcome)
        seq = await _act(gm, ruleset, 1)
        await gm.close()
        logged += gm.frames
        other, _ = await world.join(ruleset, "gm")
        await _act(other, ruleset, 2)  # missed by the first GM's client
        gm, welcome = await world.join(ruleset, "gm", resume={"epoch": 1, "seq": seq})
        welcomes.append(welcome)
        await gm.wait_for(lambda p: len(p.events) == 1)
        seq = await _act(gm, ruleset, 3)
        await gm.close()
        logged += gm.frames
        gm, welcome = await world.join(ruleset, "gm", resume={"epoch": 1, "seq": seq})
        welcomes.append(welcome)  # nothing happened meanwhile
        seq = await _act(gm, ruleset, 4)
        await gm.close()
        logged += gm.frames
        for peer in world.peers:
            peer._reader.cancel()
        world.peers.clear()
        await server.stop()
        world.server, world.store = server, store = await start(path, host)
        other, _ = await world.join(ruleset, "gm")
        await _act(other, ruleset, 5)  # after the restart, missed again
        gm, welcome = await world.join(ruleset, "gm", resume={"epoch": 1, "seq": seq})
        welcomes.append(welcome)
        await gm.wait_for(lambda p: len(p.events) == 1)
        await gm.request({"type": "dice.reveal", "id": "reveal"})
        await gm.wait_for(lambda p: any(e["kind"] == "dice.committed" for e in p.events))
        logged += gm.frames
    finally:
        for peer in world.peers:
            peer._reader.cancel()
        await server.stop()
    assert [w.get("resume") for w in welcomes] == [
        None,
        {"recovered": True, "missed": 1},
        {"recovered": True, "missed": 0},
        {"recovered": True, "missed": 1},
    ]
    log = tmp_path / "gm.jsonl"
    log.write_text("".join(f"{frame}\n" for frame in logged), encoding="utf-8")
    assert main(["verify", str(log), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] and report["problems"] == [], report
    assert (report["resolved"], report["unresolved"]) == (5, {}), report


async def test_logs_resumed_with_nothing_missed_while_a_request_waits_verify(tmp_path, capsys):
    """A wilddie table (approval, player_dice): the player's trait test is held with
    their own dice; both clients reconnect with nothing missed while it waits (their
    welcomes' tables the ones their next events follow, checked as a snapshot's); the
    GM approves with dice equal to the player's (read as the player's: the same
    result). The GM's log and the player's verify whole."""
    host = PluginHost()
    path = tmp_path / "t.db"
    tokens = _seed(path, host, "wilddie")
    server, store = await start(path, host)
    world = Tables(server, store, path, {"wilddie": tokens})
    logs: dict[str, list[Any]] = {"gm": [], "player": []}
    try:
        gm, _ = await world.join("wilddie", "gm")
        player, _ = await world.join("wilddie", "player")
        settings = {"approval": True, "player_dice": True}
        assert (await gm.request({"type": "settings", "id": "s", "settings": settings}))[
            "status"
        ] == "done"
        asked = {"type": "resolve", "id": "t", "actor": "pc", **PLAYS["wilddie"][2], "dice": [3, 2]}
        held = await player.request(asked)
        assert held["status"] == "pending", held
        await gm.wait_for(lambda p: any(e["kind"] == "approval.requested" for e in p.events))
        peers = {"gm": gm, "player": player}
        for role, peer in peers.items():
            seq = peer.events[-1]["seq"]
            await peer.close()
            logs[role] += peer.frames
            peers[role], welcome = await world.join(
                "wilddie", role, resume={"epoch": 1, "seq": seq}
            )
            assert welcome["resume"] == {"recovered": True, "missed": 0}
        gm, player = peers["gm"], peers["player"]
        approve = {"type": "approve", "id": "a", "request": held["pending"], "dice": [3, 2]}
        assert (await gm.request(approve))["status"] == "done"
        await gm.request({"type": "dice.reveal", "id": "reveal"})
        for peer in (gm, player):
            await peer.wait_for(lambda p: any(e["kind"] == "dice.committed" for e in p.events))
        logs["gm"] += gm.frames
        logs["player"] += player.frames
    finally:
        for peer in world.peers:
            peer._reader.cancel()
        await server.stop()
    reports = {}
    for role, frames in logs.items():
        log = tmp_path / f"{role}.jsonl"
        log.write_text("".join(f"{frame}\n" for frame in frames), encoding="utf-8")
        assert main(["verify", str(log), "--json"]) == 0, role
        reports[role] = json.loads(capsys.readouterr().out)
        assert reports[role]["ok"] and reports[role]["problems"] == [], (role, reports[role])
    assert (reports["gm"]["resolved"], reports["gm"]["unresolved"]) == (1, {}), reports["gm"]
