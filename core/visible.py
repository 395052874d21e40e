"""Text from a table made inert for a terminal: its control characters shown, not obeyed.

A terminal acts on control characters: ESC starts a sequence that can clear the
screen, retitle the window or move the cursor, BEL rings, CR and LF let the rest of
a text pass for a line of its own. What players and GMs write (a roll's label, an
actor's name) reaches other people's terminals through ``rollbridge connect`` and
exported logs, so each C0 control, DEL and C1 control in it, and the Unicode line
and paragraph separators (U+2028, U+2029, a line break to ``str.splitlines`` and
to many a reader), is written as its Python escape (``\\x1b``, ``\\n``, ``\\x85``,
``\\u2028``), visible and harmless; every other character, non-Latin letters and
emoji included, stays as it is. The server's text log escapes them so too
(:func:`rollbridge.server.logs.one_line` is this).
"""

from __future__ import annotations

import re
import shlex
from typing import Any

__all__ = [
    "BIDI_CONTROLS",
    "CONTROLS",
    "NOT_IN_NAMES",
    "inert_json",
    "shell_word",
    "visible",
    "visible_data",
]

#: The bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069),
#: as a regular expression's character class: they reorder what follows them.
BIDI_CONTROLS = "\u202a-\u202e\u2066-\u2069"
#: C0 controls, DEL, C1 controls (NEL, U+0085, among them) and the line and paragraph
#: separators, as a character class: every character after which a reader may see a
#: new line, and the terminal's escape sequences.
_CONTROLS = "\x00-\x1f\x7f-\x9f\u2028\u2029"
#: :data:`_CONTROLS`, as a regular expression.
CONTROLS = re.compile(f"[{_CONTROLS}]")
#: :data:`CONTROLS` and the bidirectional controls: what a name or a request id — text
#: one person gives and every other reads — may not hold (rollbridge.names,
#: rollbridge.engine.requests). Joiners (an emoji's ZWJ, a Persian ZWNJ) and the
#: marks U+200E, U+200F are not among them: names need them.
NOT_IN_NAMES = re.compile(f"[{_CONTROLS}{BIDI_CONTROLS}]")
#: What JSON lets stand in a string as it is but a terminal obeys (DEL, C1: U+009B is
#: CSI) or a reader takes for a line break (U+0085, U+2028, U+2029: str.splitlines).
_RAW_IN_JSON = re.compile("[\x7f-\x9f\u2028\u2029]")
#: The C1 controls, and U+2028, U+2029, as UTF-8 writes them (patterns that begin
#: with a literal byte, which the regex engine finds by a fast search).
_C1_UTF8 = re.compile(b"\xc2[\x80-\x9f]")
_SEPARATORS_UTF8 = re.compile(b"\xe2\x80[\xa8\xa9]")


def visible(text: str, *, keep_newlines: bool = False) -> str:
    """``text`` with each control character (:data:`CONTROLS`) written as its escape
    (``\\x1b``, ``\\n``, ``\\u2028``), ``\\n`` kept where ``keep_newlines``; the same
    text when it has none."""

    def escape(match: re.Match[str]) -> str:
        char = match.group()
        return char if char == "\n" and keep_newlines else repr(char)[1:-1]

    return CONTROLS.sub(escape, text)


def shell_word(text: str) -> str:
    """``text`` (a path) as one word of a command the operator copies into a shell:
    :func:`shlex.quote`'s, or where it holds a control character, bash's (and zsh's,
    ksh's) ``$'…'`` with each of them written as its escape (``$'b\\x1bk\\n.db'``):
    visible on the terminal, and the same name again once the shell reads it."""
    if not CONTROLS.search(text):
        return shlex.quote(text)

    def escape(char: str) -> str:
        if char in "\\'":
            return "\\" + char
        if CONTROLS.match(char):  # \xHH is a byte to bash: past ASCII, \u (its UTF-8)
            return f"\\x{ord(char):02x}" if ord(char) < 0x80 else f"\\u{ord(char):04x}"
        return char

    return "$'" + "".join(map(escape, text)) + "'"


def visible_data(value: Any) -> Any:
    """``value`` (decoded JSON or msgpack) with every string in it, keys included,
    made :func:`visible`; a copy where anything changed."""
    if isinstance(value, str):
        return visible(value)
    if isinstance(value, dict):
        return {visible_data(k): visible_data(v) for k, v in value.items()}
    if isinstance(value, list):
        return [visible_data(item) for item in value]
    return value


def inert_json(text: str | bytes) -> str:
    """JSON ``text`` (``json.dumps(..., ensure_ascii=False)``, whose C0 controls are
    escapes already; or the UTF-8 bytes of such text, as orjson writes it) with DEL,
    each C1 control and U+2028, U+2029 written as a ``\\u`` escape too: the same data
    when read back, but one line for every reader and nothing a terminal obeys.
    (Such characters stand only inside strings in JSON text, where the escape means
    the same.) Text without them — nearly all — is found so by byte searches alone
    (an event's view is encoded on every change: the pattern over its text costs ~15 µs,
    the searches under 1 µs in English and a few in Czech)."""
    raw = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    text = text.decode("utf-8") if isinstance(text, bytes) else text
    if raw.isascii():
        return text.replace("\x7f", "\\u007f") if b"\x7f" in raw else text
    if not (
        b"\x7f" in raw
        or (b"\xc2" in raw and _C1_UTF8.search(raw) is not None)
        or ((b"\xa8" in raw or b"\xa9" in raw) and _SEPARATORS_UTF8.search(raw) is not None)
    ):
        return text
    return _RAW_IN_JSON.sub(lambda found: f"\\u{ord(found.group()):04x}", text)
