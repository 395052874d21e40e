"""A hello refused for a field other than its locale is answered in the language its
locale asked for (docs/protocol.md, Languages: error messages come in the locale the
hello asked for). Before rev29t the locale was taken only once the whole hello had
passed its checks, so a Czech client whose hello held msgpack binary data read
"hello.client: must be string, got msgpack binary data (2 bytes)" in English, the
words texts29 translated never shown: against a real server over real WebSockets."""

from __future__ import annotations

from websockets.asyncio.client import connect

from .conftest import Peer

SAID = {
    "cs": "hello.client: musí být typu string, ne binární data msgpack (2 bajty)",
    "de": "hello.client: muss vom Typ string sein, nicht msgpack-Binärdaten (2 Byte)",
    "ru": "hello.client: должно иметь тип string, а не двоичные данные msgpack (2 байта)",
}


async def test_a_refused_hello_is_answered_in_its_locale(make_tables):
    world = await make_tables()
    token = world.tokens["tally"]["gm"]
    for locale, said in SAID.items():
        peer = Peer(await connect(world.server.url), binary=True)
        world.peers.append(peer)  # closed with the world
        hello = {"type": "hello", "table": "tally", "token": token, "locale": locale}
        refused = await peer.request({**hello, "client": b"\x00\x01"})
        assert refused["code"] == "invalid_request", refused
        assert refused["message"] == said
        # and the same connection joins with a right hello, in that language
        welcome = await peer.request(hello)
        assert welcome["type"] == "welcome" and welcome["locale"] == locale, welcome
    # a locale that is itself wrong is no language: the refusal in English
    peer = Peer(await connect(world.server.url), binary=True)
    world.peers.append(peer)
    refused = await peer.request({"type": "hello", "table": "tally", "token": token,
                                  "locale": "cs" + " " * 40})  # fmt: skip
    assert refused["message"] == "hello.locale: must be at most 35 characters long", refused
