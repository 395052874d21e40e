"""A GM's welcome that is a snapshot says how the requests were settled (``settled``).

A GM's client that was away while a request was approved or rejected (another GM,
the web view) gets the missed events on a resume; when some of them have left the
retained log it gets a snapshot instead, which listed only the requests still
waiting, so its card of a settled request could say only that it no longer waits.
The welcome now lists how the requests the retained log settles were settled
(docs/protocol.md, ``settled``).
"""

from __future__ import annotations


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
