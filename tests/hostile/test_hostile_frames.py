"""Hostile frames against a real ``rollbridge serve``: every id and value echoed back
is checked first, the protocol answers as docs/protocol.md says, a refused request
changes nothing, and no frame puts a traceback in the log (issue 16, items 1, 7, 8).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import msgpack
from websockets.asyncio.client import ClientConnection, connect


def deep(levels: int) -> list:
    """A list nested ``levels`` deep."""
    value: list = []
    for _ in range(levels - 1):
        value = [value]
    return value


#: Frames whose id is not an id: each is answered ``invalid_request`` with ``"id": null``.
BAD_IDS: dict[str, str | bytes] = {
    "json lone surrogate": '{"type": "ping", "id": "\\ud800"}',
    "json NaN": '{"type": "ping", "id": NaN}',
    "json Infinity": '{"type": "state", "id": Infinity}',
    "json float": '{"type": "ping", "id": 1.5}',
    "json true": '{"type": "ping", "id": true}',
    "json empty string": '{"type": "ping", "id": ""}',
    "json 65 characters": json.dumps({"type": "ping", "id": "x" * 65}),
    "json past 64 bits": '{"type": "ping", "id": 9223372036854775808}',
    "json object": '{"type": "ping", "id": {"a": 1}}',
    "json missing": '{"type": "ping"}',
    "json 40 deep": '{"type": "ping", "id": ' + "[" * 40 + "]" * 40 + "}",
    "msgpack binary": msgpack.packb({"type": "ping", "id": b"r1"}),
    "msgpack extension": msgpack.packb({"type": "ping", "id": msgpack.ExtType(5, b"r1")}),
    "msgpack 40 deep": msgpack.packb({"type": "ping", "id": deep(40)}),
    "msgpack integer key": msgpack.packb({1: "x", "type": "ping", "id": "r1"}),
    "msgpack uint64": msgpack.packb({"type": "ping", "id": 2**64 - 1}),
}


async def receive(ws: ClientConnection, timeout: float = 10) -> dict[str, Any]:
    frame = await asyncio.wait_for(ws.recv(), timeout)
    return json.loads(frame) if isinstance(frame, str) else msgpack.unpackb(frame)


async def ask(ws: ClientConnection, frame: str | bytes | dict) -> dict[str, Any]:
    """Send a frame and return the next reply (events are skipped)."""
    await ws.send(json.dumps(frame) if isinstance(frame, dict) else frame)
    while True:
        reply = await receive(ws)
        if reply.get("type") != "event":
            return reply


async def joined(served, role: str) -> ClientConnection:
    ws = await connect(served.url, max_size=2**22)
    welcome = await ask(ws, {"type": "hello", "id": "h", "table": served.table,
                             "token": served.tokens[role]})  # fmt: skip
    assert welcome["type"] == "welcome", welcome
    return ws


async def table_now(ws: ClientConnection) -> dict[str, Any]:
    reply = await ask(ws, {"type": "state", "id": "look"})
    return reply["table"]


async def test_every_bad_id_gets_invalid_request_with_a_null_id_and_no_traceback(served):
    gm = await joined(served, "gm")
    before = await table_now(gm)
    for name, frame in BAD_IDS.items():
        reply = await ask(gm, frame)
        assert reply["type"] == "error", name
        assert reply["code"] == "invalid_request", (name, reply)
        assert reply["id"] is None, name
    # the connection is still usable, and nothing changed
    assert (await ask(gm, {"type": "ping", "id": "p"})) == {"type": "pong", "id": "p"}
    assert await table_now(gm) == before
    # the same before hello: refused with a null id, then unauthorized for a good one
    fresh = await connect(served.url)
    for name, frame in BAD_IDS.items():
        reply = await ask(fresh, frame)
        assert (reply["code"], reply["id"]) == ("invalid_request", None), name
    await fresh.close()
    await gm.close()
    served.stop()
    assert "Traceback" not in served.log_text()


async def test_quoted_values_are_made_safe_to_send_back(served):
    gm = await joined(served, "gm")
    # an unknown request type holding a lone surrogate is named back, made valid
    reply = await ask(gm, '{"type": "\\ud800x", "id": "t1"}')
    assert reply["id"] == "t1" and reply["code"] == "unknown_type"
    assert reply["details"]["type"] == "\ufffdx"
    # a value quoted in details is cut to a bounded size
    reply = await ask(gm, json.dumps({"type": "y" * 5000, "id": "t2"}))
    assert reply["code"] == "unknown_type" and len(reply["details"]["type"]) <= 200
    for garbage in (b"\xc1\xff\x00", "{not json", "[1, 2]", '"a string"'):
        reply = await ask(gm, garbage)
        assert reply["type"] == "error" and reply["code"] == "undecodable"
        assert reply["id"] is None
        assert "Error" not in reply["message"], "no Python exception names on the wire"
    assert (await ask(gm, {"type": "ping", "id": "p"}))["type"] == "pong"
    await gm.close()
    served.stop()
    assert "Traceback" not in served.log_text()


async def test_the_protocol_answers_as_its_document_says(served):
    """Item 7's differences, each on a real socket."""
    fresh = await connect(served.url)
    # ping before hello: unauthorized, and the connection stays for the hello
    refused = await ask(fresh, {"type": "ping", "id": "early"})
    assert (refused["code"], refused["id"]) == ("unauthorized", "early")
    await fresh.close()

    gm = await joined(served, "gm")
    # a 257-character formula: dice_limit, as the error table says
    long = "+".join(["1"] * 129)
    assert len(long) == 257
    reply = await ask(gm, {"type": "roll", "id": "long", "formula": long})
    assert reply["code"] == "dice_limit", reply
    # 424242 and "424242" are two ids: two rolls, two seqs
    first = await ask(gm, {"type": "roll", "id": 424242, "formula": "1d6"})
    second = await ask(gm, {"type": "roll", "id": "424242", "formula": "1d6"})
    assert first["id"] == 424242 and second["id"] == "424242"
    assert first["status"] == second["status"] == "done"
    assert second["seq"] == first["seq"] + 1
    again = await ask(gm, {"type": "roll", "id": 424242, "formula": "1d6"})
    assert again["seq"] == first["seq"]  # the integer id repeated: the same reply
    await gm.close()


