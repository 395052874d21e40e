"""The names people give tables and tokens: shown in pages, printed by the CLI and
written into the server's log, so they are text of one line — 1 to
:data:`MAX_NAME` characters, no control characters (a line break or an escape
sequence in a name could forge a log line or repaint an operator's terminal).

A name that holds a control character (C0, C1, DEL), a line or paragraph separator
or a bidirectional control (:data:`~rollbridge.visible.NOT_IN_NAMES`) is refused
with its own code, ``name_control`` (:class:`~rollbridge.exceptions.NameControl`),
naming the first such character (:func:`check_characters`); any other name that is
no name with ``invalid_request``."""

from __future__ import annotations

import re
import unicodedata

from rollbridge.exceptions import InvalidRequest, NameControl
from rollbridge.text import Messages
from rollbridge.visible import NOT_IN_NAMES

__all__ = ["MAX_NAME", "check_characters", "check_name", "shows_nothing"]

#: The longest name, in characters (as the longest actor name).
MAX_NAME = 200
#: What is drawn as nothing: Unicode's default-ignorable code points (joiners,
#: variation selectors, the Hangul fillers, the combining grapheme joiner, tags…) and
#: the blank Braille pattern. A name of these alone, or of them and spaces, shows
#: nothing.
_BLANK = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
    "\u202a-\u202e\u2060-\u206f\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff\\s]*"
)

say = Messages("rollbridge")
# Translators: {field} names the field (name); {limit} is a number of characters.
BAD_NAME = say(
    "name.invalid",
    "{field}: a name is 1 to {limit} characters of one line, without control characters",
)
# Translators: {field} names the field (name); {character} is a code point as U+000A.
CONTROL_IN_NAME = say(
    "name.control",
    "{field}: a name holds no control characters, line separators or bidirectional "
    "controls, and this one holds {character}",
)


def check_characters(name: str, field: str = "name") -> None:
    """Refuse ``name`` if it holds a control character (C0, C1, DEL), a line or
    paragraph separator (U+2028, U+2029) or a bidirectional control — before any
    blank is stripped: a name of a line break alone is no missing name.

    :raises NameControl: code ``name_control``, ``details.field`` ``field`` and
        ``details.character`` the first such character (``U+000A``).
    """
    found = NOT_IN_NAMES.search(name)
    if found is not None:
        character = f"U+{ord(found.group()):04X}"
        raise NameControl(
            CONTROL_IN_NAME(field=field, character=character),
            details={"field": field, "character": character},
        )


#: The prepended concatenation marks (U+0600 ARABIC NUMBER SIGN…): format characters
#: that are drawn, as a sign over the digits after them, or alone.
_DRAWN_FORMAT = frozenset(
    "\u0600\u0601\u0602\u0603\u0604\u0605\u06dd\u070f\u0890\u0891\u08e2\U000110bd\U000110cd"
)


def _drawn_as_nothing(character: str) -> bool:
    """Whether one character is drawn as nothing: a space, a default-ignorable code
    point, the blank Braille pattern, or a format character other than those drawn."""
    return _BLANK.fullmatch(character) is not None or (
        unicodedata.category(character) == "Cf" and character not in _DRAWN_FORMAT
    )


def shows_nothing(text: str) -> bool:
    """Whether ``text`` is drawn as nothing: empty, or each of its characters a space,
    a default-ignorable code point (zero-width spaces and joiners, variation
    selectors, the Hangul fillers…), the blank Braille pattern or a format character
    (the prepended concatenation marks, U+0600 and its kin, are drawn: not these)."""
    return all(map(_drawn_as_nothing, text))


def check_name(name: str, field: str = "name") -> str:
    """``name`` when it is one (see the module docstring).

    :raises InvalidRequest: naming ``field`` (a :class:`NameControl` for a control
        character: :func:`check_characters`).
    """
    check_characters(name, field)
    if (
        not 1 <= len(name) <= MAX_NAME
        or shows_nothing(name)
        or any(unicodedata.category(c) == "Cs" for c in name)  # (not valid Unicode)
    ):
        raise InvalidRequest(BAD_NAME(field=field, limit=MAX_NAME), details={"field": field})
    return name
