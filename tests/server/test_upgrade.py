"""A database an older rollbridge wrote, served by this one (docs/operations.md,
"Upgrading"): a real server on the real file each old version left
(``tests/upgrade_files.py``), real WebSocket clients.

Every table loads and welcomes its GM and player; ``state`` shows the actors the old
server showed, and at every old seq the actors the table held then (saying that their
order is approximate before a removal that did not record the actor's place); each request the
old server answered, sent again with its id, gets the old seq; an old change is
undone and redone; the table goes on (a new roll). Players never see an NPC's
details in an event the schema-v2 server stored (it hid them when sending; the
events themselves say nothing of what to hide), and a segment of verifiable dice
that the first verifiable version opened rolls and reveals as it committed.
"""

from __future__ import annotations

import json

import pytest

from rollbridge.dice.verify import verify_events
from rollbridge.host import PluginHost
from rollbridge.server.limits import Limits
from tests.server.conftest import Tables, start
from tests.upgrade_files import VERSIONS, OldFile, old_file

LIMITS = Limits(rate_per_connection=None, rate_per_table=None, per_token=None, per_address=None)


async def _serve(old: OldFile) -> Tables:
    server, store = await start(old.path, PluginHost(), limits=LIMITS)
    tokens = {t["table"]: t["tokens"] for t in old.tables.values()}
    return Tables(server, store, old.path, tokens)


async def _stop(world: Tables) -> None:
    for peer in world.peers:
        await peer.close()
    await world.server.stop()


def _actors(table: dict, gm: bool) -> list[dict]:
    return [
        {
            "id": a["id"],
            "name": a["name"],
            "status": a["common"]["status"],
            **({"state": a["state"]} if gm else {}),
        }
        for a in table["actors"]
    ]


@pytest.mark.parametrize("commit", VERSIONS)
async def test_every_table_of_an_old_file_serves_as_the_old_server_left_it(commit, tmp_path):
    old = old_file(commit, tmp_path)
    world = await _serve(old)
    try:
        for ruleset, meta in old.tables.items():
            table_id = meta["table"]
            gm, welcome = await world.join(table_id, "gm")
            player, player_welcome = await world.join(table_id, "player")
            assert welcome["type"] == player_welcome["type"] == "welcome", ruleset
            assert welcome["table"]["seq"] == meta["seq"]
            for who, peer in (("gm", gm), ("player", player)):
                now = await peer.request({"type": "state"})
                assert _actors(now["table"], who == "gm") == meta["actors"][who], (ruleset, who)
            seqs = {r["request"]["id"]: r["seq"] for r in meta["requests"]}
            for at, ids in meta["actor_ids_at"].items():
                then = (await player.request({"type": "state", "at": int(at)}))["table"]
                assert sorted(a["id"] for a in then["actors"]) == ids, (ruleset, at)
                # before a removal that did not record where the actor stood, the order
                # is the walk's guess, and says so
                guessed = None
                if int(at) < seqs["rm2"] and not old.places_recorded:
                    guessed = "approximate"
                assert then.get("actor_order") == guessed, (ruleset, at)
            for request in meta["requests"]:
                peer = gm if request["who"] == "gm" else player
                again = await peer.request(dict(request["request"]))
                assert (again["type"], again["seq"]) == ("result", request["seq"]), (
                    ruleset,
                    request["request"]["id"],
                    again,
                )
            undone = await gm.request({"type": "undo"})
            assert undone["type"] == "result", (ruleset, undone)
            assert undone["event"]["data"]["undoes"] == meta["seq"]
            redone = await gm.request({"type": "redo"})
            assert redone["type"] == "result", (ruleset, redone)
            rolled = await player.request({"type": "roll", "formula": "2d6"})
            assert rolled["type"] == "result", (ruleset, rolled)
    finally:
        await _stop(world)


def _opened(event: dict, segment: int) -> bool:
    return event["kind"] == "dice.committed" and event["data"]["segment"] == segment


