"""Resume, restart on the same db file, idempotency over the wire (items 5-7, 12)."""

from __future__ import annotations

import pytest


async def roll(peer, formula="1d6", **extra):
    reply = await peer.request({"type": "roll", "formula": formula, **extra})
    assert reply["type"] == "result", reply
    return reply


async def test_resume_sends_exactly_the_missed_events_in_order(tables):
    gm, _ = await tables.join("sr2", "gm")
    player, welcome = await tables.join("sr2", "player")
    await roll(gm)
    await player.wait_for(lambda p: len(p.events) == 1)
    last = player.events[-1]
    await player.close()
    missed = [(await roll(gm, f"{n}d6"))["seq"] for n in (2, 3, 4)]
    again, welcome = await tables.join(
        "sr2", "player", resume={"epoch": last["epoch"], "seq": last["seq"]}
    )
    assert welcome["resume"] == {"recovered": True, "missed": 3}
    await again.wait_for(lambda p: len(p.events) == 3)
    assert [e["seq"] for e in again.events] == missed
    assert [e["data"]["formula"] for e in again.events] == ["2d6", "3d6", "4d6"]
    live = await roll(gm, "5d6")
    await again.wait_for(lambda p: len(p.events) == 4)
    assert again.events[-1]["seq"] == live["seq"]  # no gap, no duplicate


async def test_resume_from_before_the_retained_log_gets_a_snapshot(make_tables):
    world = await make_tables(retain=3)
    gm, _ = await world.join("sr2", "gm")
    for _ in range(5):
        await roll(gm)
    _late, welcome = await world.join("sr2", "player", resume={"epoch": 1, "seq": 1})
    assert welcome["resume"] == {"recovered": False, "missed": 0}
    assert welcome["seq"] == 7 and {a["id"] for a in welcome["table"]["actors"]} == {
        "tukan",
        "guard-a",
    }
    _other_epoch, welcome = await world.join("sr2", "player", resume={"epoch": 9, "seq": 6})
    assert welcome["resume"]["recovered"] is False


async def test_restart_on_the_same_db_continues_seq_and_keeps_replies(make_tables):
    world = await make_tables()
    gm, _ = await world.join("tally", "gm")
    first = await gm.request(
        {"type": "resolve", "id": "hit-1", "action": "hit", "targets": ["guard"], "dice": [5]}
    )
    assert first["status"] == "done"
    await make_tables.restart(world)
    gm, welcome = await world.join("tally", "gm")
    assert welcome["seq"] == first["seq"]
    guard = next(a for a in welcome["table"]["actors"] if a["id"] == "guard")
    assert guard["state"]["damage"] == 5
    again = await gm.request(
        {"type": "resolve", "id": "hit-1", "action": "hit", "targets": ["guard"], "dice": [6]}
    )
    assert again == first  # the original reply; nothing applied twice
    after = await gm.request({"type": "roll", "formula": "1d6"})
    assert after["seq"] == first["seq"] + 1  # no gap, no repeat
    state = await gm.request({"type": "state"})
    assert next(a for a in state["table"]["actors"] if a["id"] == "guard")["state"]["damage"] == 5


async def test_a_retried_request_in_flight_is_applied_once(tables):
    gm, _ = await tables.join("tally", "gm")
    message = {"type": "resolve", "id": "twice", "action": "hit", "targets": ["guard"], "dice": [4]}
    await gm.send(message)
    await gm.send(message)
    reply = await gm.reply("twice")
    state = await gm.request({"type": "state"})
    guard = next(a for a in state["table"]["actors"] if a["id"] == "guard")
    assert guard["state"]["damage"] == 4
    assert state["table"]["seq"] == reply["seq"]


async def test_undo_and_redo_are_seen_by_every_client(tables):
    gm, _ = await tables.join("tally", "gm")
    player, _ = await tables.join("tally", "player")
    watcher, _ = await tables.join("tally", "observer")
    hit = await gm.request({"type": "resolve", "action": "hit", "targets": ["ana"], "dice": [3]})
    undo = await gm.request({"type": "undo"})
    redo = await gm.request({"type": "redo"})
    for peer in (gm, player, watcher):
        await peer.wait_for(lambda p: len(p.events) >= 3)
        assert [e["kind"] for e in peer.events] == ["resolution", "undo", "redo"]
        assert [e["seq"] for e in peer.events] == [hit["seq"], undo["seq"], redo["seq"]]
        ana = [next(a for a in e["actors"] if a["id"] == "ana") for e in peer.events]
        assert [a["state"]["damage"] for a in ana] == [3, 0, 3]


@pytest.mark.parametrize("binary", [False, True])
async def test_msgpack_and_json_are_answered_in_kind(tables, binary):
    peer, welcome = await tables.join("sr2", "observer", binary=binary)
    assert isinstance(peer.frames[0], bytes if binary else str)
    assert welcome["role"] == "observer"


async def test_undo_reaches_as_far_back_running_as_after_a_restart(make_tables):
    # docs/engine.md, "Undo and redo": an entry older than the retained log is dropped
    world = await make_tables(retain=3)
    gm, _ = await world.join("tally", "gm")
    await gm.request({"type": "resolve", "action": "hit", "targets": ["guard"], "dice": [5]})
    for _ in range(3):  # the hit is now more than `retain` seqs old
        await roll(gm, "1d6")
    running = (await gm.request({"type": "state"}))["table"]
    assert (await gm.request({"type": "undo"}))["code"] == "nothing_to_undo"
    await make_tables.restart(world)
    gm, welcome = await world.join("tally", "gm")
    assert running["can_undo"] is welcome["table"]["can_undo"] is False