async def test_with_approval_on_what_needs_no_dice_is_refused_before_it_is_held(served):
    gm = await joined(served, "gm")
    hackler = {"name": "Hackler", "code": "7M", "skill": 6}
    tukan = {"id": "tukan", "name": "Tukan", "controllers": ["player"],
             "sheet": {"body": 5, "weapons": [hackler]}}  # fmt: skip
    made = await ask(gm, {"type": "actor.create", "id": "a1", "actor": tukan})
    assert made["type"] == "result", made
    await ask(gm, {"type": "actor.create", "id": "a2", "actor": {
        "id": "guard", "name": "Guard", "sheet": {"body": 4}}})  # fmt: skip
    settings = await ask(gm, {"type": "settings", "id": "s1", "settings": {"approval": True}})
    assert settings["type"] == "result", settings
    player = await joined(served, "player")
    before = await table_now(gm)
    bad_roll = await ask(player, {"type": "roll", "id": "r1", "formula": "2d6+"})
    assert bad_roll["type"] == "error" and bad_roll["code"] == "invalid_notation", bad_roll
    zero = await ask(player, {"type": "roll", "id": "r2", "formula": "1/0"})
    assert zero["type"] == "error", zero
    attack = {"type": "resolve", "action": "attack", "actor": "tukan", "targets": ["guard"]}
    unknown_weapon = await ask(
        player, {**attack, "id": "r3", "params": {"weapon": "Bazooka", "range": "short"}}
    )
    assert unknown_weapon["type"] == "error", unknown_weapon
    assert "Bazooka" in unknown_weapon["message"]
    assert await table_now(gm) == before, "a refused request held nothing"
    good = await ask(
        player, {**attack, "id": "r4", "params": {"weapon": "Hackler", "range": "short"}}
    )
    assert good.get("status") == "pending", good
    await player.close()
    await gm.close()


