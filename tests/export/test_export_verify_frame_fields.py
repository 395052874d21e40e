"""``rollbridge verify`` takes a dialect's additions off its frames (the adapters'
``plain``) and resolves them again as the plain protocol's, and reports a field
neither the protocol nor a dialect installed here knows (``unknown_field``): logs of
a real server on a real SQLite file, over real sockets (docs/dice.md, "Checking").

Before, any field beside the plain protocol's made a frame a dialect's: not resolved
again, counted ``dialect``, exit 0. So a resolution forged in a terminal client's log
(the plain protocol ``rollbridge connect`` speaks), with one made-up field added,
verified; and, once the Foundry adapter named its fields (``event_fields``:
``foundry``, ``players``), a forged resolution in a Foundry client's log, or in any
log with one of those names added, still did. Now every frame is resolved again: a
field no one knows is taken off first (a forged result: ``wrong_resolution``, exit
1; an honest one: ``unknown_field``, incomplete, exit 3 — a newer version's field, an
adapter not installed here, or a line altered). The honest logs of all three
clients — the Foundry module's frames, a terminal client's frames, the export the
web view downloads — still verify, exit 0."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect

from rollbridge.cli import main
from tests.server.conftest import Peer
from tests.server.httpclient import get

ATTACK = {"weapon": "Hackler", "skill": 5, "attacker_pool": 2, "rounds": 3, "range": "short"}
#: Who sends what: verifiable dice on, the player's attack on the guard (an NPC), the
#: GM's damage to Tukan, the reveal.
PLAYED = [
    ("gm", {"type": "settings", "settings": {"verifiable": True}}),
    ("player", {"type": "resolve", "action": "attack", "actor": "tukan",
                "targets": ["guard-a"], "params": ATTACK}),
    ("gm", {"type": "resolve", "action": "damage", "targets": ["tukan"],
            "params": {"code": "6M", "attack_successes": 1}}),
    ("gm", {"type": "dice.reveal"}),
]  # fmt: skip


async def _played(tables) -> dict[str, list[dict[str, Any]]]:
    """A verifiable sr2 table: the player's attack on the guard, the GM's damage to
    Tukan, a reveal; the frames a Foundry GM and a plain GM received, and the
    player's export over HTTP (what the web view's download saves)."""
    gm, _ = await tables.join("sr2", "gm")
    foundry = Peer(await connect(tables.server.url, max_size=2**22))
    tables.peers.append(foundry)
    hello = {"type": "hello", "table": "sr2", "token": tables.tokens["sr2"]["gm"],
             "dialect": "foundry"}  # fmt: skip
    assert (await foundry.request(hello))["type"] == "welcome"
    peers = {"gm": gm, "player": (await tables.join("sr2", "player"))[0]}
    for who, request in PLAYED:
        assert (await peers[who].request(request)).get("status") != "error", request
    for peer in (gm, foundry):
        await peer.wait_for(lambda p: any(e["kind"] == "dice.revealed" for e in p.events))
    token = tables.tokens["sr2"]["player"]
    status, _, body = await get(tables.server, "/tables/sr2/export?format=jsonl", token=token)
    assert status == 200
    return {
        "foundry": [json.loads(frame) for frame in foundry.frames],
        "terminal": [json.loads(frame) for frame in gm.frames],
        "web": [json.loads(line) for line in body.decode().splitlines()],
    }


def _verified(tmp_path: Path, lines: list[dict[str, Any]], capsys) -> tuple[int, dict]:
    log = tmp_path / "log.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    capsys.readouterr()
    status = main(["verify", str(log), "--json"])
    return status, json.loads(capsys.readouterr().out)


def _damage(lines: list[dict[str, Any]]) -> dict[str, Any]:
    return next(line for line in lines if line.get("kind") == "resolution"
                and line["data"]["action"] == "damage")  # fmt: skip


async def test_honest_logs_of_foundry_the_terminal_and_the_web_view_verify(
    tables, tmp_path, capsys
):
    logs = await _played(tables)
    assert "foundry" in _damage(logs["foundry"])
    expected = {
        "foundry": (2, {}),
        "terminal": (2, {}),
        "web": (1, {"withheld": 1, "secret": 1}),
    }
    for client, lines in logs.items():
        status, report = _verified(tmp_path, lines, capsys)
        assert (status, report["problems"], report["complete"]) == (0, [], True), client
        assert (report["resolved"], report["unresolved"]) == expected[client], client
        assert report["verified_events"] >= 1, client


async def test_a_forged_resolution_with_a_made_up_field_is_a_mismatch(tables, tmp_path, capsys):
    """The terminal client's log, the damage's boxes raised and a field no one writes
    added: resolved again without the field, the boxes differ. Before: ``dialect``,
    exit 0."""
    lines = (await _played(tables))["terminal"]
    damage = _damage(lines)
    damage["data"]["outcome"]["boxes"] += 1
    damage["note"] = "adapter"
    status, report = _verified(tmp_path, lines, capsys)
    assert status == 1
    assert [(p["code"], p["seq"]) for p in report["problems"]] == [
        ("wrong_resolution", damage["seq"])
    ]
    assert "its data.outcome.boxes differs from the log's" in report["problems"][0]["message"]


async def test_a_made_up_field_on_an_honest_frame_is_incomplete(tables, tmp_path, capsys):
    """The same field on the honest damage (a terminal client's frame), and beside the
    Foundry adapter's own fields: what it says is not known here, so the log is neither
    verified nor forged (exit 3), and the last line says what would check it."""
    logs = await _played(tables)
    for client in ("terminal", "foundry"):
        lines = logs[client]
        _damage(lines)["note"] = "adapter"
        status, report = _verified(tmp_path, lines, capsys)
        assert (status, report["problems"], report["complete"]) == (3, [], False), client
        assert report["unresolved"].get("unknown_field") == 1, (client, report["unresolved"])
        log = tmp_path / "log.jsonl"
        assert main(["verify", str(log)]) == 3
        last = capsys.readouterr().out.rstrip().splitlines()[-1]
        assert "a frame's fields are rollbridge's and its adapters', not a ruleset's" in last


@pytest.mark.parametrize(
    ("client", "added"),
    [
        ("foundry", {}),
        ("terminal", {"foundry": {}, "players": {}}),
        # names differing by case or by a look-alike letter (Cyrillic о) are no one's
        ("terminal", {"Foundry": {}}),
        ("foundry", {"f\u043eundry": {}, "Players": {}}),
    ],
)
async def test_a_forged_resolution_under_a_dialects_field_is_a_mismatch(
    tables, tmp_path, capsys, client, added
):
    """A dialect's fields are taken off and the frame resolved again as the plain
    protocol's (adapters' ``plain``): the Foundry GM's damage forged, or the terminal
    client's with the Foundry adapter's own field names added (``foundry``,
    ``players``) to pass it off as that dialect's frame, is ``wrong_resolution``, exit
    1. Before, a frame with a dialect's field was not resolved again (``dialect``):
    the same forgeries verified, exit 0. A name like a dialect's field (another case,
    a look-alike letter) is no one's: the frame is resolved again without it."""
    lines = (await _played(tables))[client]
    damage = _damage(lines)
    damage["data"]["outcome"]["boxes"] += 1
    damage.update(added)
    status, report = _verified(tmp_path, lines, capsys)
    assert status == 1, report["unresolved"]
    # the Foundry adapter's own names added with nothing it makes of the frame under
    # them: what a Foundry client would show of it is altered too (docs/dice.md)
    dialect = [("wrong_dialect", damage["seq"])] if "foundry" in added else []
    assert [(p["code"], p["seq"]) for p in report["problems"]] == [
        ("wrong_resolution", damage["seq"]),
        *dialect,
    ]
