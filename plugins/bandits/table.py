"""BD-5: the harm table, its English texts and the seed's Russian original.

One :class:`Band` per row of the table, from the worst result down. The English
texts are messages (:mod:`.messages`, ``bandits.table.*``: the rules file's
rendering): the narration, steps and dice notes carry them as texts, the outcome
as English strings (:meth:`Band.to_dict`). ``text_ru`` is the seed's line, verbatim
(the seed writes ranges with an ASCII hyphen), kept as data.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rollbridge.text import Text

from .messages import TABLE_EXTRA, TABLE_ROW, TROUBLE_ONLY, WOUNDS, english

__all__ = ["BANDS", "Band", "band_for"]


@dataclass(frozen=True, slots=True)
class Band:
    """One row of the harm table; its texts are made once, with the row."""

    low: int | None  # None: no lower bound (3−)
    high: int | None  # None: no upper bound (22+)
    wounds: int
    text_ru: str
    #: The wounds it deals (``2 wounds``, ``trouble only``).
    wounds_text: Text = field(init=False, compare=False)
    #: What it does to an extra.
    extra_text: Text = field(init=False, compare=False)
    #: The row: range, wounds, and what it does to an extra.
    text: Text = field(init=False, compare=False)
    #: The row as an outcome carries it, in English (see :meth:`to_dict`).
    data: dict[str, object] = field(init=False, compare=False)

    def __post_init__(self) -> None:
        wounds = WOUNDS(count=self.wounds) if self.wounds else TROUBLE_ONLY()
        object.__setattr__(self, "wounds_text", wounds)
        object.__setattr__(self, "extra_text", TABLE_EXTRA[self.wounds]())
        object.__setattr__(self, "text", TABLE_ROW[self.wounds]())
        wounds_en = english(WOUNDS, count=self.wounds) if self.wounds else english(TROUBLE_ONLY)
        data = {
            "range": self.label,
            "wounds": self.wounds,
            "wounds_text": wounds_en,
            "extra_text": english(TABLE_EXTRA[self.wounds]),
            "table_text": english(TABLE_ROW[self.wounds]),
            "table_text_ru": self.text_ru,
        }
        object.__setattr__(self, "data", data)

    @property
    def label(self) -> str:
        """The row's range as the rules print it: ``13–15``, ``22+``, ``3−``."""
        if self.high is None:
            return f"{self.low}+"
        if self.low is None:
            return f"{self.high}−"
        return f"{self.low}–{self.high}"

    def contains(self, total: int) -> bool:
        """Whether a harm total falls in this row."""
        return (self.low is None or total >= self.low) and (self.high is None or total <= self.high)

    def to_dict(self) -> dict[str, object]:
        """The row as an outcome carries it: range, wounds, its texts in English and
        the seed's Russian line (a fresh copy)."""
        return dict(self.data)


BANDS: tuple[Band, ...] = (
    Band(22, None, 7,
         "22+: 7 ран (статист убит и опознать его возможно удастся только с помощью ДНК-теста)"),
    Band(19, 21, 6, "19-21: 6 ран (статист убит, превращен в месиво)"),
    Band(16, 18, 5, "16-18: 5 ран (статист убит на месте)"),
    Band(13, 15, 4, "13-15: 4 раны (статист убит или вот-вот умрет)"),
    Band(10, 12, 3, "10-12: 3 раны (статист убит или скоро умрет)"),
    Band(7, 9, 2, "7-9: 2 раны (статист убит или вырублен иным способом)"),
    Band(4, 6, 1, "4-6: 1 рана (статист ранен либо, если уже был ранен, убит или вырублен)"),
    Band(None, 3, 0,
         "3- только неприятность (бандит может получить 1 рану вместо неприятности, "
         "а статист даже не ранен!)"),
)  # fmt: skip


def band_for(total: int) -> Band:
    """The row of the harm table for a harm total (any integer; no clamp, BD-3)."""
    for band in BANDS:
        if band.contains(total):
            return band
    raise AssertionError(f"the harm table has no row for {total}")  # pragma: no cover