async def test_bidirectional_controls_in_any_text_are_refused_and_change_nothing(served):
    """A label "Dodge U+202E" made every screen show a roll of 62 as 26: no text a
    client sends may hold a bidirectional embedding, override or isolate; the marks
    right-to-left text needs (U+200F) are taken."""
    gm = await joined(served, "gm")
    before = await table_now(gm)
    refused = [
        ({"type": "roll", "formula": "1d100", "label": "Dodge \u202e"}, "roll.label"),
        ({"type": "roll", "formula": "1d100", "label": "\u2067x\u2069"}, "roll.label"),
        ({"type": "actor.create", "actor": {"name": "Guard \u202d", "sheet": {}}},
         "actor.create.actor.name"),
        ({"type": "resolve", "action": "success_test",
          "params": {"dice": 2, "tn": 4, "label": "\u202bx"}}, "resolve.params.label"),
    ]  # fmt: skip
    for number, (frame, field) in enumerate(refused):
        reply = await ask(gm, {"id": f"b{number}", **frame})
        assert reply["type"] == "error", reply
        assert reply["code"] == "invalid_request", reply
        assert reply["message"].startswith(field) and "bidirectional" in reply["message"], reply
    assert await table_now(gm) == before
    taken = await ask(gm, {"id": "rtl", "type": "roll", "formula": "1d6",
                           "label": "\u05e9\u05dc\u05d5\u05dd\u200f 2"})  # fmt: skip
    assert taken["type"] == "result" and taken["status"] == "done", taken
    await gm.close()
    served.stop()
    assert "Traceback" not in served.log_text()


async def test_a_second_hello_is_refused_in_the_clients_language(served):
    ws = await connect(served.url)
    welcome = await ask(ws, {"type": "hello", "id": "h", "table": served.table,
                             "token": served.tokens["player"], "locale": "cs"})  # fmt: skip
    assert welcome["type"] == "welcome"
    again = await ask(ws, {"type": "hello", "id": "h2", "table": served.table,
                           "token": served.tokens["player"]})  # fmt: skip
    assert again["code"] == "invalid_request"
    assert again["message"] == "toto spojení se už připojilo ke stolu", again
    await ws.close()


def _ill_formed(message: dict[str, Any], marker: str) -> bytes:
    """``message`` packed, the text ``marker`` (one ASCII character) replaced by the
    bytes FF FE: ill-formed UTF-8 in a msgpack string (the fuzzer's find)."""
    packed = msgpack.packb(message)
    old = b"\xa1" + marker.encode()
    assert packed.count(old) == 1
    return packed.replace(old, b"\xa2\xff\xfe")


async def test_ill_formed_utf8_in_msgpack_is_refused_by_name_like_a_lone_surrogate(served):
    """A msgpack string that is not UTF-8 is a text that is not valid Unicode, as a
    lone surrogate is in JSON: ``invalid_request`` naming the field, with the request's
    id, and nothing changed. (It was ``undecodable`` with ``"id": null``, saying the
    frame did not hold one msgpack value — which it did.)"""
    gm = await joined(served, "gm")
    before = await table_now(gm)
    roll = {"type": "roll", "id": "r1", "formula": "1d6", "label": "X"}
    reply = await ask(gm, _ill_formed(roll, "X"))
    assert (reply["type"], reply["code"], reply["id"]) == ("error", "invalid_request", "r1")
    assert reply["details"] == {"field": "roll.label"}, reply
    assert "roll.label" in reply["message"] and "Unicode" in reply["message"], reply
    twin = await ask(gm, json.dumps({**roll, "id": "r2", "label": "\ud800"}))
    assert (twin["code"], twin["details"], twin["message"]) == (
        reply["code"], reply["details"], reply["message"],
    )  # fmt: skip
    # an id that is not UTF-8 is no id: invalid_request with a null id
    reply = await ask(gm, _ill_formed({"type": "ping", "id": "Y"}, "Y"))
    assert (reply["code"], reply["id"]) == ("invalid_request", None), reply
    assert await table_now(gm) == before
    await gm.close()


async def test_an_id_past_64_bits_is_told_that_an_integer_id_must_fit_them(served):
    """An integer id is an id (docs/protocol.md) as long as it fits 64 bits: one past
    them was told only that "every request needs an id, a string of 1-64 characters",
    as if integers were not ids at all (the fuzzer's ``2**64``)."""
    gm = await joined(served, "gm")
    for frame in (
        '{"type": "ping", "id": 18446744073709551616}',
        msgpack.packb({"type": "ping", "id": 2**64 - 1}),
    ):
        reply = await ask(gm, frame)
        assert (reply["code"], reply["id"], reply["details"]) == (
            "invalid_request",
            None,
            {"field": "id"},
        )
        assert "integer within 64 bits" in reply["message"], reply
    await gm.close()
