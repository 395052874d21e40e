"""Lines of cells in columns that line up on a terminal, by display width.

A terminal gives a letter of East Asian width "wide" or "fullwidth" (日, ｗ) two
cells and a combining mark (the accent of a decomposed "é") none, so ``str.ljust``,
which counts code points, misaligns every column after such a cell; the labels of
``table list`` in another language are no longer as wide as the English ones either.

The widths are the ``wcwidth`` package's (:func:`display_width`): an emoji is more
than its code points' widths — "❤️" is a narrow heart made an emoji by VS16 (two
cells), "1️⃣" a digit, VS16 and a keycap (two), "👨‍👩‍👧" three wide emoji joined
by ZWJ into one (two), "👍🏽" an emoji and its skin tone (two), "🇨🇿" two regional
indicators (two) — and which code points make such a sequence, and which are wide,
grows with each Unicode version (Python's :mod:`unicodedata` knows neither the emoji
sequences nor the emoji of a Unicode newer than its own). ``wcwidth`` keeps those
tables, for the latest Unicode, as terminals draw them; rollbridge would have to copy
them. It is imported when a width is first asked for, not by every CLI command.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rollbridge.visible import CONTROLS

__all__ = ["aligned", "display_width"]

#: What separates two columns.
GAP = "  "
#: A ZWJ before a letter or a digit: ZWJ joins emoji into one (👨‍👩‍👧, Unicode's
#: grapheme rule GB11), letters into nothing a terminal draws as one cell (a Persian
#: or Indic joining form is still two letters); ``wcwidth`` counts whatever follows a
#: ZWJ as joined to what is before it, so such a ZWJ is left out before counting.
_LETTER_JOINER = re.compile("\u200d(?=[^\\W_])")


def display_width(text: str) -> int:
    """The cells ``text`` takes on a terminal, as ``wcwidth.wcswidth`` counts them: two
    for a wide or fullwidth letter and for an emoji sequence (VS16, a keycap, ZWJ, a
    skin tone, a flag), none for a combining mark or a zero-width format character
    (ZWJ, U+200B), one for a soft hyphen (U+00AD, which terminals draw) and any other;
    a letter after a ZWJ counts (:data:`_LETTER_JOINER`).
    A control character (:data:`~rollbridge.visible.CONTROLS`, which ``wcwidth`` gives
    no width) counts as none: a cell meant for a terminal holds it as an escape."""
    from wcwidth import wcswidth  # (not imported by every CLI command)

    if "\u200d" in text:
        text = _LETTER_JOINER.sub("", text)
    width = wcswidth(text)
    return width if width >= 0 else wcswidth(CONTROLS.sub("", text))


def aligned(rows: Sequence[Sequence[str]]) -> list[str]:
    """Each row's cells, every column but the last padded to its widest cell's display
    width and the columns :data:`GAP` apart; one line per row, without its newline."""
    if not rows:
        return []
    columns = len(rows[0])
    widths = [max(display_width(row[i]) for row in rows) for i in range(columns - 1)]
    lines = []
    for row in rows:
        cells = [cell + " " * (widths[i] - display_width(cell)) for i, cell in enumerate(row[:-1])]
        lines.append(GAP.join([*cells, row[-1]]))
    return lines
