"""Lines of cells in columns that line up on a terminal, by display width.

A terminal gives a letter of East Asian width "wide" or "fullwidth" (日, ｗ) two
cells and a combining mark (the accent of a decomposed "é") none, so ``str.ljust``,
which counts code points, misaligns every column after such a cell; the labels of
``table list`` in another language are no longer as wide as the English ones either.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

__all__ = ["aligned", "display_width"]

#: What separates two columns.
GAP = "  "


def display_width(text: str) -> int:
    """The cells ``text`` takes on a terminal: two for a wide or fullwidth letter,
    none for a combining mark or a zero-width format character, one for any other."""
    width = 0
    for char in text:
        if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


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
