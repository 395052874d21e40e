"""A GM's welcome that is a snapshot says how the requests were settled (``settled``).

A GM's client that was away while a request was approved or rejected (another GM,
the web view) gets the missed events on a resume; when some of them have left the
retained log it gets a snapshot instead, which listed only the requests still
waiting, so its card of a settled request could say only that it no longer waits.
The welcome now lists how the requests the retained log settles were settled
(docs/protocol.md, ``settled``).
"""

from __future__ import annotations

import asyncio
import threading

from websockets.asyncio.client import connect

from rollbridge.exceptions import StoreUnavailable
from tests.server.conftest import Peer


async def _pending(player, formula: str) -> str:
    held = await player.request({"type": "roll", "formula": formula})
    assert held["status"] == "pending", held
    return held["pending"]


async def _settled_while_away(world):
    """A GM's client that saw two requests begin waiting and left; another GM's
    connection approved one and rejected the other (with a reason) after five rolls,
    so the event after the first client's cursor has left the retained log (4)."""
    gm, welcome = await world.join("sr2", "gm")
    settings = {"type": "settings", "settings": {"approval": True}}
    assert (await gm.request(settings))["type"] == "result"
    player, _ = await world.join("sr2", "player")
    approved, rejected = await _pending(player, "1d6"), await _pending(player, "2d6")
    cursor = (await gm.request({"type": "state"}))["table"]["seq"]
    await gm.close()
    other, _ = await world.join("sr2", "gm")
    for _ in range(5):
        assert (await other.request({"type": "roll", "formula": "1d6"}))["status"] == "done"
    assert (await other.request({"type": "approve", "request": approved}))["type"] == "result"
    reject = {"type": "reject", "request": rejected, "reason": "not now, Tukan"}
    assert (await other.request(reject))["type"] == "result"
    return {"epoch": welcome["epoch"], "seq": cursor}, approved, rejected, other


async def test_a_gm_resumed_with_a_snapshot_is_told_how_each_request_was_settled(make_tables):
    world = await make_tables(retain=4)
    cursor, approved, rejected, _other = await _settled_while_away(world)
    _gm, welcome = await world.join("sr2", "gm", resume=cursor)
    assert welcome["resume"] == {"recovered": False, "missed": 0}
    assert welcome["table"]["pending"] == []
    settled = {entry["pending"]: entry for entry in welcome["settled"]}
    assert settled[approved]["outcome"] == "approved"
    assert settled[rejected]["outcome"] == "rejected"
    assert settled[rejected]["reason"] == "not now, Tukan"
    assert "reason" not in settled[approved]
    seqs = [entry["seq"] for entry in welcome["settled"]]
    assert seqs == sorted(seqs) and seqs[-1] == welcome["seq"]


async def test_a_player_and_a_recovered_gm_get_no_settled(make_tables):
    world = await make_tables(retain=4)
    cursor, _approved, _rejected, other = await _settled_while_away(world)
    _player, welcome = await world.join("sr2", "player", resume=cursor)
    assert welcome["resume"]["recovered"] is False and "settled" not in welcome
    now = (await other.request({"type": "state"}))["table"]["seq"]
    _gm, welcome = await world.join("sr2", "gm", resume={**cursor, "seq": now})
    assert welcome["resume"] == {"recovered": True, "missed": 0} and "settled" not in welcome
    _first, welcome = await world.join("sr2", "gm")  # no resume: as before
    assert "settled" not in welcome and "resume" not in welcome


async def test_a_gm_of_another_epoch_and_one_too_far_behind_are_told_too(make_tables):
    # the resume of an earlier epoch (a restore since): the retained log read for it
    world = await make_tables(retain=4)
    cursor, approved, rejected, _other = await _settled_while_away(world)
    _gm, welcome = await world.join("sr2", "gm", resume={**cursor, "epoch": cursor["epoch"] + 7})
    assert welcome["resume"] == {"recovered": False, "missed": 0}
    assert [(e["pending"], e["outcome"]) for e in welcome["settled"]] == [
        (approved, "approved"),
        (rejected, "rejected"),
    ]
    # every missed event retained, but more than the resume may be sent: the missed
    # events read say how the requests were settled
    world = await make_tables(retain=1000)
    cursor, approved, rejected, _other = await _settled_while_away(world)
    world.server.tables.open["sr2"].backlog_limit = 1024
    _gm, welcome = await world.join("sr2", "gm", resume=cursor)
    assert welcome["resume"] == {"recovered": False, "missed": 0, "reason": "too_far_behind"}
    settled = {entry["pending"]: entry for entry in welcome["settled"]}
    assert settled[rejected]["reason"] == "not now, Tukan"
    assert settled[approved]["outcome"] == "approved"


async def test_a_read_of_the_settled_requests_that_fails_leaves_them_out_and_the_gm_joins(
    make_tables, monkeypatch
):
    world = await make_tables(retain=4)
    cursor, _approved, _rejected, other = await _settled_while_away(world)

    def failing(table_id, seq, until=None):
        raise StoreUnavailable("the store is down", details={"reason": "down"})

    monkeypatch.setattr(world.store, "events_after", failing)
    gm, welcome = await world.join("sr2", "gm", resume={**cursor, "epoch": 99})
    assert welcome["type"] == "welcome" and "settled" not in welcome, welcome
    assert welcome["resume"] == {"recovered": False, "missed": 0}
    assert (await gm.request({"type": "ping"}))["type"] == "pong"
    assert (await other.request({"type": "roll", "formula": "1d6"}))["status"] == "done"


async def test_a_gm_who_leaves_while_the_log_is_read_is_sent_nothing_and_the_next_gm_joins(
    make_tables, monkeypatch
):
    world = await make_tables(retain=4)
    cursor, approved, _rejected, _other = await _settled_while_away(world)
    read, held, release = world.store.events_after, threading.Event(), threading.Event()

    def slow(table_id, seq, until=None):
        held.set()
        release.wait(10)
        return read(table_id, seq, until)

    monkeypatch.setattr(world.store, "events_after", slow)
    leaving = Peer(await connect(world.server.url), False)
    world.peers.append(leaving)
    # another epoch's resume: the one read is the retained log's, for ``settled``
    resume = {**cursor, "epoch": 99}
    hello = {"type": "hello", "table": "sr2", "token": world.tokens["sr2"]["gm"], "resume": resume}
    await leaving.send(hello)
    await asyncio.to_thread(held.wait, 10)
    await leaving.close()
    release.set()
    monkeypatch.setattr(world.store, "events_after", read)
    _gm, welcome = await world.join("sr2", "gm", resume=resume)
    assert approved in {entry["pending"] for entry in welcome["settled"]}
    assert [f for f in leaving.frames if "welcome" in str(f)] == []
    # the leaving GM's read ends in its own thread: the new GM's own read may be
    # answered first (CI at 460714f2 saw 1 here), so its end is waited for, bounded
    table = world.server.tables.open["sr2"]
    deadline = asyncio.get_running_loop().time() + 10
    while table._reading and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.01)
    assert table._reading == 0
