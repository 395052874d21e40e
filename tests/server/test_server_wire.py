"""A message's WebSocket frame made once per batch (rollbridge.server.wire) is byte
for byte the frame websockets makes for it, on the wire too; the outbox makes it once
for all the connections a batch sends it to, after what websockets holds for a
connection, and leaves a connection with an extension (compression) or websockets'
debug log to websockets.

Real websockets connections on 127.0.0.1; the server side's transport ``write`` is
wrapped only to see what it is asked to write."""

from __future__ import annotations

import msgpack
import pytest
from websockets.frames import Frame, Opcode

from rollbridge.server import wire
from rollbridge.server.outbox import Outbox
from tests.server.test_server_outbox import count_writes, pair, received


def websockets_frame(message: bytes | str) -> bytes:
    """What websockets' server side makes of ``message`` (unmasked, no extension)."""
    if isinstance(message, str):
        return Frame(Opcode.TEXT, message.encode()).serialize(mask=False, extensions=[])
    return Frame(Opcode.BINARY, message).serialize(mask=False, extensions=[])


@pytest.mark.parametrize("length", [0, 1, 125, 126, 127, 65535, 65536, 70000])
def test_a_frame_is_websockets_own_at_every_length_class(length):
    binary = bytes(range(256)) * (length // 256) + bytes(length % 256)
    assert wire.data_frame(binary) == websockets_frame(binary)
    text = ("ž" * length)[: max(0, length - 1)] + "x" * min(1, length)
    assert wire.data_frame(text) == websockets_frame(text)


def test_the_wires_make_a_message_s_frame_once_per_batch(monkeypatch):
    made: list[bytes | str] = []
    original = wire.data_frame

    def counting(message):
        made.append(message)
        return original(message)

    monkeypatch.setattr(wire, "data_frame", counting)
    wires = wire.Wires()
    event = msgpack.packb({"type": "event", "seq": 1})
    other = msgpack.packb({"type": "event", "seq": 1})  # equal bytes, another object
    assert wires.frame(event) is wires.frame(event)
    assert wires.frame(other) == wires.frame(event)
    assert made == [event, other]
    wires.clear()
    wires.frame(event)
    assert made == [event, other, event]


async def test_a_batch_s_bytes_on_the_wire_are_websockets_own():
    outbox = Outbox()
    async with pair(3, None) as [(a, a_client), (b, b_client), (c, c_client)]:
        writes = [count_writes(a), count_writes(b), count_writes(c)]
        event, result = msgpack.packb({"type": "event", "n": 1}), '{"type": "result"}'
        big = b"x" * 70_000
        with outbox.batch():
            outbox.send(a, event)
            outbox.send(a, result)
            outbox.send(b, event)
            outbox.send(c, big)
        assert writes[0] == [websockets_frame(event) + websockets_frame(result)]
        assert writes[1] == [websockets_frame(event)]
        assert writes[2] == [websockets_frame(big)]
        assert await received(a_client, 2) == [event, result]
        assert await received(b_client, 1) == [event]
        assert await received(c_client, 1) == [big]


async def test_a_batch_makes_a_message_s_frame_once_for_all_its_connections(monkeypatch):
    made: list[bytes | str] = []
    original = wire.data_frame
    monkeypatch.setattr(wire, "data_frame", lambda m: made.append(m) or original(m))
    outbox = Outbox()
    event, gm_event = msgpack.packb({"seq": 1}), msgpack.packb({"seq": 1, "gm": True})
    async with pair(3, None) as connections:
        with outbox.batch():
            for server_side, _ in connections:
                outbox.send(server_side, event)
            outbox.send(connections[0][0], gm_event)
        assert made == [event, gm_event]  # once each, not once per connection
        for _, client in connections:
            assert await received(client, 1) == [event]
        assert await received(connections[0][1], 1) == [gm_event]


async def test_what_websockets_holds_for_a_connection_is_written_before_the_batch_s():
    outbox = Outbox()
    async with pair(1, None) as [(a, a_client)]:
        writes = count_writes(a)
        a.protocol.send_binary(b"held by websockets")  # made, not yet written
        with outbox.batch():
            outbox.send(a, b"the batch's")
        held, batch = websockets_frame(b"held by websockets"), websockets_frame(b"the batch's")
        assert writes == [held + batch]
        assert await received(a_client, 2) == [b"held by websockets", b"the batch's"]


@pytest.mark.parametrize("how", ["deflate", "debug"])
async def test_a_connection_with_an_extension_or_a_debug_log_has_its_frames_made_by_websockets(
    how,
):
    outbox = Outbox()
    async with pair(1, compression="deflate" if how == "deflate" else None) as [(a, a_client)]:
        assert bool(a.protocol.extensions) == (how == "deflate")
        made: list[bytes] = []
        original = a.protocol.send_binary

        def send_binary(data, fin=True):
            made.append(bytes(data))
            original(data, fin)

        a.protocol.send_binary = send_binary
        if how == "debug":
            a.protocol.debug = True  # a debug log names each frame websockets makes
        with outbox.batch():
            outbox.send(a, b"one")
            outbox.send(a, b"two")
        assert made == [b"one", b"two"]
        assert await received(a_client, 2) == [b"one", b"two"]
