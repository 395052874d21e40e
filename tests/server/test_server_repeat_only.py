"""A request that only repeats (``"repeat": true``, docs/protocol.md) over a real
socket and a real SQLite file: an id the table remembers is answered with its
remembered reply — from memory, from the store after a restart, the pending reply
of a request still waiting for approval — and one it does not remember (never sent,
or past the reply window) is refused ``not_remembered``, changing nothing: not the
seq, not the pending requests, not the stored log, not the memory of ids."""

from __future__ import annotations

import sqlite3

import pytest

from rollbridge.exceptions import NotRemembered
from rollbridge.offline import TableService
from rollbridge.stores.base import reply_window
from rollbridge.stores.sqlite import SQLiteStore
from tests.server.conftest import GM, make_host


def _log_rows(path, table: str = "sr2") -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute('SELECT count(*) FROM log WHERE "table" = ?', (table,)).fetchone()[0]


async def _table(gm) -> dict:
    return (await gm.request({"type": "state"}))["table"]


async def _refused_changing_nothing(world, gm, asker, request: dict) -> dict:
    before, rows = await _table(gm), _log_rows(world.path)
    refused = await asker.request({**request, "repeat": True})
    assert refused["type"] == "error" and refused["code"] == "not_remembered", refused
    assert refused["details"] == {"request": request["id"]}
    assert repr(request["id"]) in refused["message"]
    after = await _table(gm)
    assert after["seq"] == before["seq"] and after["pending"] == before["pending"]
    assert _log_rows(world.path) == rows
    return refused


async def _held_roll(world, request_id: str):
    """The GM's client, the player's, and the player's secret roll ``request_id``
    held for the GM's approval (its ``pending`` reply), at a table that asks for it."""
    gm, _ = await world.join("sr2", "gm")
    settings = {"type": "settings", "settings": {"approval": True}}
    assert (await gm.request(settings))["type"] == "result"
    player, _ = await world.join("sr2", "player")
    roll = {"type": "roll", "id": request_id, "formula": "1d6", "secret": True}
    held = await player.request(roll)
    assert held["status"] == "pending", held
    return gm, player, roll, held


async def test_a_repeat_of_an_id_never_sent_is_refused_changing_nothing(make_tables):
    world = await make_tables()
    gm, _ = await world.join("sr2", "gm")
    settings = {"type": "settings", "settings": {"player_dice": True}}
    assert (await gm.request(settings))["type"] == "result"
    player, _ = await world.join("sr2", "player", binary=True)
    request = {"type": "roll", "id": "never", "formula": "2d6", "dice": [3, 4]}
    await _refused_changing_nothing(world, gm, player, request)
    await _refused_changing_nothing(world, gm, player, {**request, "id": 77})
    # the refusal left no key: the same id sent as a new request runs, once
    done = await player.request(request)
    assert done["type"] == "result" and done["status"] == "done", done
    assert (await player.request({**request, "repeat": True})) == done
    assert (await player.request({**request, "repeat": False, "dice": [1, 1]})) == done


async def test_a_remembered_id_is_answered_with_its_reply_from_memory_and_the_store(make_tables):
    world = await make_tables()
    gm, _ = await world.join("tally", "gm")
    hit = {"type": "resolve", "id": "hit-1", "action": "hit", "targets": ["guard"], "dice": [5]}
    first = await gm.request(hit)
    assert first["status"] == "done", first
    assert (await gm.request({**hit, "repeat": True})) == first  # from memory
    await make_tables.restart(world)  # the key filter and the store lookup
    gm, welcome = await world.join("tally", "gm")
    again = await gm.request({**hit, "dice": [6], "repeat": True})
    assert again == first
    state = await _table(gm)
    assert state["seq"] == welcome["seq"] == first["seq"]
    assert next(a for a in state["actors"] if a["id"] == "guard")["state"]["damage"] == 5


async def test_a_held_request_repeated_gets_pending_then_its_result(make_tables):
    world = await make_tables()
    gm, player, roll, held = await _held_roll(world, "held-1")
    seq = (await _table(gm))["seq"]
    assert (await player.request({**roll, "repeat": True})) == held  # still waiting
    assert (await player.request(roll)) == held  # what a plain repeat gets: the same
    state = await _table(gm)
    assert state["seq"] == seq and len(state["pending"]) == 1
    approved = await gm.request({"type": "approve", "request": held["pending"]})
    assert approved["type"] == "result", approved
    result = await player.request({**roll, "repeat": True})
    assert result["type"] == "result" and result["status"] == "secret", result
    assert (await player.request(roll)) == result
    assert (await _table(gm))["pending"] == []


