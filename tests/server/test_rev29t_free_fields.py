"""A value only msgpack carries, sent where a request leaves the data free (an
actor's sheet or state, a table's settings, a ruleset's params) or as a field name
there, or among an enum's options, is named in words in the client's language, like
everywhere else a request is checked (texts29): before rev29t such a refusal named
Python's classes — "SentExtension values are not allowed", "bytes values are not
allowed" — or echoed Python's repr (``got b'\\x00\\x01'``). Refused, nothing stored:
against a real server over real WebSockets."""

from __future__ import annotations

import msgpack
import pytest
from websockets.asyncio.client import connect

from rollbridge.exceptions import InvalidParams
from rollbridge.plain import unpack_received
from rollbridge.schema import validate

from .conftest import Peer

EXT = msgpack.ExtType(5, b"xy")
BIN = b"\x00\x01"
#: value sent → how it is named, per language (as tests/server/test_texts29_msgpack_types.py).
WORDS = {
    "en": ("a msgpack extension value (type 5)", "msgpack binary data (2 bytes)"),
    "cs": ("rozšiřující hodnota msgpack (typ 5)", "binární data msgpack (2 bajty)"),
    "de": ("ein msgpack-Erweiterungswert (Typ 5)", "msgpack-Binärdaten (2 Byte)"),
    "ru": ("значение-расширение msgpack (тип 5)", "двоичные данные msgpack (2 байта)"),
}


def _requests(value, as_key):
    """Requests with ``value`` in a free place (as a field name when ``as_key``)."""
    free = {value: 1} if as_key else {"body": value}
    nested = {"a": [1, {value: 2} if as_key else {"b": value}]}
    return [
        {"type": "actor.create", "actor": {"id": "x1", "name": "X", "sheet": free}},
        {"type": "actor.create", "actor": {"id": "x2", "name": "X", "sheet": {}, "state": nested}},
        {"type": "settings", "settings": free},
    ]


@pytest.mark.parametrize("as_key", [False, True], ids=["value", "field_name"])
async def test_a_msgpack_value_in_a_free_field_is_named_in_words(make_tables, as_key):
    world = await make_tables()
    for locale, (ext_words, bin_words) in WORDS.items():
        gm, _ = await world.join("tally", "gm", binary=True, locale=locale)
        before = await gm.request({"type": "roll", "formula": "1d6"})
        for value, words in ((EXT, ext_words), (BIN, bin_words)):
            for message in _requests(value, as_key):
                refused = await gm.request(message)
                assert refused["code"] in ("invalid_request", "invalid_params"), refused
                assert refused["message"].endswith(words), (locale, message, refused)
                assert "SentExtension" not in refused["message"]
        after = await gm.request({"type": "roll", "formula": "1d6"})
        assert after["seq"] == before["seq"] + 1  # nothing stored between


async def test_a_msgpack_timestamp_is_named_as_the_extension_it_is(make_tables):
    """msgpack's timestamp (extension type -1) is read by the codec itself, never by
    ``unpack_received``'s ``ext_hook``: before rev29t it reached the checks as
    ``msgpack.Timestamp`` and was refused "got Timestamp" (Python's class name, in
    every language) or "Timestamp values are not allowed"."""
    world = await make_tables()
    stamp = msgpack.Timestamp(1, 5)
    words = {
        "en": "a msgpack extension value (type -1)",
        "cs": "rozšiřující hodnota msgpack (typ -1)",
        "de": "ein msgpack-Erweiterungswert (Typ -1)",
        "ru": "значение-расширение msgpack (тип -1)",
    }
    for locale, named in words.items():
        gm, _ = await world.join("tally", "gm", binary=True, locale=locale)
        before = await gm.request({"type": "roll", "formula": "1d6"})
        for message in (
            {"type": "roll", "formula": "2d6", "label": stamp},
            {"type": "roll", "formula": "2d6", "dice": stamp},
            *_requests(stamp, as_key=False),
            *_requests(stamp, as_key=True),
        ):
            refused = await gm.request(message)
            assert refused["code"] == "invalid_request", refused
            assert refused["message"].endswith(named), (locale, message, refused)
        after = await gm.request({"type": "roll", "formula": "1d6"})
        assert after["seq"] == before["seq"] + 1


async def test_an_enum_refusal_names_an_array_or_map_by_its_type(make_tables):
    """An enum's refusal quoted the repr of any value: an array or a map holding a
    msgpack extension or binary data read ``got [SentExtension(1, <0 bytes>)]`` or
    ``got {'k': b'z'}`` (Python's words, an internal class). Named by JSON type now."""
    world = await make_tables()
    for sent, named in (
        ([msgpack.ExtType(1, b"")], "array"),
        ({"k": BIN}, "object"),
        (EXT, WORDS["en"][0]),
    ):
        peer = Peer(await connect(world.server.url), binary=True)
        world.peers.append(peer)  # closed with the world
        hello = {"type": "hello", "table": "tally", "token": world.tokens["tally"]["gm"]}
        refused = await peer.request({**hello, "results": sent})
        assert refused["code"] == "invalid_request", refused
        assert refused["message"] == f"hello.results: must be one of 'full', 'brief', got {named}"


async def test_russian_names_what_was_sent_where_its_case_fits(make_tables):
    """Russian's field-name and enum refusals put what was sent after "должны быть
    строками, а не" (the instrumental case): the words for a msgpack value (texts29,
    rev29t) are nominative, so they now follow "получено:" instead."""
    world = await make_tables()
    gm, _ = await world.join("tally", "gm", binary=True, locale="ru")
    refused = await gm.request({"type": "settings", "settings": {BIN: 1}})
    assert refused["message"] == (
        "settings.settings: имена полей должны быть строками; "
        "получено: двоичные данные msgpack (2 байта)"
    )
    # an enum (a ruleset's params; the core's requests hold none after hello, whose
    # refusal is said before its locale is taken)
    with pytest.raises(InvalidParams) as refused_enum:
        validate({"enum": ["full", "brief"]}, unpack_received(msgpack.packb(EXT)))
    assert refused_enum.value.render("ru") == (
        "params: должно быть одним из 'full', 'brief'; "
        "получено: значение-расширение msgpack (тип 5)"
    )
