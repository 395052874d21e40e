"""Where each actor stands among a table's actors, as events take actors out and put
them in.

A table lists its actors in order (the order of :attr:`Table.actors
<rollbridge.engine.table.Table.actors>`, which ``welcome`` and ``state`` show and
every store keeps). An event's change record (:class:`~rollbridge.engine.model.Event`)
that takes an actor out of the table (``after`` None) carries ``index``: the actor's
place among the table's actors before the event. One that puts an actor in (``before``
None) carries ``index`` when it puts it back at a place — the undo of a removal —
rather than last: its place after the event. So an index always counts the actors
on the side of the change where the actor is.

Taking changes to one side (:func:`apply`: their ``after`` side applies an event,
their ``before`` side walks back over it) takes out every actor that side lacks,
replaces the others in their place, then puts in those with an index at it (the
lowest first) and the rest last, in the order of the changes. Walking back over a
removal puts the actor back where it stood; an undo of it does the same, and so
does every table that follows the log or loads it again. Events stored before
changes carried an index have none: an actor they put back goes last, as it did
then.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TypeVar

from rollbridge.plain import JSON

__all__ = ["apply", "index", "placed", "places", "unplaced"]

V = TypeVar("V")


def index(change: JSON) -> int | None:
    """A change record's ``index`` (None when it has none, or not an integer)."""
    found = change.get("index")
    return found if found.__class__ is int else None


def unplaced(changes: Iterable[JSON]) -> bool:
    """Whether ``changes`` take an actor out without its place (a removal stored
    before changes carried an index): walking back over them puts it last, which
    may not be where it stood."""
    return any(c["after"] is None and c["before"] is not None and index(c) is None for c in changes)


def places(changes: Iterable[JSON], side: str) -> dict[str, int]:
    """The places of the actors ``changes`` put in, taken to ``side`` (``before`` or
    ``after``): each change that has an actor only on that side, and an index."""
    other = "before" if side == "after" else "after"
    found: dict[str, int] = {}
    for change in changes:
        at = index(change)
        if at is not None and change[side] is not None and change[other] is None:
            found[change["actor"]] = at
    return found


def placed(
    actors: Mapping[str, V], updates: Mapping[str, V | None], where: Mapping[str, int]
) -> dict[str, V]:
    """``actors`` with ``updates`` applied: None takes an actor out, a value replaces
    an actor's in its place; a new actor goes at its place in ``where`` (the lowest
    first; a place past the end is the end) or else last, in the order of ``updates``."""
    kept: list[tuple[str, V]] = []
    for key, value in actors.items():
        update = updates.get(key, value)
        if update is not None:
            kept.append((key, update))
    new = [(key, v) for key, v in updates.items() if v is not None and key not in actors]
    for key, value in sorted((p for p in new if p[0] in where), key=lambda p: where[p[0]]):
        kept.insert(max(0, min(where[key], len(kept))), (key, value))
    kept += [pair for pair in new if pair[0] not in where]
    return dict(kept)


def apply(
    actors: dict[str, V], changes: Sequence[JSON], side: str, make: Callable[[JSON], V]
) -> None:
    """Take ``changes`` to ``side`` in ``actors`` (see the module docstring), each
    record on that side made into a value by ``make``. Changes that only replace
    records (nearly every event's) replace them in place."""
    if all(c["before"] is not None and c["after"] is not None for c in changes):
        for change in changes:
            actors[change["actor"]] = make(change[side])
        return
    updates = {c["actor"]: None if c[side] is None else make(c[side]) for c in changes}
    after = placed(actors, updates, places(changes, side))
    actors.clear()
    actors.update(after)
