"""What a Foundry log's own fields hold, checked against the event they carry
(``rollbridge verify``, docs/dice.md, "A dialect's own fields").

A Foundry client's log holds, beside each plain protocol frame, what this adapter
made of it (outbound.py): the ``foundry`` fields the module posts as chat cards and
writes into actors' flags, and a GM frame's ``players`` copy, from which the module
posts the card every player reads. verify resolves the plain frame again; this
checks the rest against it:

- a frame's Foundry fields are what :func:`outbound.translate` makes of its plain
  frame (``outbound.plain``) — the rolls' dice and totals, speaker, flavor and
  content, each actor view's ``foundry``, the welcome's ``foundry`` and its
  ``players`` actors' — exactly, for the adapter version that wrote the log;
- a GM frame's ``players`` copy's own Foundry fields are what the adapter makes of
  it (that the copy is the same event and shows only the event's dice is checked for
  every dialect: :func:`rollbridge.export.dialects.players_unlike`).

What the players' copy holds beyond that — its data with the GM's private values
hidden, its texts, its actors' players' views — is the server's view of a stored
event, not derived from the GM's view here (docs/dice.md says why).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from rollbridge.adapter import recovered_resume

from .outbound import plain
from .outbound import translate as _translate

__all__ = ["missing", "translate", "unlike", "written_by"]


def written_by(frame: Mapping[str, Any]) -> str | None:
    """The adapter version a ``welcome``'s ``foundry.adapter`` names, else None."""
    if frame.get("type") != "welcome":
        return None
    foundry = frame.get("foundry")
    version = foundry.get("adapter") if isinstance(foundry, Mapping) else None
    return version if isinstance(version, str) else None


def translate(message: Mapping[str, Any], version: str) -> dict[str, Any]:
    """What the adapter made of ``message``, a traceback of a shape it cannot translate
    not logged (:func:`outbound.translate`: its ``foundry.error``, as it was sent)."""
    return _translate(message, version, quiet=True)


def unlike(frame: Mapping[str, Any], version: str) -> str | None:
    """The first path of ``frame`` (a line of a Foundry client's log) whose Foundry
    content is not what adapter ``version`` makes of the plain frame, or None. A
    frame holding nothing of the dialect (a plain client's) is None. A ``welcome``'s
    own ``foundry.adapter`` is the version it names (:func:`written_by`): whether that
    version made the log's other lines is the caller's to weigh, and an older
    version's log whose lines this one makes alike verifies."""
    bare = plain(frame)
    if bare == frame:
        return None
    version = written_by(frame) or version
    own = {key: value for key, value in frame.items() if key != "players"}
    made = translate(bare, version)
    if frame.get("type") == "welcome" and "players" in frame:
        made["players"] = translate({**bare, "players": frame["players"]}, version).get("players")
        own["players"] = frame["players"]
    found = _first_difference(own, made, "")
    if found is not None or frame.get("type") != "event" or "players" not in frame:
        return found
    return _players(frame, version)


def missing(
    frame: Mapping[str, Any], welcome: Mapping[str, Any], version: str, kinds: frozenset[str]
) -> str | None:
    """The first Foundry field a line of a Foundry log lacks (its ``welcome`` names the
    adapter: :func:`written_by`), or None. :func:`unlike` takes a line holding nothing
    of the dialect for a plain client's; in a log the adapter wrote, the server sent
    every such line through it, so a line the adapter adds to (a roll's card, an actor
    view's flags) that holds none of it was stripped: the first path the translation
    has and the line not. In a GM's log, the ``players`` copy (core/protocol/members.py)
    of an event of ``kinds`` that is not GM-only, of a GM-only one that changed actors
    (its ``actors``), and of a snapshot welcome (no resume, or one not recovered as the
    server sends one: :func:`rollbridge.adapter.recovered_resume`)."""
    if plain(frame) == frame:
        found = _first_difference(dict(frame), translate(frame, written_by(welcome) or version), "")
        if found is not None:
            return found
    if welcome.get("role") != "gm" or "players" in frame:
        return None
    if frame.get("type") == "event":
        shown = frame.get("actors") if frame.get("gm_only") else frame.get("kind") in kinds
        return "players" if shown else None
    if frame.get("type") == "welcome":
        return None if recovered_resume(frame) else "players"
    return None


def _players(frame: Mapping[str, Any], version: str) -> str | None:
    """Where a GM frame's ``players`` copy's Foundry fields are not the adapter's (that
    it is the same event, showing only the event's dice, is the protocol's check:
    :func:`rollbridge.export.dialects.players_unlike`)."""
    players = frame["players"]
    if not isinstance(players, Mapping):
        return None  # not the same event: players_unlike's
    # a copy without the fields the adapter gives it (its card's rolls, its actors'
    # flags) is one the adapter did not make: compared as every other
    return _first_difference(dict(players), translate(plain(players), version), "players")


def _first_difference(logged: Any, made: Any, path: str) -> str | None:
    """The first path at which ``logged`` (a log's line) and ``made`` (what the adapter
    makes) differ, or None: compared whole first (an honest line, the common case),
    each value's type too (``true`` is not ``1``, nor ``1.0``, as Python's ``==``
    would have them), then, made as it reads back from JSON (tuples as lists), walked."""
    if logged == made and _same(logged, made):
        return None
    return _difference(logged, json.loads(json.dumps(made, ensure_ascii=False)), path)


def _same(logged: Any, made: Any) -> bool:
    """Whether ``logged`` and ``made`` are the same JSON, each value's type too (what
    ``==`` does not see: ``True == 1 == 1.0``); a tuple of ``made`` is not a list
    here, for the walk to judge. A value the line and the translation share (the
    plain frame's, which the translation keeps) is itself."""
    if logged is made:
        return True
    kind = type(logged)
    if kind is not type(made):
        return False
    if kind is dict:
        return all(_same(value, made[key]) for key, value in logged.items())
    if kind is list:
        return all(map(_same, logged, made))
    return True


def _difference(logged: Any, made: Any, path: str) -> str | None:
    """The first path at which ``logged`` and ``made`` differ, or None."""
    if isinstance(logged, Mapping) and isinstance(made, Mapping):
        for key in sorted(logged.keys() | made.keys(), key=str):
            where = f"{path}.{key}" if path else str(key)
            if key not in logged or key not in made:
                return where
            found = _difference(logged[key], made[key], where)
            if found is not None:
                return found
        return None
    if isinstance(logged, list) and isinstance(made, list):
        if len(logged) != len(made):
            return path
        for index, (one, other) in enumerate(zip(logged, made, strict=True)):
            found = _difference(one, other, f"{path}.{index}")
            if found is not None:
                return found
        return None
    same = type(logged) is type(made) and logged == made
    return None if same else path
