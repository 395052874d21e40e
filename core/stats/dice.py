"""The dice an event view shows: the groups of a roll, a resolution, a draw.

Only what the view holds is read, so a die the audience was not shown is never
counted (a GM-only event reaches players as ``{"kind": "hidden"}``: no dice).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["groups_of", "is_int"]


def is_int(value: Any) -> bool:
    """Whether ``value`` is an integer (not a boolean): a count the view shows."""
    return value.__class__ is int


def groups_of(view: Mapping[str, Any]) -> Iterator[tuple[str | None, Mapping[str, Any]]]:
    """The dice groups (:class:`~rollbridge.dice.records.DiceGroup` as data) of one
    event view, each with the actor who rolled them (the group's own ``actor`` where
    it names one, as a defender's resistance test does; else the event's ``actor``;
    a turn hook's own; None for none): a ``roll``'s groups, a resolution's dice (and its
    turn hooks'), a ``dice.drawn`` as one group of single rolls."""
    data = view.get("data")
    if not isinstance(data, Mapping):
        return
    kind = view.get("kind")
    actor = _actor(data)
    if kind == "roll":
        roll = data.get("roll")
        if isinstance(roll, Mapping):
            yield from ((actor, g) for g in _mappings(roll.get("groups")))
    elif kind == "dice.drawn":
        faces, results = data.get("faces"), data.get("results")
        if is_int(faces) and isinstance(results, list):
            dice = [{"faces": faces, "rolls": [r]} for r in results if is_int(r)]
            yield actor, {"dice": dice}
    else:
        yield from ((_actor(g) or actor, g) for g in _mappings(data.get("dice")))
        for hook in _mappings(data.get("hooks")):
            owner = _actor(hook)
            yield from ((_actor(g) or owner, g) for g in _mappings(hook.get("dice")))


def _actor(data: Mapping[str, Any]) -> str | None:
    actor = data.get("actor")
    return actor if actor.__class__ is str else None


def _mappings(value: Any) -> Iterator[Mapping[str, Any]]:
    if isinstance(value, list):
        yield from (item for item in value if isinstance(item, Mapping))
