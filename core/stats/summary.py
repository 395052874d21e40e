"""The counts of roll statistics: per die size, and per actor or session."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from rollbridge.plain import JSON

__all__ = ["MAX_LISTED_FACES", "DieCounts", "Summary"]

#: Dice up to this many faces list every face in their distribution (0 for a face
#: never shown); larger ones list only the faces shown.
MAX_LISTED_FACES = 100


@dataclass(slots=True)
class DieCounts:
    """The faces shown by the dice of one size."""

    faces: int
    #: How many times each face was shown (a :class:`~collections.Counter`: a
    #: group's faces are added in bulk, :mod:`rollbridge.stats.faces`).
    shown: Counter[int] = field(default_factory=Counter)
    explosions: int = 0

    @property
    def count(self) -> int:
        """Faces shown (every roll of every die)."""
        return sum(self.shown.values())

    @property
    def total(self) -> int:
        """The sum of the faces shown."""
        return sum(face * n for face, n in self.shown.items())

    def add(self, face: int) -> None:
        """Count one face shown."""
        self.shown[face] += 1

    def to_dict(self) -> JSON:
        """As the ``stats`` reply carries it (docs/statistics.md)."""
        count = self.count
        listed = range(1, self.faces + 1) if self.faces <= MAX_LISTED_FACES else sorted(self.shown)
        return {
            "count": count,
            "sum": self.total,
            "mean": self.total / count if count else None,
            "expected": (self.faces + 1) / 2,
            "faces": {str(face): self.shown.get(face, 0) for face in listed},
            "explosions": self.explosions,
        }


@dataclass(slots=True)
class Summary:
    """The statistics of one actor, or of a whole session."""

    rolls: int = 0
    dice: dict[int, DieCounts] = field(default_factory=dict)
    successes: int = 0
    botches: int = 0
    #: The ruleset's counts by key.
    ruleset: dict[str, int] = field(default_factory=dict)

    def die(self, faces: int) -> DieCounts:
        """The counts of dice with ``faces`` faces (made on first use)."""
        found = self.dice.get(faces)
        if found is None:
            found = self.dice[faces] = DieCounts(faces)
        return found

    def listed(self) -> int:
        """The faces its reply lists (:meth:`DieCounts.to_dict`), every die size's:
        each ``"face":count`` pair is 5 bytes of the reply at least."""
        return sum(
            d.faces if d.faces <= MAX_LISTED_FACES else len(d.shown) for d in self.dice.values()
        )

    @property
    def explosions(self) -> int:
        """Explosions over every die size."""
        return sum(d.explosions for d in self.dice.values())

    def to_dict(self, labels: tuple[tuple[str, str], ...]) -> JSON:
        """As the ``stats`` reply carries it; ``labels``: the ruleset's keys in order
        with their labels rendered."""
        return {
            "rolls": self.rolls,
            "dice": {str(f): self.dice[f].to_dict() for f in sorted(self.dice)},
            "successes": self.successes,
            "botches": self.botches,
            "explosions": self.explosions,
            "ruleset": [
                {"key": key, "label": label, "value": self.ruleset.get(key, 0)}
                for key, label in labels
            ],
        }
