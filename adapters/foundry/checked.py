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
- a GM frame's ``players`` copy is the same event (table, epoch, seq, and kind, or
  ``hidden`` of a GM-only one), its own Foundry fields what the adapter makes of
  it, and every die it shows one the GM's event shows (no players' copy shows a die
  the event did not roll, nor a total its dice do not make).

What the players' copy holds beyond that — its data with the GM's private values
hidden, its texts, its actors' players' views — is the server's view of a stored
event, not derived from the GM's view here (docs/dice.md says why).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from typing import Any

from rollbridge.dice.verify import shown_dice

from .outbound import plain, translate

__all__ = ["unlike", "written_by"]

#: The fields a players' copy shares with the GM's frame it rides in.
_SAME = ("type", "table", "epoch", "seq")


def written_by(frame: Mapping[str, Any]) -> str | None:
    """The adapter version a ``welcome``'s ``foundry.adapter`` names, else None."""
    if frame.get("type") != "welcome":
        return None
    foundry = frame.get("foundry")
    version = foundry.get("adapter") if isinstance(foundry, Mapping) else None
    return version if isinstance(version, str) else None


def unlike(frame: Mapping[str, Any], version: str) -> str | None:
    """The first path of ``frame`` (a line of a Foundry client's log) whose Foundry
    content is not what adapter ``version`` makes of the plain frame, or None. A
    frame holding nothing of the dialect (a plain client's) is None."""
    bare = plain(frame)
    if bare == frame:
        return None
    own = {key: value for key, value in frame.items() if key != "players"}
    made = _as_logged(translate(bare, version))
    if frame.get("type") == "welcome" and "players" in frame:
        made_players = _as_logged(translate({**bare, "players": frame["players"]}, version))
        made["players"] = made_players.get("players")
        own["players"] = frame["players"]
    found = _difference(own, made, "")
    if found is not None or frame.get("type") != "event" or "players" not in frame:
        return found
    return _players(frame, version)


def _players(frame: Mapping[str, Any], version: str) -> str | None:
    """Where a GM frame's ``players`` copy is not the same event, its Foundry fields
    not the adapter's, or shows a die the GM's event does not."""
    players = frame["players"]
    if not isinstance(players, Mapping):
        return "players"
    for key in _SAME:
        if players.get(key) != frame.get(key):
            return f"players.{key}"
    hidden = frame.get("gm_only") and players.get("kind") == "hidden"
    if not hidden and players.get("kind") != frame.get("kind"):
        return "players.kind"
    if plain(players) != players:
        made = _as_logged(translate(plain(players), version))
        found = _difference(dict(players), made, "players")
        if found is not None:
            return found
    shown = Counter(shown_dice(players.get("data")))
    if shown - Counter(shown_dice(frame.get("data"))):
        return "players.data"
    return None


def _as_logged(value: Any) -> Any:
    """``value`` as a log's line reads back (JSON: tuples as lists)."""
    return json.loads(json.dumps(value, ensure_ascii=False))


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
