"""Bad input over the wire (issue 3, item 9): typed errors, the connection stays
usable, nothing is written, other clients see nothing."""

from __future__ import annotations

import asyncio

import pytest


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ({"type": "fly"}, "unknown_type"),
        ({"type": "roll"}, "invalid_request"),
        ({"type": "roll", "formula": 7}, "invalid_request"),
        ({"type": "roll", "formula": "2d"}, "invalid_notation"),
        ({"type": "roll", "formula": "1000d6"}, "dice_limit"),
        ({"type": "resolve", "action": "attack", "actor": "nobody", "targets": ["guard-a"]},
         "unknown_actor"),
        ({"type": "resolve", "action": "cast", "actor": "tukan"}, "unknown_action"),
        ({"type": "resolve", "action": "attack", "actor": "tukan", "targets": ["guard-a"],
          "params": {"code": "7Q", "skill": 4, "range": "short"}}, "invalid_params"),
        ({"type": "resolve", "action": "success_test", "params": {"dice": -1, "tn": 4}},
         "invalid_params"),
        ({"type": "resolve", "action": "attack", "actor": "tukan", "targets": ["guard-a"],
          "params": {"weapon": "Hackler", "range": "short", "attacker_pool": 99}},
         "pool_exhausted"),
        ({"type": "roll", "formula": "1d6", "dice": [9]}, "dice_mismatch"),
        ({"type": "approve", "request": "p999"}, "unknown_request"),
        ({"type": "redo"}, "nothing_to_redo"),
        ({"type": "encounter.next"}, "encounter_state"),
        ({"type": "adjust", "actor": "guard-a", "track": "mana", "delta": 1}, None),
    ],
)  # fmt: skip
async def test_refused_with_a_code_and_nothing_changes(tables, message, code):
    gm, _ = await tables.join("sr2", "gm")
    watcher, _ = await tables.join("sr2", "observer")
    before = await gm.request({"type": "state"})
    reply = await gm.request(message)
    assert reply["type"] == "error", reply
    if code is not None:
        assert reply["code"] == code, reply
    assert reply["message"]
    after = await gm.request({"type": "state"})
    assert after == {**before, "id": after["id"]}
    assert (await gm.request({"type": "ping"}))["type"] == "pong"  # still usable
    await asyncio.sleep(0.05)
    assert watcher.events == []


async def test_undecodable_frames_and_missing_ids(tables):
    gm, _ = await tables.join("sr2", "gm")
    for frame in (b"\xc1\xff\x00", "{not json", "[1, 2]", b"\x93\x01\x02\x03"):
        await gm.connection.send(frame)
        await gm.wait_for(lambda p: None in p.replies)
        error = gm.replies.pop(None)
        assert error["type"] == "error" and error["code"] == "undecodable"
    await gm.connection.send('{"type": "roll", "formula": "1d6"}')
    await gm.wait_for(lambda p: None in p.replies)
    assert gm.replies.pop(None)["code"] == "invalid_request"
    assert (await gm.request({"type": "roll", "formula": "1d6"}))["status"] == "done"


async def test_unknown_table_and_wrong_token_look_the_same(tables):
    _, unknown = await tables.join("no-such-table", "gm", token="rbt_x")
    _, wrong = await tables.join("sr2", "gm", token="rbt_x")
    assert unknown["code"] == wrong["code"] == "unauthorized"
    assert unknown["message"] == wrong["message"]  # table ids are not probed this way
    assert "no-such-table" not in tables.server.tables.open and not tables.server.tables.open


async def test_an_oversized_frame_closes_only_that_connection(tables):
    big, _ = await tables.join("sr2", "gm")
    other, _ = await tables.join("sr2", "gm")
    await big.connection.send('{"type": "roll", "formula": "1d6", "label": "' + "x" * 70_000
                              + '"}')  # fmt: skip
    assert await big.wait_closed() == 1009
    assert (await other.request({"type": "roll", "formula": "1d6"}))["status"] == "done"


async def test_a_ruleset_that_raises_gets_internal_and_the_server_goes_on(tables):
    gm, _ = await tables.join("tally", "gm")
    before = await gm.request({"type": "state"})
    reply = await gm.request({"type": "resolve", "action": "boom"})
    assert reply["code"] == "internal"
    assert reply["message"] == "ruleset 'tally' failed"  # not what the exception said
    assert (await gm.request({"type": "state"}))["table"] == before["table"]
    sr2, _ = await tables.join("sr2", "gm")
    assert (await sr2.request({"type": "roll", "formula": "2d6"}))["status"] == "done"
    assert (await gm.request({"type": "roll", "formula": "2d6"}))["status"] == "done"