def _npc_details(event: dict) -> list[str]:
    """What of an NPC's numbers an event shows: a resolution's outcome, dice, steps or
    params, a turn hook's outcome — any of them, where an NPC took part."""
    data = event.get("data") or {}
    shown = []
    if event["kind"] == "resolution":
        shown += [key for key in ("outcome", "dice", "steps", "params") if key in data]
    for hook in data.get("hooks") or ():
        shown += [f"hook {key}" for key in ("outcome", "dice", "steps") if key in hook]
    return shown


async def test_players_never_see_npc_details_of_events_the_v2_server_stored(tmp_path):
    old = old_file("9e19e5f", tmp_path)
    world = await _serve(old)
    try:
        for ruleset, meta in old.tables.items():
            table_id = meta["table"]
            epoch = 1
            player, welcome = await world.join(
                table_id, "player", resume={"epoch": epoch, "seq": 0}, locale="de"
            )
            gm, _ = await world.join(table_id, "gm", resume={"epoch": epoch, "seq": 0})
            assert welcome["resume"]["recovered"] is True
            count = meta["seq"]
            await player.wait_for(lambda p, n=count: len(p.events) == n)
            await gm.wait_for(lambda p, n=count: len(p.events) == n)
            npcs = {"a1", "a2"}  # the old game's NPCs; a0 is the player's
            notes = []
            for theirs, mine in zip(gm.events, player.events, strict=True):
                data = mine.get("data") or {}
                named = {data.get("actor"), *data.get("targets", ())}
                touched = {a["id"] for a in mine.get("actors", ())}
                if mine["kind"] == "resolution" and (named | touched) & npcs:
                    assert _npc_details(mine) == [], (ruleset, mine)
                    assert data["withheld"] is True
                    notes.append(data["narration"])
                    assert "outcome" in theirs["data"]  # the GM still sees it all
                for hook in data.get("hooks") or ():
                    if hook.get("actor") is None or hook["actor"] in npcs:
                        assert _npc_details({"kind": "x", "data": {"hooks": [hook]}}) == []
            from rollbridge.engine.legacy import WITHHELD

            note = WITHHELD().render("de")  # a note in the player's language
            assert notes and set(notes) == {note} != {WITHHELD().render("en")}, ruleset
    finally:
        await _stop(world)


async def test_a_segment_the_first_verifiable_version_opened_rolls_and_reveals(tmp_path):
    """9a8b894 derived a segment's seed without a nonce and had no GM stream: the
    segment it left open rolls on, and its reveal publishes the seed it committed to."""
    old = old_file("9a8b894", tmp_path)
    world = await _serve(old)
    try:
        for ruleset, meta in old.tables.items():
            table_id = meta["table"]
            gm, _ = await world.join(table_id, "gm", resume={"epoch": 1, "seq": 0})
            player, _ = await world.join(table_id, "player", resume={"epoch": 1, "seq": 0})
            await player.wait_for(lambda p, n=meta["seq"]: len(p.events) == n)
            rolled = await player.request({"type": "roll", "formula": "3d6"})
            assert rolled["type"] == "result", (ruleset, rolled)
            assert rolled["event"]["data"]["draws"]["stream"] == "public"  # all it committed
            # an NPC's dice would be on the stream its reveal shows players: refused
            npc = await gm.request({"type": "roll", "formula": "1d6", "actor": "a1"})
            assert npc["type"] == "error" and npc["code"] == "dice_segment_public_only", npc
            revealed = await gm.request({"type": "dice.reveal"})
            assert revealed["type"] == "result", (ruleset, revealed)
            await player.wait_for(lambda p: any(_opened(e, 3) for e in p.events))
            kinds = [e["kind"] for e in player.events]
            assert "dice.abandoned" not in kinds and kinds.count("dice.revealed") == 2, kinds
            report = verify_events(json.loads(json.dumps(player.events)))
            assert report.ok, (ruleset, report.problems)
            assert rolled["seq"] in report.verified_seqs
    finally:
        await _stop(world)
