"""Text from a table (names, narration, labels) made inert in Markdown.

Whatever a GM or a ruleset wrote is shown as the text it is: no Markdown markup
and no HTML (a name ``<img src=x onerror=alert(1)>`` reads as itself, never as an
element, in any Markdown renderer). ``<`` and ``&`` become character references
(no tag, no autolink, no entity can start); the characters of emphasis, code and
strikethrough, and the bracket that would close a link's text, are escaped with a
backslash; line breaks become spaces, any other control character its escape (``\\x1b``:
:func:`~rollbridge.visible.visible`, so a report read with ``cat`` repaints no
terminal), and a text is only ever written after the report's own words on a line,
so it never starts a block (a heading, a list) of its own.
"""

from __future__ import annotations

import re

from rollbridge.visible import visible

__all__ = ["inline"]

#: Emphasis, code and strikethrough; and the ``](`` or ``][`` that closes a link's
#: text (a bracket alone makes no link, and a reference needs a line of its own).
_MARKUP = re.compile(r"([\\`*_~])|(\])(?=[(\[])")
_ENTITIES = {"&": "&amp;", "<": "&lt;"}


def inline(text: str) -> str:
    """``text`` as inert inline Markdown (see the module docstring)."""
    text = visible(" ".join(str(text).split()))
    text = _MARKUP.sub(lambda m: "\\" + (m.group(1) or m.group(2)), text)
    return "".join(_ENTITIES.get(c, c) for c in text)
