"""Stored private forms in the outcome of an event written before they were read.

Since 7 December 2026 (commit eb0f4ee9) the engine reads a stored private form a
ruleset builds into a resolution's outcome — ``{"private": 7, "of": "orc",
"aspect": "armor"}``, and ``instead`` — as the :class:`~rollbridge.text.Private` it
stands for (:func:`~rollbridge.text.extract`): players' outcome leaves it out, or
shows its ``instead``. An event written before kept such a map as data, and every
reading of it sent the NPC's number to players: a reconnect's backfill, ``state``'s
events, ``table export --as player``.

Events written since carry a mark (:data:`MARK`, on those with an outcome, a
resolution's or a turn hook's): read back, they are taken as they are. An event
without it has its outcomes walked once, when it is read from the store
(:meth:`Event.from_dict <rollbridge.engine.model.Event.from_dict>`), each form in
them read as a today's event holds it: its value in the data and a private mark
beside it. Nothing is walked on the way out (a view): the event read so is one
like today's. An event stored before texts were data (no texts, no marks, no time)
is left as it is: players get none of its details anyway
(:mod:`rollbridge.engine.legacy`).

What was stored as a bare value cannot be told from data and is not hidden: a
:class:`~rollbridge.text.Private` inside an ``instead`` (every version before dropped
its mark), or a stored form inside one that the versions from eb0f4ee9 until the
mark read as its value — players read such an old ``instead`` as they did then.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rollbridge.plain import JSON, NotPlain
from rollbridge.text import extract, instead_in_outcome

__all__ = ["MARK", "has_outcome", "read_forms"]

#: The stored event's key that says its outcomes' forms were read when it was made.
MARK = "forms"


def has_outcome(data: JSON) -> bool:
    """Whether an event's ``data`` holds an outcome: a resolution's, or a hook's."""
    return "outcome" in data or "hooks" in data


def read_forms(data: JSON, texts: list[list[Any]], private: list[list[Any]]) -> bool:
    """Each stored private form in ``data``'s outcomes (an unmarked event's) read as
    its value, ``private`` given its mark, ``texts`` following what moved (a text in
    a form's ``private`` is now at the form's place; one in its ``instead`` is the
    mark's). Changes the three in place; whether every outcome was read. An outcome
    that cannot be read so (nested past what an outcome may be: no version stored
    one) is left as it is, and False said: the event keeps no mark when stored again
    (review plugins-23), so whatever reads it later reads it anew."""
    if not (texts or private):  # written before texts were data: withheld as such
        return True
    read = True
    outcomes = list(_outcomes(data))
    for index, entry in enumerate(private):  # an instead, as made since, in an outcome
        if len(entry) > 3 and any(_under(entry[0], prefix) for prefix, _ in outcomes):
            instead, left = instead_in_outcome(entry[3])
            if instead is not entry[3] or not left:
                private[index] = [*entry[:3], instead, *entry[4:]] if left else entry[:3]
    for prefix, outcome in outcomes:
        try:
            found, _, marked = extract({"outcome": outcome})
        except NotPlain:
            read = False
            continue
        if not marked:
            continue
        _put(data, prefix, found["outcome"])
        for entry in sorted(marked, key=lambda entry: len(entry[0])):
            where = [*prefix, *entry[0]]
            texts[:] = _texts_moved(texts, where, entry)
            private.append([where, *entry[1:]])
    return read


def _outcomes(data: JSON) -> Iterator[tuple[list[Any], Any]]:
    """``(path, outcome)`` of each outcome map in ``data``: ``[]`` for its own."""
    if isinstance(data.get("outcome"), dict):
        yield [], data["outcome"]
    hooks = data.get("hooks")
    if isinstance(hooks, list):
        for index, hook in enumerate(hooks):
            if isinstance(hook, dict) and isinstance(hook.get("outcome"), dict):
                yield ["hooks", index], hook["outcome"]


def _under(path: Any, prefix: list[Any]) -> bool:
    """Whether a mark's ``path`` is in the outcome of ``prefix`` (:func:`_outcomes`)."""
    return (
        isinstance(path, list)
        and len(path) > len(prefix)
        and path[: len(prefix)] == prefix
        and path[len(prefix)] == "outcome"
    )


def _put(data: JSON, prefix: list[Any], outcome: Any) -> None:
    if prefix:
        data["hooks"][prefix[1]] = {**data["hooks"][prefix[1]], "outcome": outcome}
    else:
        data["outcome"] = outcome


def _texts_moved(texts: list[list[Any]], where: list[Any], entry: list[Any]) -> list[list[Any]]:
    """``texts`` after the form at ``where`` was read: a path into its ``private`` now
    leads to its place; one to its ``instead`` marks the entry's ``instead`` a text
    (``entry`` gets the mark), one inside that, and the place itself, go."""
    kept = []
    depth = len(where)
    for path in texts:
        if path[:depth] != where:
            kept.append(path)
            continue
        if len(path) == depth:
            continue
        step = path[depth]
        if step == "private":
            kept.append([*where, *path[depth + 1 :]])
        elif step == "instead" and len(path) == depth + 1 and len(entry) > 3:
            entry[4] = True
    return kept
