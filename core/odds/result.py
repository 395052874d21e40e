"""The :class:`Odds` of an action: its named outcomes as exact fractions.

A ruleset's optional :meth:`~rollbridge.contract.Ruleset.odds` hook returns one
(docs/plugins.md, "Odds"): each named outcome (``"10+"``, ``"7-9"``, a band of a
table) with its exact probability, the probability no outcome covers
(``truncated``, e.g. cut off by an explosion depth), and, optionally, the
:class:`~rollbridge.odds.Distribution` of the roll's total.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from rollbridge.odds.distribution import Distribution
from rollbridge.odds.shares import share

__all__ = ["Odds"]


@dataclass(frozen=True, slots=True)
class Odds:
    """The exact outcome distribution of one action.

    :param outcomes: each named outcome → its probability, in the order to show
        them; the outcomes are disjoint, and with :attr:`truncated` sum to 1.
    :param truncated: the probability of what no outcome covers (0 unless the
        roll can explode past the depth computed).
    :param totals: the distribution of the roll's total, when there is one.
    :param labels: what people read for an outcome whose name is a word, not
        notation (``"1 raise"``): a :class:`~rollbridge.text.Text` per outcome name,
        rendered in the reader's language; an outcome without one reads as its name.
    """

    outcomes: Mapping[str, Fraction]
    truncated: Fraction = Fraction(0)
    totals: Distribution | None = field(default=None, compare=False)
    labels: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def label(self, name: str, locale: str = "en") -> str:
        """The outcome ``name`` as people read it in ``locale``."""
        text = self.labels.get(name)
        return name if text is None else text.render(locale)

    def to_dict(self, locale: str = "en", *, totals: bool = True) -> dict[str, Any]:
        """Plain data: fractions as ``"p/q"`` text, with floats beside them (and a
        base-10 logarithm where a float reads 0.0 and the probability is not 0:
        :mod:`rollbridge.odds.shares`), and each
        outcome's label in ``locale`` (``totals=False``: without the law of the total)."""
        return {
            "outcomes": [
                {
                    "outcome": name,
                    "label": self.label(name, locale),
                    **share(p),
                }
                for name, p in self.outcomes.items()
            ],
            **share(self.truncated, "truncated"),
            "totals": self.totals.to_dict() if totals and self.totals is not None else None,
        }
