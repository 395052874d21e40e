"""What a client sent, in words, where it is no JSON value: the values only msgpack
carries (an extension, binary data) and the numbers JSON has no word for (NaN, an
infinity), named in a refusal's ``got`` (:mod:`rollbridge.schema`) and where a
request's field name or a frame is not what it must be. A JSON value is named by
its JSON type by the callers themselves."""

from __future__ import annotations

import math
from typing import Any

from rollbridge.plain import SentExtension, SentTimestamp
from rollbridge.text import Messages, Text

__all__ = ["any_kind", "sent_kind"]

say = Messages("rollbridge")
# Translators: what a frame held instead of a map, in "a frame must hold a map, not
# {kind}", or a request's field name instead of a string: one word for both, so in
# the nominative (write frame.map so that its {kind} stands in it: "…; it holds: {kind}").
_NUMBER = say("frame.kind.number", "a number")
_KINDS = {
    list: say("frame.kind.array", "an array"),
    dict: say("frame.kind.map", "a map"),
    str: say("frame.kind.string", "a string"),
    int: _NUMBER,
    float: _NUMBER,
    bool: say("frame.kind.boolean", "a boolean"),
    type(None): say("frame.kind.null", "null"),
}
_OTHER = say("frame.kind.other", "another value")
# Translators: what a client sent instead of the type a field wants, in
# "must be string, got {got}"; {code} is the extension's type number (-128 to 127).
EXTENSION = say("sent.extension", "a msgpack extension value (type {code})")
# Translators: as sent.extension; {size} is the number of bytes.
BINARY = say.plural(
    "sent.binary",
    "msgpack binary data ({size} byte)",
    "msgpack binary data ({size} bytes)",
    count="size",
)
# Translators: as sent.extension: a floating-point NaN.
NAN = say("sent.nan", "NaN (not a number)")
# Translators: as sent.extension: a floating-point infinity.
INFINITE = say("sent.infinite", "an infinite number")


def sent_kind(value: Any) -> Text | None:
    """``value`` named in words when it is none of JSON's values (a msgpack
    extension, binary data, a NaN or infinite number); None for a JSON value."""
    kind = value.__class__
    if kind is SentExtension:
        return EXTENSION(code=value.code)
    if kind is SentTimestamp:  # msgpack's own extension type, read by the codec itself
        return EXTENSION(code=-1)
    if kind is bytes or kind is bytearray:
        return BINARY(size=len(value))
    if kind is float and not math.isfinite(value):
        return NAN() if math.isnan(value) else INFINITE()
    return None


def any_kind(value: Any) -> Text:
    """What ``value`` (anything a client's frame can hold) is, in words: a JSON
    value's kind (``a number``, ``an array``), else :func:`sent_kind`'s words."""
    return sent_kind(value) or _KINDS.get(value.__class__, _OTHER)()
