"""Every kind of value a client can send over msgpack where a request wants another
is refused ``invalid_request`` naming what was sent, in the client's language, and
changes nothing: against a real server over real WebSockets. Before (texts29): a
msgpack extension read as a tuple and was refused "must be string, got array" (and
accepted where an array was wanted), binary data "got bytes" (Python's name), a NaN
"got number", and a map with a non-string field name did not say what it was."""

from __future__ import annotations

import msgpack
import pytest

#: label sent → how the refusal names it, per language.
NAMED = {
    "extension": (msgpack.ExtType(5, b"xy"), {
        "en": "a msgpack extension value (type 5)",
        "cs": "rozšiřující hodnota msgpack (typ 5)",
        "de": "ein msgpack-Erweiterungswert (Typ 5)",
        "ru": "значение-расширение msgpack (тип 5)"}),
    "binary": (b"\x00\x01", {
        "en": "msgpack binary data (2 bytes)", "cs": "binární data msgpack (2 bajty)",
        "de": "msgpack-Binärdaten (2 Byte)", "ru": "двоичные данные msgpack (2 байта)"}),
    "nan": (float("nan"), {
        "en": "NaN (not a number)", "cs": "NaN (není číslo)", "de": "NaN (keine Zahl)",
        "ru": "NaN (не число)"}),
    "infinity": (float("-inf"), {
        "en": "an infinite number", "cs": "nekonečné číslo", "de": "eine unendliche Zahl",
        "ru": "бесконечное число"}),
}  # fmt: skip
KEY_NAMED = {"en": "not a number", "cs": "ne číslo", "de": "nicht eine Zahl", "ru": "а не число"}
LOCALES = ("en", "cs", "de", "ru")


@pytest.mark.parametrize("sent", sorted(NAMED))
async def test_a_value_only_msgpack_carries_is_named_in_each_language(make_tables, sent):
    world = await make_tables()
    value, words = NAMED[sent]
    for locale in LOCALES:
        gm, _ = await world.join("tally", "gm", binary=True, locale=locale)
        before = await gm.request({"type": "roll", "formula": "1d6"})
        for message in ({"type": "roll", "formula": "2d6", "label": value},
                        {"type": "roll", "formula": "2d6", "dice": [value, 3]}):  # fmt: skip
            refused = await gm.request(message)
            assert refused["code"] == "invalid_request", refused
            assert refused["message"].endswith(words[locale]), (locale, refused)
        after = await gm.request({"type": "roll", "formula": "1d6"})
        assert after["seq"] == before["seq"] + 1  # nothing changed between


async def test_an_extension_is_no_array_where_an_array_is_wanted(make_tables):
    world = await make_tables()
    gm, _ = await world.join("tally", "gm", binary=True)
    refused = await gm.request({"type": "roll", "formula": "2d6", "dice": msgpack.ExtType(5, b"")})
    assert refused["code"] == "invalid_request"
    assert refused["message"] == "roll.dice: must be array, got a msgpack extension value (type 5)"


async def test_a_field_name_that_is_no_string_is_named(make_tables):
    world = await make_tables()
    for locale in LOCALES:
        gm, _ = await world.join("tally", "gm", binary=True, locale=locale)
        await gm.connection.send(msgpack.packb({"type": "ping", "id": "p", 5: "x"}))
        await gm.wait_for(lambda peer: None in peer.replies)
        refused = gm.replies.pop(None)
        assert refused["code"] == "invalid_request"
        assert refused["message"].endswith(KEY_NAMED[locale]), (locale, refused)
