"""The record of every die rolled, as resolutions carry it and clients show it.

A :class:`Die` is one physical die on the table: the faces, every roll it made
(a compounding die that shows 6, 6, 3 has three rolls and counts 15), the value
it finally counts for, whether it is kept, and tags that say what happened to
it. A :class:`DiceGroup` is the dice of one test (an attack test, a resistance
test, a wild die) with its label, formula, total, target number and successes.

Tags used by the core (rulesets may add their own):

``exploded``   this die's roll triggered one more die (Foundry's ``x``)
``explosion``  this die was added by an explosion
``compounded`` this die rolled again on its maximum and added (``rolls`` holds each step)
``dropped``    not counted (keep/drop, the lower of best-of-two)
``rerolled``   replaced by a reroll; the replacement follows it
``reroll``     the replacement of a rerolled die
``success`` / ``failure``  met / missed the target number
``min`` / ``max``  value clamped by a min/max modifier
``wild``       a wild die
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["DiceGroup", "Die"]


@dataclass(frozen=True, slots=True)
class Die:
    """One die: its faces, each roll it made, the value it counts for."""

    faces: int
    rolls: tuple[int, ...]
    value: int
    kept: bool = True
    tags: tuple[str, ...] = ()

    @classmethod
    def single(cls, faces: int, result: int) -> Die:
        """A die that was rolled once and counts its face."""
        return cls(faces, (result,), result)

    def tagged(self, *tags: str, kept: bool | None = None) -> Die:
        """A copy with ``tags`` added (kept unchanged unless given)."""
        new_tags = self.tags + tuple(t for t in tags if t not in self.tags)
        still_kept = self.kept if kept is None else kept
        return Die(self.faces, self.rolls, self.value, still_kept, new_tags)

    def to_dict(self) -> dict[str, Any]:
        """The die as plain data (JSON and msgpack)."""
        data: dict[str, Any] = {"faces": self.faces, "rolls": list(self.rolls), "value": self.value}
        if not self.kept:
            data["kept"] = False
        if self.tags:
            data["tags"] = list(self.tags)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Die:
        """Rebuild a die from :meth:`to_dict` output."""
        return cls(
            faces=int(data["faces"]),
            rolls=tuple(int(r) for r in data["rolls"]),
            value=int(data["value"]),
            kept=bool(data.get("kept", True)),
            tags=tuple(data.get("tags", ())),
        )


@dataclass(frozen=True, slots=True)
class DiceGroup:
    """The dice of one test, with what they were rolled against and what they gave.

    A ruleset may give ``label`` and ``note`` as texts (:class:`rollbridge.text.Text`)
    and mark any field but ``dice`` and ``tags`` as one actor's detail
    (:class:`rollbridge.text.Private`): the engine renders and hides them per audience.
    ``actor`` names the actor who rolled the dice where that is not the event's
    acting actor (a defender's resistance test): statistics count them for it.
    ``roll`` is the ruleset's name for the roll the group shows (a wilddie roll
    record's ``id``), where a later reroll may show it again.
    A group tagged ``reroll`` shows an earlier roll again with some dice rerolled (a
    chip): ``earlier`` is the seq of the event that showed that roll (its
    resolution's :attr:`~rollbridge.contract.ActionContext.seq`) and ``roll`` that
    roll's name, where ``rollbridge verify`` matches the dice it shows again with that
    event's group of the same actor and name (docs/dice.md).
    """

    label: Any  # str, or a rollbridge.text.Text
    dice: tuple[Die, ...]
    formula: Any = ""  # str, or a rollbridge.text.Private
    total: Any = None  # int | None, or a rollbridge.text.Private
    target: Any = None  # int | None, or a rollbridge.text.Private
    successes: Any = None  # int | None, or a rollbridge.text.Private
    note: Any = ""  # str, or a rollbridge.text.Text / Private
    tags: tuple[str, ...] = field(default=())
    actor: str | None = None
    earlier: int | None = None
    roll: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The group as plain data; absent facts are left out."""
        data: dict[str, Any] = {"label": self.label, "dice": list(map(Die.to_dict, self.dice))}
        for key in ("formula", "total", "target", "successes", "note"):
            value = getattr(self, key)
            if value not in (None, ""):
                data[key] = value
        if self.tags:
            data["tags"] = list(self.tags)
        if self.actor is not None:
            data["actor"] = self.actor
        if self.earlier is not None:
            data["earlier"] = self.earlier
        if self.roll is not None:
            data["roll"] = self.roll
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DiceGroup:
        """Rebuild a group from :meth:`to_dict` output.

        :raises ValueError: ``earlier`` is not a whole number (nor absent), or ``roll``
            not a string.
        """
        earlier, roll = data.get("earlier"), data.get("roll")
        if earlier is not None and (not isinstance(earlier, int) or isinstance(earlier, bool)):
            raise ValueError(f"a dice group's earlier must be a seq, not {earlier!r}")
        if roll is not None and not isinstance(roll, str):
            raise ValueError(f"a dice group's roll must be a string, not {roll!r}")
        return cls(
            label=str(data["label"]),
            dice=tuple(Die.from_dict(d) for d in data.get("dice", ())),
            formula=str(data.get("formula", "")),
            total=data.get("total"),
            target=data.get("target"),
            successes=data.get("successes"),
            note=str(data.get("note", "")),
            tags=tuple(data.get("tags", ())),
            actor=data.get("actor"),
            earlier=earlier,
            roll=roll,
        )
