"""``rollbridge verify`` holds a roll's claims of being secret, approved or an NPC's to
the stream it was drawn on, and an approval's approver to a GM, on logs a real
``rollbridge serve`` wrote (a free 127.0.0.1 port, a SQLite file; a wilddie table with
the player's character and an NPC).

The server draws a secret roll, an approved one and an NPC's on the GM's stream
(rollbridge.engine.segments.stream_of), in every segment that has one. A roll said to
be any of these but drawn on the public stream is no event the server rolled: the
player's own public roll passed off as the NPC's, or as a secret one. And only a GM
approves a request (the protocol's ``approve`` is the GM's). Found tampering with
served sr2 and wilddie logs (6 December 2026, night): before, each verified (exit 0;
docs/dice.md, ``gm_on_public`` and ``unheld_approval``)."""

from __future__ import annotations

import asyncio

import pytest

from rollbridge.cli.offline import offline_host
from tests.dice.test_verify_settled_once import Client, _join, _lines, _table, _verified
from tests.server.test_server_lifecycle import Serve

pytestmark = pytest.mark.usefixtures("english_without_stores")


async def _played(url: str, made: dict) -> tuple[Client, Client]:
    """The player's character ``pc`` and the NPC ``npc``; verifiable dice: the player
    rolls for ``pc``, the GM for ``npc`` and in secret; approval on, the player's roll
    held and approved; the dice revealed."""
    gm = await _join(url, made["table"], made["tokens"]["gm"])
    sheets = list(offline_host().rulesets["wilddie"].example_sheets.values())
    for index, (actor, controllers) in enumerate((("pc", ["player"]), ("npc", []))):
        created = {"id": actor, "name": actor.upper(), "sheet": sheets[index],
                   "controllers": controllers}  # fmt: skip
        await gm.done({"type": "actor.create", "id": f"c{index}", "actor": created})
    await gm.done({"type": "settings", "id": "s", "settings": {"verifiable": True}})
    player = await _join(url, made["table"], made["tokens"]["player"])
    await player.done({"type": "roll", "id": "r1", "formula": "2d6", "actor": "pc"})
    await gm.done({"type": "roll", "id": "g1", "formula": "2d6", "actor": "npc"})
    await gm.done({"type": "roll", "id": "g2", "formula": "1d20", "secret": True})
    await gm.done({"type": "settings", "id": "a", "settings": {"approval": True}})
    held = await player.call({"type": "roll", "id": "r2", "formula": "1d8"})
    await gm.done({"type": "approve", "id": "g3", "request": held["pending"]})
    await gm.done({"type": "dice.reveal", "id": "v"})
    for client in (gm, player):
        await client.call({"type": "state", "id": "end"})  # every event before it read
        await client.ws.close()
    return gm, player


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> dict[str, list[str]]:
    """The GM's and the player's logs of :func:`_played` at a real server."""
    db = tmp_path_factory.mktemp("served") / "a.db"
    server = Serve(db, "--no-demo")
    try:
        gm, player = asyncio.run(_played(server.url, _table(db)))
    finally:
        assert server.stop() == 0
    return {"gm": gm.frames, "player": player.frames}


def _roll(lines: list[dict], request: str) -> dict:
    """The roll event of ``request`` (the GM's log holds its approval.requested too)."""
    return next(e for e in lines if e.get("kind") == "roll" and e.get("request") == request)


@pytest.mark.parametrize("who", ["gm", "player"])
def test_the_honest_logs_verify(served, tmp_path, capsys, who):
    lines = _lines(served[who])
    assert _roll(lines, "r1")["data"]["draws"]["stream"] == "public"
    status, report = _verified(tmp_path, lines, capsys)
    assert (status, report["problems"]) == (0, [])
    assert report["verified_events"] >= 1


