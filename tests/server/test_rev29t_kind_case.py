"""texts29 named what a frame holds instead of a map and what a field name is instead
of a string with one set of words (``frame.kind.*``, ``sent.*``) in two sentences,
one wanting the accusative ("a frame must hold a map, not {kind}") and one the
nominative ("field names are strings, not {kind}"). The Czech words were accusative
("ne logickou hodnotu" read after "názvy polí jsou řetězce"), an extension's words
nominative ("rámec musí obsahovat mapu, ne rozšiřující hodnota"), and German and
Russian said "nicht ein Wahrheitswert" and "а не строка" after "enthalten" and
"содержать". Each sentence now has its words in the nominative, in every language:
against a real server over real WebSockets."""

from __future__ import annotations

import msgpack

from .conftest import Peer

#: locale → (a frame holding true, a frame holding an extension, a boolean field name)
SAID = {
    "cs": (
        "rámec musí obsahovat mapu; obsahuje: logická hodnota",
        "rámec musí obsahovat mapu; obsahuje: rozšiřující hodnota msgpack (typ 5)",
        "požadavek je mapa, jejíž názvy polí jsou řetězce, ne logická hodnota",
    ),
    "de": (
        "ein Frame muss eine Map enthalten; er enthält: ein Wahrheitswert",
        "ein Frame muss eine Map enthalten; er enthält: ein msgpack-Erweiterungswert (Typ 5)",
        "eine Anfrage ist eine Map, deren Feldnamen Zeichenketten sind, nicht ein Wahrheitswert",
    ),
    "ru": (
        "фрейм должен содержать словарь; он содержит: логическое значение",
        "фрейм должен содержать словарь; он содержит: значение-расширение msgpack (тип 5)",
        "запрос — это словарь, имена полей которого — строки, а не логическое значение",
    ),
    "en": (
        "a frame must hold a map, not a boolean",
        "a frame must hold a map, not a msgpack extension value (type 5)",
        "a request is a map whose field names are strings, not a boolean",
    ),
}


async def _refusal(peer: Peer, frame: bytes, code: str) -> str:
    await peer.connection.send(frame)
    await peer.wait_for(lambda p: None in p.replies)
    reply = peer.replies.pop(None)
    assert reply["code"] == code, reply
    return reply["message"]


async def test_what_a_frame_or_a_field_name_is_reads_in_the_nominative(make_tables):
    world = await make_tables()
    for locale, (boolean, extension, key) in SAID.items():
        gm, _ = await world.join("tally", "gm", binary=True, locale=locale)
        assert await _refusal(gm, msgpack.packb(True), "undecodable") == boolean
        assert (
            await _refusal(gm, msgpack.packb(msgpack.ExtType(5, b"xy")), "undecodable") == extension
        )
        sent = msgpack.packb({"type": "ping", "id": "p", True: 1})
        assert await _refusal(gm, sent, "invalid_request") == key
