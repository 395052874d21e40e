"""The bytes bound of the requests waiting for the GM's approval
(``rollbridge.engine.pending``: a player's 8 KiB, a table's 64 KiB) over a real
socket and a real SQLite file: a refused request gets a typed error in the client's
language and changes nothing — not the seq, not the stored log, not the memory of
request ids (the same id is taken once there is room) — and after a restart the
table holds the same requests, counted the same."""

from __future__ import annotations

import sqlite3

from rollbridge.plain import pack

#: A roll whose supplied dice make a pending entry of ~7.7 KiB: one fits in a
#: player's 8 KiB.
MEDIUM = {"type": "roll", "formula": "999d1000000+500d1000000", "label": "L" * 200,
          "dice": [1_000_000] * 1499}  # fmt: skip


def _log_rows(path) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute('SELECT count(*) FROM log WHERE "table" = ?', ("sr2",)).fetchone()[0]


async def test_a_request_past_the_bytes_is_refused_on_the_wire_changing_nothing(make_tables):
    world = await make_tables()
    gm, _ = await world.join("sr2", "gm")
    settings = {"approval": True, "player_dice": True}
    assert (await gm.request({"type": "settings", "settings": settings}))["type"] == "result"
    player, _ = await world.join("sr2", "player", binary=True, locale="cs")
    for n in range(3):
        request = {"type": "roll", "formula": "1d6", "id": f"s{n}"} if n else {**MEDIUM, "id": "m0"}
        reply = await player.request(request)
        assert reply["status"] == "pending", reply
    seq = (await gm.request({"type": "state"}))["table"]["seq"]
    rows = _log_rows(world.path)
    refused = await player.request({**MEDIUM, "id": "m1"})
    assert refused["type"] == "error" and refused["code"] == "too_many_pending", refused
    assert refused["details"]["limit"] == 8 * 1024 < refused["details"]["size"]
    assert refused["details"]["scope"] == "player"
    assert "8 KiB" in refused["message"] and "schválí" in refused["message"], refused
    state = (await gm.request({"type": "state"}))["table"]
    assert state["seq"] == seq and len(state["pending"]) == 3
    assert _log_rows(world.path) == rows
    waiting = {entry["pending"] for entry in state["pending"]}
    before = pack({entry["pending"]: entry for entry in state["pending"]})

    world = await make_tables.restart(world)  # read back from the file
    gm, _ = await world.join("sr2", "gm")
    state = (await gm.request({"type": "state"}))["table"]
    assert pack({entry["pending"]: entry for entry in state["pending"]}) == before
    player, _ = await world.join("sr2", "player", binary=True)
    again = await player.request({**MEDIUM, "id": "m1"})
    assert again["code"] == "too_many_pending", again  # still no room
    (first,) = (entry["pending"] for entry in state["pending"] if entry["id"] == "m0")
    assert first in waiting
    assert (await gm.request({"type": "reject", "request": first}))["type"] == "result"
    taken = await player.request({**MEDIUM, "id": "m1"})  # the same id, now with room
    assert taken["type"] == "result" and taken["status"] == "pending", taken
