"""BD-5: the harm table, in English and in the seed's Russian original.

One :class:`Band` per row of the table, from the worst result down. The
English texts are the rules file's rendering; ``text_ru`` is the seed's line,
verbatim (the seed writes ranges with an ASCII hyphen).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["BANDS", "Band", "band_for"]


@dataclass(frozen=True, slots=True)
class Band:
    """One row of the harm table."""

    low: int | None  # None: no lower bound (3−)
    high: int | None  # None: no upper bound (22+)
    wounds: int
    wounds_text: str
    extra_text: str
    text_ru: str

    @property
    def label(self) -> str:
        """The row's range as the rules print it: ``13–15``, ``22+``, ``3−``."""
        if self.high is None:
            return f"{self.low}+"
        if self.low is None:
            return f"{self.high}−"
        return f"{self.low}–{self.high}"

    @property
    def text(self) -> str:
        """The row in English: range, wounds, and what it does to an extra."""
        return f"{self.label}: {self.wounds_text} (an extra: {self.extra_text})"

    def contains(self, total: int) -> bool:
        return (self.low is None or total >= self.low) and (self.high is None or total <= self.high)

    def to_dict(self) -> dict[str, object]:
        return {
            "range": self.label,
            "wounds": self.wounds,
            "wounds_text": self.wounds_text,
            "extra_text": self.extra_text,
            "table_text": self.text,
            "table_text_ru": self.text_ru,
        }


BANDS: tuple[Band, ...] = (
    Band(22, None, 7, "7 wounds", "killed; identifiable only by DNA test",
         "22+: 7 ран (статист убит и опознать его возможно удастся только с помощью ДНК-теста)"),
    Band(19, 21, 6, "6 wounds", "killed, reduced to pulp",
         "19-21: 6 ран (статист убит, превращен в месиво)"),
    Band(16, 18, 5, "5 wounds", "killed on the spot",
         "16-18: 5 ран (статист убит на месте)"),
    Band(13, 15, 4, "4 wounds", "killed or about to die",
         "13-15: 4 раны (статист убит или вот-вот умрет)"),
    Band(10, 12, 3, "3 wounds", "killed or soon to die",
         "10-12: 3 раны (статист убит или скоро умрет)"),
    Band(7, 9, 2, "2 wounds", "killed or knocked out",
         "7-9: 2 раны (статист убит или вырублен иным способом)"),
    Band(4, 6, 1, "1 wound", "wounded, or, if already wounded, killed or knocked out",
         "4-6: 1 рана (статист ранен либо, если уже был ранен, убит или вырублен)"),
    Band(None, 3, 0, "trouble only",
         "not even wounded (a bandit may take 1 wound instead of the trouble)",
         "3- только неприятность (бандит может получить 1 рану вместо неприятности, "
         "а статист даже не ранен!)"),
)  # fmt: skip


def band_for(total: int) -> Band:
    """The row of the harm table for a harm total (any integer; no clamp, BD-3)."""
    for band in BANDS:
        if band.contains(total):
            return band
    raise AssertionError(f"the harm table has no row for {total}")  # pragma: no cover
