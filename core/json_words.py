"""Why a text is not JSON, in the reader's language.

``json.JSONDecodeError.msg`` is Python's English ("Expecting property name enclosed
in double quotes"), and a Czech, German or Russian reader met it inside a sentence in
their own language (``--params``, ``connect``'s ``json``, a log ``verify`` reads). The
reasons Python's decoder gives are declared messages here, their English as Python
words them (without the dangling "at" of two: the sentence they stand in names the
place), so an English line reads as before; a reason it may give in a later version
keeps Python's own words."""

from __future__ import annotations

import json
import sys

from rollbridge.text import Messages, Text

__all__ = ["json_reason", "value_reason"]

say = Messages("rollbridge")

# Translators: why a text is not JSON, as Python's JSON decoder says it in English; a
# position ("at character 5") may follow it in the sentence it stands in. "property
# name" is an object's key; keep the JSON signs (":", ",", "\\", "\\uXXXX") as they are.
_BY_START = (
    ("Expecting value", say("json.expecting_value", "Expecting value")),
    (
        "Expecting property name enclosed in double quotes",
        say(
            "json.expecting_name",
            "Expecting property name enclosed in double quotes",
        ),
    ),
    ("Expecting ':' delimiter", say("json.expecting_colon", "Expecting ':' delimiter")),
    ("Expecting ',' delimiter", say("json.expecting_comma", "Expecting ',' delimiter")),
    (
        "Unterminated string starting at",
        say("json.unterminated", "Unterminated string"),
    ),
    ("Invalid control character", say("json.control", "Invalid control character")),
    ("Invalid \\uXXXX escape", say("json.unicode_escape", "Invalid \\uXXXX escape")),
    ("Invalid \\escape", say("json.escape", "Invalid \\escape")),
    ("Extra data", say("json.extra_data", "Extra data")),
    # A text that starts with a byte order mark (a lone one too): Python adds advice
    # to the programmer ("decode using utf-8-sig"), which a reader cannot follow.
    ("Unexpected UTF-8 BOM", say("json.bom", "Unexpected UTF-8 BOM")),
    (
        "Illegal trailing comma before end of object",
        say("json.trailing_comma_object", "Illegal trailing comma before end of object"),
    ),
    (
        "Illegal trailing comma before end of array",
        say("json.trailing_comma_array", "Illegal trailing comma before end of array"),
    ),
)


def json_reason(exc: json.JSONDecodeError) -> Text | str:
    """Why ``exc``'s text is not JSON, as a text argument: a declared message for the
    reasons above (rendered in the reader's language where it is shown), else
    Python's own words."""
    for start, words in _BY_START:
        if exc.msg.startswith(start):
            return words()
    return exc.msg


# Translators: why a text is not JSON: a number in it has more digits than Python
# reads (``limit``, 4300 unless the host set another).
_TOO_LONG = say("json.too_long", "Exceeds the limit ({limit} digits) for integer string conversion")


def value_reason(exc: ValueError) -> Text | str:
    """Why a text the JSON decoder refused with a plain :class:`ValueError` (a number
    of more digits than Python reads) is not JSON, as a text argument in the reader's
    language; else Python's words without its advice to the programmer."""
    if str(exc).startswith("Exceeds the limit"):
        return _TOO_LONG(limit=sys.get_int_max_str_digits())
    return str(exc).split(":", 1)[0]