async def test_a_repeat_past_the_reply_window_is_refused_not_run_again(make_tables):
    world = await make_tables(retain=1)
    gm, _ = await world.join("sr2", "gm")
    player, _ = await world.join("sr2", "player")
    roll = {"type": "roll", "id": "old", "formula": "1d6"}
    first = await player.request(roll)
    assert first["status"] == "done", first
    for n in range(reply_window(1) + 1):  # the store forgets the reply
        assert (await gm.request({"type": "roll", "id": f"g{n}", "formula": "1d6"}))["seq"]
    await make_tables.restart(world)  # and the table's memory of its last replies
    gm, _ = await world.join("sr2", "gm")
    player, _ = await world.join("sr2", "player")
    await _refused_changing_nothing(world, gm, player, roll)
    # the control: without the field the same id is a new request, rolled again
    seq = (await _table(gm))["seq"]
    again = await player.request(roll)
    assert again["status"] == "done" and again["seq"] == seq + 1, again


async def test_repeat_must_be_a_boolean_and_only_on_a_change(make_tables):
    world = await make_tables()
    gm, _ = await world.join("sr2", "gm")
    seq = (await _table(gm))["seq"]
    for value in (1, "true", None, []):
        bad = await gm.request({"type": "roll", "id": "b", "formula": "1d6", "repeat": value})
        assert bad["code"] == "invalid_request" and bad["details"] == {"field": "repeat"}, bad
    read = await gm.request({"type": "state", "id": "s", "repeat": True})
    assert read["code"] == "invalid_request" and read["details"]["field"] == "state.repeat"
    assert (await _table(gm))["seq"] == seq


def test_the_offline_driver_repeats_only_too(tmp_path, tally):
    store = SQLiteStore(tmp_path / "offline.db")
    service = TableService(store, make_host(tally))
    seed = {"type": "actor.create", "id": "a1", "actor": {"id": "ana", "name": "Ana",
            "sheet": {"hp": 100}}}  # fmt: skip
    table_id = service.create_table("Offline", "tally", table_id="offline")[0].id
    with pytest.raises(NotRemembered) as refused:
        service.handle(table_id, {**seed, "repeat": True}, GM)
    assert refused.value.details == {"request": "a1"} and "'a1'" in refused.value.message
    assert service.protocol(table_id).table.info.seq == 0
    created = service.handle(table_id, seed, GM)
    service.forget(table_id)  # read from the store, through the key filter
    assert service.handle(table_id, {**seed, "repeat": True}, GM) == created
    store.close()


async def test_a_request_waiting_past_the_reply_window_is_still_said_pending(make_tables):
    """A request that waits for the GM's approval longer than the reply window: its
    ``pending`` reply is pruned like any other, but asked only to repeat it the
    server finds it among the table's waiting requests and says ``pending`` again,
    with its pending id (it answered ``not_remembered`` before, and a Foundry player's
    client then dropped a roll the GM could still approve), changing nothing; once
    the GM approves it its final reply is remembered again."""
    world = await make_tables(retain=1)
    gm, player, roll, held = await _held_roll(world, "slow")
    for n in range(reply_window(1) + 1):  # the GM's own rolls: never held
        assert (await gm.request({"type": "roll", "id": f"g{n}", "formula": "1d6"}))["seq"]
    await make_tables.restart(world)  # the table's memory of its last replies goes too
    gm, _ = await world.join("sr2", "gm")
    player, _ = await world.join("sr2", "player")
    before, rows = await _table(gm), _log_rows(world.path)
    again = await player.request({**roll, "repeat": True})
    assert again["type"] == "result" and again["status"] == "pending", again
    assert again["pending"] == held["pending"]
    after = await _table(gm)
    assert after["seq"] == before["seq"] and after["pending"] == before["pending"]
    assert [p["id"] for p in after["pending"]] == ["slow"]  # still waiting, once
    assert _log_rows(world.path) == rows
    # the same id from another join token (the GM's) is not that request
    await _refused_changing_nothing(world, gm, gm, roll)
    approved = await gm.request({"type": "approve", "request": held["pending"]})
    assert approved["type"] == "result", approved
    result = await player.request({**roll, "repeat": True})
    assert result["type"] == "result" and result["status"] == "secret", result