@pytest.mark.parametrize("who", ["gm", "player"])
@pytest.mark.parametrize("claim", ["npc", "secret", "approved"])
def test_a_public_roll_said_to_be_secret_approved_or_an_npcs_is_a_mismatch(
    served, tmp_path, capsys, who, claim
):
    """The player's public roll for its character, said to be the NPC's, secret, or
    approved (naming no request: that is said too). Before, the NPC's and the secret
    one verified."""
    lines = _lines(served[who])
    rolled = _roll(lines, "r1")
    if claim == "npc":
        rolled["data"]["actor"] = "npc"
    elif claim == "secret":
        rolled["gm_only"] = True
    else:
        rolled["data"].update(approved_by="gm", approved="p1")
    status, report = _verified(tmp_path, lines, capsys)
    codes = {(p["code"], p["seq"]) for p in report["problems"]}
    assert status == 1 and ("gm_on_public", rolled["seq"]) in codes, report["problems"]
    said = next(p["message"] for p in report["problems"] if p["code"] == "gm_on_public")
    assert said == (
        f"seq {rolled['seq']}: a roll that is secret, approved by the GM or for an NPC was "
        "drawn on the public stream of a segment that has a GM stream: such dice are always "
        "drawn on the GM's stream, so the event is not the one the server rolled"
    )


@pytest.mark.parametrize("who", ["gm", "player"])
def test_an_approval_said_to_be_a_players_is_a_mismatch(served, tmp_path, capsys, who):
    """Only a GM approves: an approved event whose ``approved_by`` is a player's (or
    none) settles no request. Before, exit 0."""
    lines = _lines(served[who])
    approved = _roll(lines, "r2")
    request = approved["data"]["approved"]
    for approver in ("player", None):
        approved["data"]["approved_by"] = approver
        status, report = _verified(tmp_path, lines, capsys)
        problems = [(p["code"], p["seq"]) for p in report["problems"]]
        assert status == 1 and problems == [("unheld_approval", approved["seq"])], problems
        assert report["problems"][0]["message"] == (
            f"seq {approved['seq']}: the log says {approver!r} approved request {request!r} "
            "(its approved_by), and only a GM approves requests"
        )


@pytest.mark.parametrize("who", ["gm", "player"])
@pytest.mark.parametrize("actor", [["npc"], {"id": "npc"}])
@pytest.mark.parametrize("request_id", ["r1", "g1"], ids=["public", "gm stream"])
def test_a_roll_whose_actor_is_no_id_is_a_bad_event(
    served, tmp_path, capsys, who, actor, request_id
):
    """A roll's ``data.actor`` that is a list or an object (an honest server writes an
    actor's id, a string, or none). Before, verify ended in a traceback (``TypeError:
    unhashable type``) judging its stream: the public roll since ``gm_on_public``, the
    GM stream's since ``public_on_gm``."""
    lines = _lines(served[who])
    rolled = _roll(lines, request_id)
    rolled["data"]["actor"] = actor
    status, report = _verified(tmp_path, lines, capsys)
    assert status == 1
    assert [(p["code"], p["seq"]) for p in report["problems"]] == [("bad_event", rolled["seq"])]
    assert report["problems"][0]["message"] == (
        f"seq {rolled['seq']}: its actor (data.actor) names no actor: an actor's id is a string"
    )


@pytest.mark.parametrize("actor", [["npc"], {"id": "npc"}])
def test_a_removal_whose_actor_is_no_id_is_a_bad_event(served, tmp_path, capsys, actor):
    """An ``actor.removed`` event naming a list or an object as its actor. Before,
    verify ended in a traceback (``TypeError: unhashable type``) forgetting whether a
    player controlled it (found by mutating served logs' fields, review of dice-22)."""
    lines = _lines(served["gm"])
    last = max(line["seq"] for line in lines if line.get("type") == "event")
    removed = {"type": "event", "table": lines[0]["table"]["id"], "kind": "actor.removed",
               "epoch": 1, "seq": last + 1, "data": {"actor": actor}, "by": "gm"}  # fmt: skip
    status, report = _verified(tmp_path, [*lines, removed], capsys)
    assert status == 1
    assert [(p["code"], p["seq"]) for p in report["problems"]] == [("bad_event", last + 1)]
