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
beside it. A text in an outcome is not walked into: a form among its arguments
is the renderer's to read (as it reads one in a today's event's text), not a value
of the outcome — read as one, it left the text without that argument for players,
and every reading of it logged a WARNING that the message had lost it. Nothing is
walked on the way out (a view): the event read so is one like today's. An event
stored before texts were data (no texts, no marks, no time) is left as it is:
players get none of its details anyway
(:mod:`rollbridge.engine.legacy`).

What was stored as a bare value cannot be told from data and is not hidden: a
:class:`~rollbridge.text.Private` inside an ``instead`` (every version before dropped
its mark), or a stored form inside one that the versions from eb0f4ee9 until the
mark read as its value — players read such an old ``instead`` as they did then.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from rollbridge.plain import JSON, NotPlain
from rollbridge.text import extract, instead_in_outcome, stored_private

__all__ = ["MARK", "before_texts", "has_outcome", "holds_nobodys_form", "read_forms"]

#: The stored event's key that says its outcomes' forms were read when it was made.
MARK = "forms"


def has_outcome(data: JSON) -> bool:
    """Whether an event's ``data`` holds an outcome: a resolution's, or a hook's."""
    return "outcome" in data or "hooks" in data


def before_texts(kind: str, data: JSON, texts: list[Any], private: list[Any], at: Any) -> bool:
    """Whether an event (its ``kind``, ``data``, ``texts``, ``private`` marks and time
    ``at``) was stored before texts were data: no texts, no private marks, no time
    (``at``, recorded since 2 December 2026), and a resolution or turn hook narrated
    in a plain string — withheld from players whole
    (:func:`rollbridge.engine.legacy.before_texts`), its outcomes never read. An
    event with a time but no texts nor marks (a ruleset narrating in plain strings)
    is no such event: its outcomes' forms are read as any other's."""
    if texts or private or at is not None:
        return False
    if kind == "resolution":
        return isinstance(data.get("narration"), str)
    hooks = data.get("hooks")
    return isinstance(hooks, list) and any(
        isinstance(entry, Mapping) and isinstance(entry.get("narration"), str) for entry in hooks
    )


def holds_nobodys_form(data: JSON) -> bool:
    """Whether an outcome in ``data`` holds a stored private form of no actor (``of``
    null, read as private since 615ab8e7): an event marked (:data:`MARK`) from
    eb0f4ee9 (6 December 2026, 23:47 UTC) until then kept such a form as data, mark
    and all, and players were sent its value; it is read again as an unmarked one
    (:func:`read_forms`). Every other form of a marked outcome was read when it was
    made. A walk of the outcomes alone, as deep as they go."""
    stack: list[Any] = [outcome for _, outcome in _outcomes(data)]
    while stack:
        value = stack.pop()
        if value.__class__ is dict:
            if (
                value.get("of", 0) is None
                and "private" in value
                and stored_private(value) is not None
            ):
                return True
            stack.extend(v for v in value.values() if v.__class__ in (dict, list))
        elif value.__class__ is list:
            stack.extend(v for v in value if v.__class__ in (dict, list))
    return False


def read_forms(data: JSON, texts: list[list[Any]], private: list[list[Any]]) -> bool:
    """Each stored private form in ``data``'s outcomes (an unmarked event's) read as
    its value, ``private`` given its mark, ``texts`` following what moved (a text in
    a form's ``private`` is now at the form's place; one in its ``instead`` is the
    mark's). Changes the three in place; whether every outcome was read. An outcome
    that cannot be read so (nested past what an outcome may be: no version stored
    one) is left as it is, and False said: the event keeps no mark when stored again
    (review plugins-23), so whatever reads it later reads it anew. Not for an event
    stored before texts were data (:func:`before_texts`: withheld as such, which a
    mark read here would end) — only that, not an event merely without texts nor
    marks: one with a time was sent to players as it was, forms and all."""
    read = True
    outcomes = list(_outcomes(data))
    for index, entry in enumerate(private):  # an instead, as made since, in an outcome
        if len(entry) > 3 and any(_under(entry[0], prefix) for prefix, _ in outcomes):
            instead, left = instead_in_outcome(entry[3])
            if instead is not entry[3] or not left:
                private[index] = [*entry[:3], instead, *entry[4:]] if left else entry[:3]
    for prefix, outcome in outcomes:
        set_aside = _set_texts_aside(outcome, [p[len(prefix) + 1 :] for p in texts
                                               if _under(p, prefix)])  # fmt: skip
        try:
            found, _, marked = extract({"outcome": outcome})
        except NotPlain:
            read = False
            continue
        finally:
            for container, key, text in set_aside:
                container[key] = text
        if not marked:
            continue
        found = _texts_back(found)
        for entry in marked:
            if len(entry) > 3:
                entry[3] = _texts_back(entry[3])
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


class _Aside:
    """Where a text stood while an outcome's forms were read: :func:`extract` keeps
    an object it does not know as it is, so a form inside the text is not read."""

    __slots__ = ("text",)

    def __init__(self, text: Any) -> None:
        self.text = text


def _set_texts_aside(outcome: Any, paths: list[list[Any]]) -> list[tuple[Any, Any, Any]]:
    """Each text at ``paths`` (inside ``outcome``) replaced by an :class:`_Aside`
    holding it, in place; ``(container, key, text)`` of each, to put them back."""
    aside = []
    for path in sorted(paths, key=len, reverse=True):  # a text inside a text's args first
        container = outcome
        try:
            for step in path[:-1]:
                container = container[step]
            text = container[path[-1]]
        except (KeyError, IndexError, TypeError):
            continue  # no text there (a mark inside a form's instead, moved below)
        if isinstance(text, dict) and "id" in text:
            container[path[-1]] = _Aside(text)
            aside.append((container, path[-1], text))
    return aside


def _texts_back(value: Any) -> Any:
    """``value`` (read by :func:`extract`) with each :class:`_Aside` its text again:
    changed in place where it holds one (the maps and lists that hold one are the
    read's copies), or the text itself for one alone."""
    if isinstance(value, _Aside):
        return value.text
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, _Aside | dict | list):
                value[key] = _texts_back(item)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, _Aside | dict | list):
                value[index] = _texts_back(item)
    return value


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
