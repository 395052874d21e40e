"""``rollbridge.visible.inert_json``: the escapes it writes, and its byte searches.

Every JSON frame, export line and ``--json`` answer passes through it, so text
without DEL, a C1 control, U+2028 or U+2029 — nearly all — is recognised by byte
searches before the pattern runs (the pattern over an event's ~3 KB view cost ~15 µs
a frame). This holds those searches to the pattern's answer: for random text of
the characters that matter and of their UTF-8 neighbours (``é`` ends in the byte
of U+2029's last, ``«`` and NBSP begin with the C1 controls' first), the result is
the pattern's, for str and bytes alike, and reads back as the same data.
"""

from __future__ import annotations

import json
import random

import pytest

from rollbridge.visible import inert_json

#: The characters escaped, and others sharing bytes of their UTF-8 with them.
CHARS = [
    "a", "\\", '"', "\n", "\x7f", "\x80", "\x85", "\x9b", "\x9f", "\xa0", "«", "©", "é",
    "č", "Ж", "\u2027", "\u2028", "\u2029", "\u202a", "\u202f", "–", "−", "🎲",
]  # fmt: skip


def expected(text: str) -> str:
    return "".join(
        f"\\u{ord(c):04x}" if 0x7F <= ord(c) <= 0x9F or c in "\u2028\u2029" else c for c in text
    )


@pytest.mark.parametrize("seed", range(4))
def test_inert_json_escapes_exactly_what_the_pattern_would(seed):
    chosen = random.Random(seed)
    for _ in range(5000):
        value = "".join(chosen.choice(CHARS) for _ in range(chosen.randint(0, 12)))
        text = json.dumps({"x": value, "y": [value, 1]}, ensure_ascii=False)
        assert inert_json(text) == inert_json(text.encode("utf-8")) == expected(text), value
        assert json.loads(inert_json(text)) == json.loads(text)


def test_text_without_them_comes_back_as_it_is():
    for text in ('{"a":"plain"}', '{"a":"Příliš žluťoučký kůň − 1\u00a0000 «»"}', "{}"):
        assert inert_json(text) == text
        assert inert_json(text.encode("utf-8")) == text
