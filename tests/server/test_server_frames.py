"""Serialise once, and what that must never break (Core issue, item 4), over real sockets.

- The broadcast's frame cache is keyed by the adapter *instance*: an adapter made per
  connection (``Adapter.connect``) may say different things to two clients of the
  same role and frame kind, and neither may be sent the other's frames.
- ``hello`` option ``results: "brief"``: a joined requester gets results that name
  the event they report (``seq``) without carrying it again; it arrives as an
  ``event`` frame just before. Clients that do not ask get the whole event, as in v1.
- Frames with an embedded, already-encoded view are the same messages as if encoded
  at once.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import msgpack
import pytest
from websockets.asyncio.client import connect

import rollbridge
from rollbridge.adapter import Adapter
from rollbridge.host import PluginHost
from rollbridge.stores.sqlite import SQLiteStore

from .conftest import Boom, Peer, seed_tables, start


def decode(frame: bytes | str) -> dict[str, Any]:
    return msgpack.unpackb(frame) if isinstance(frame, bytes) else json.loads(frame)


class Nametag(Adapter):
    """A dialect whose adapter is made per connection: it stamps every message it
    sends with the ``client`` name its connection's hello gave."""

    id = "nametag"
    name = "Name tag (test dialect)"

    def __init__(self, tag: str = "") -> None:
        self.tag = tag

    def connect(self, hello: Mapping[str, Any]) -> Adapter:
        return Nametag(str(hello.get("client", "")))

    def inbound(self, message: Mapping[str, Any]) -> dict[str, Any]:
        return dict(message)

    def outbound(self, message: Mapping[str, Any]) -> dict[str, Any]:
        return {**message, "tag": self.tag}


class NametagPlugin:
    @rollbridge.hookimpl
    def register_adapters(self, register) -> None:
        register(Nametag())


@pytest.fixture
async def world(tmp_path, tally):
    host = PluginHost(
        {"tally": Boom(tally), "nametag": NametagPlugin()},
        environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"},
    )
    path = tmp_path / "frames.db"
    seed = SQLiteStore(path)
    tokens = seed_tables(seed, host)
    seed.close()
    server, _store = await start(path, host)
    peers: list[Peer] = []

    async def join(role: str, **hello: Any) -> tuple[Peer, dict[str, Any]]:
        binary = hello.pop("binary", False)
        peer = Peer(await connect(server.url), binary)
        peers.append(peer)
        message = {"type": "hello", "table": "tally", "token": tokens["tally"][role], **hello}
        return peer, await peer.request(message)

    yield join
    for peer in peers:
        peer._reader.cancel()
    await server.stop()


async def test_per_connection_adapters_never_get_each_others_frames(world):
    gm, _ = await world("gm")
    alice, _ = await world("player", dialect="nametag", client="alice")
    bob, _ = await world("player", dialect="nametag", client="bob")
    done = await gm.request({"type": "roll", "formula": "3d6"})
    for peer, tag in ((alice, "alice"), (bob, "bob")):
        await peer.wait_for(lambda p: any(e["seq"] == done["seq"] for e in p.events))
        (event,) = [e for e in peer.events if e["seq"] == done["seq"]]
        assert event["tag"] == tag
    # and a plain client at the same table is sent no tag at all
    await gm.wait_for(lambda p: any(e["seq"] == done["seq"] for e in p.events))
    assert "tag" not in gm.events[-1]


@pytest.mark.parametrize("binary", [False, True], ids=["json", "msgpack"])
async def test_brief_results_name_the_event_that_came_just_before(world, binary):
    brief, _ = await world("gm", results="brief", binary=binary)
    full, _ = await world("gm", binary=binary)
    asked = await brief.send({"type": "roll", "formula": "2d6"})
    result = await brief.reply(asked)
    assert result["status"] == "done" and "event" not in result
    frames = [decode(f) for f in brief.frames]
    kinds = [(m["type"], m.get("seq"), m.get("id")) for m in frames[-2:]]
    assert kinds == [("event", result["seq"], None), ("result", result["seq"], asked)]
    # a client that did not ask for brief results gets the whole event, as in protocol v1
    again = await full.request({"type": "roll", "formula": "2d6"})
    assert again["event"]["seq"] == again["seq"] and again["event"]["kind"] == "roll"
    await full.wait_for(lambda p: any(e["seq"] == again["seq"] for e in p.events))
    shown = next(e for e in full.events if e["seq"] == again["seq"])
    assert {k: v for k, v in shown.items() if k not in ("type", "table")} == again["event"]


async def test_a_brief_repeat_is_answered_without_the_event_too(world):
    brief, _ = await world("gm", results="brief")
    first = await brief.request({"type": "roll", "id": "same", "formula": "1d20"})
    again = await brief.request({"type": "roll", "id": "same", "formula": "1d20"})
    assert again == first and "event" not in again


async def test_an_embedded_view_is_the_same_message_as_one_encoded_at_once(world):
    for binary in (False, True):
        peer, _ = await world("player", binary=binary)
        reply_id = await peer.send({"type": "roll", "formula": "4d6kh3", "label": "Příliš ☃"})
        reply = await peer.reply(reply_id)
        raw = next(f for f in reversed(peer.frames) if decode(f).get("id") == reply_id)
        decoded = decode(raw)
        assert decoded == reply
        assert reply["event"]["data"]["label"] == "Příliš ☃"
        if isinstance(raw, bytes):
            assert raw == msgpack.packb(decoded, use_bin_type=True)


@pytest.mark.parametrize("binary", [False, True])
async def test_a_connection_speaks_the_kind_of_its_hello(world, binary):
    """docs/protocol.md, Frames: once joined, every reply goes in the kind of the
    hello, whatever kind a request came in; before the hello, in the request's."""
    peer, welcome = await world("gm", binary=binary)
    hello_kind = bytes if binary else str
    assert type(peer.frames[-1]) is hello_kind and welcome["type"] == "welcome"
    peer.binary = not binary  # now send in the other kind
    for message in ({"type": "ping"}, {"type": "state"}, {"type": "no.such"}):
        before = len(peer.frames)
        reply = await peer.request(message)
        frame = peer.frames[before]
        assert type(frame) is hello_kind, f"{message['type']}: {type(frame).__name__} frame"
        assert reply["type"] in ("pong", "result", "error")
    # before a hello: the reply is in the request's own kind
    host, port = peer.connection.remote_address[:2]
    lone = Peer(await connect(f"ws://{host}:{port}/"))
    try:
        for lone.binary in (True, False):
            before = len(lone.frames)
            await lone.request({"type": "ping"})
            assert type(lone.frames[before]) is (bytes if lone.binary else str)
    finally:
        lone._reader.cancel()
