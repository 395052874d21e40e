"""A client log's dialect fields checked against the plain frames they carry
(``rollbridge verify``, docs/dice.md, "A dialect's own fields").

verify resolves every frame again as the plain protocol's, each installed adapter's
additions taken off (:meth:`~rollbridge.adapter.Adapter.plain`). What an adapter
added is what its client shows (the Foundry module's chat cards, its actors' flags):
each installed adapter says where a frame's additions are not what it makes of the
plain frame (:meth:`~rollbridge.adapter.Adapter.unlike`). Such a frame is a
mismatch (``wrong_dialect``), unless the log says another version of that adapter
wrote it (:meth:`~rollbridge.adapter.Adapter.written_by`, its ``welcome``): then
it is counted apart (``dialect_version``), neither passed nor called altered. A GM
frame's ``players`` copy (an adapter's ``public_view``: the frame a player is sent of
the same event, from which the dialect's client shows players the event) is held to
the frame it rides in whatever the version (:func:`players_unlike`). A line of a log
whose welcome names an adapter that lacks what that adapter gives it (stripped of all
its dialect fields, a GM frame of its ``players``:
:meth:`~rollbridge.adapter.Adapter.missing`) is ``wrong_dialect`` too, said so, and
so is a welcome holding none of an adapter's fields in a log another line of which
carries them (:func:`_unnamed`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rollbridge.adapter import Adapter
from rollbridge.dice.verify import Problem, shown_dice
from rollbridge.text import Messages

__all__ = ["DialectCheck", "check_dialects", "players_unlike"]

say = Messages("rollbridge")
# Translators: {part} is the path of a field in the line, as the log names it
# (foundry.rolls.0.total, players.data); {dialect} is an adapter's name (Foundry VTT).
WRONG_DIALECT = say(
    "verify.wrong_dialect",
    "seq {seq}: its {part} is not what the {dialect} adapter makes of the event it "
    "carries: what that client shows (its chat card, an actor's flags) was altered",
)
# Translators: the same of a line without a seq (a reply to the client's request).
WRONG_DIALECT_REPLY = say(
    "verify.wrong_dialect_reply",
    "a reply's {part} is not what the {dialect} adapter makes of the reply it carries: "
    "what that client shows (its chat card, an actor's flags) was altered",
)

# Translators: {part} is the path of a field the line lacks (foundry, players); {dialect}
# is an adapter's name (Foundry VTT), whose welcome opened the log.
LACKS_DIALECT = say(
    "verify.lacks_dialect",
    "seq {seq}: it lacks its {part}, which the {dialect} adapter gives every such line "
    "of a log its welcome says it wrote: the line was stripped of what that client shows",
)
# Translators: the same of a line without a seq (a reply to the client's request).
LACKS_DIALECT_REPLY = say(
    "verify.lacks_dialect_reply",
    "a reply lacks its {part}, which the {dialect} adapter gives every such line of a "
    "log its welcome says it wrote: the line was stripped of what that client shows",
)


def _said(seq: int | None, part: str, dialect: str, lacks: bool) -> str:
    """The problem's text: a line's dialect field unlike the adapter's, or lacking."""
    if lacks:
        if seq is None:
            return LACKS_DIALECT_REPLY(part=part, dialect=dialect)
        return LACKS_DIALECT(seq=seq, part=part, dialect=dialect)
    if seq is None:
        return WRONG_DIALECT_REPLY(part=part, dialect=dialect)
    return WRONG_DIALECT(seq=seq, part=part, dialect=dialect)


#: The fields a players' copy shares with the GM's frame it rides in.
_SAME = ("type", "table", "epoch", "seq")
#: Those it shares too unless it is the ``hidden`` stand-in of a GM-only event (which
#: has none of them): who asked, who acted, when (core/engine/views.py, event_view).
_SAME_SHOWN = ("request", "by", "at")


def players_unlike(frame: Mapping[str, Any]) -> str | None:
    """Where a GM ``event`` frame's ``players`` copy is not the same event as the frame
    (its table, epoch, seq, and kind — ``hidden`` of a GM-only one —, and but for a
    ``hidden`` one its request, author and time), or shows a die the
    frame's event does not (no total its dice do not make: every die of a copy whose
    data differs from the frame's is one of the frame's), or None."""
    if frame.get("type") != "event" or "players" not in frame:
        return None
    players = frame["players"]
    if not isinstance(players, Mapping):
        return "players"
    for key in _SAME:
        if players.get(key) != frame.get(key):
            return f"players.{key}"
    hidden = frame.get("gm_only") and players.get("kind") == "hidden"
    if not hidden and players.get("kind") != frame.get("kind"):
        return "players.kind"
    for key in () if hidden else _SAME_SHOWN:
        if (key in players, players.get(key)) != (key in frame, frame.get(key)):
            return f"players.{key}"
    if players.get("data") == frame.get("data"):  # nothing private in it: the same dice
        return None
    if Counter(shown_dice(players.get("data"))) - Counter(shown_dice(frame.get("data"))):
        return "players.data"
    return None


@dataclass(slots=True)
class DialectCheck:
    """What :func:`check_dialects` found: the frames whose additions differ (as
    problems), and how many of those a log written by another adapter version holds."""

    problems: list[Problem] = field(default_factory=list)
    other_version: int = 0


def check_dialects(
    entries: Iterable[Mapping[str, Any]], adapters: Iterable[Adapter]
) -> DialectCheck:
    """Check each entry of a log (in order, its lines numbered from 1) against each
    of ``adapters``: see the module docstring."""
    adapters = list(adapters)
    # the adapter whose GM frames carry the players' copy (its own field: ``players``)
    copier = next((a for a in adapters if "players" in a.event_fields), None)
    check = DialectCheck()
    written: dict[str, str] = {}
    # the welcome that named each adapter: a line of its log lacking its fields is one
    opened: dict[str, Mapping[str, Any]] = {}
    # the adapters some line carries the fields of, and the welcomes before any named
    # one that hold none of its fields: such a welcome was stripped (_unnamed)
    carried: set[str] = set()
    plain_welcomes: dict[str, list[tuple[int, Mapping[str, Any]]]] = {}
    for position, entry in enumerate(entries, start=1):
        if not isinstance(entry, Mapping):
            continue
        part = players_unlike(entry) if copier is not None else None
        if part is not None:
            seq = entry.get("seq") if isinstance(entry.get("seq"), int) else None
            text = WRONG_DIALECT(seq=seq, part=part, dialect=copier.name)
            check.problems.append(Problem(position, seq, "wrong_dialect", text))
            continue
        for adapter in adapters:
            said = adapter.written_by(entry)
            if said is not None:
                written[adapter.id] = said
                opened[adapter.id] = entry
            welcome = entry.get("type") == "welcome" and adapter.id not in opened
            if adapter.id in carried and not welcome:
                pass  # known to carry them: no other line need be stripped to see
            elif adapter.plain(entry) != entry:
                carried.add(adapter.id)
            elif welcome:
                plain_welcomes.setdefault(adapter.id, []).append((position, entry))
            part, lacks = adapter.unlike(entry), False
            if part is None and adapter.id in opened:
                part, lacks = adapter.missing(entry, opened[adapter.id]), True
            if part is None:
                continue
            if written.get(adapter.id, adapter.version) != adapter.version:
                check.other_version += 1
                continue
            seq = entry.get("seq") if isinstance(entry.get("seq"), int) else None
            check.problems.append(
                Problem(position, seq, "wrong_dialect", _said(seq, part, adapter.name, lacks))
            )
    for adapter in adapters:
        if adapter.id in carried:
            check.problems += _unnamed(adapter, plain_welcomes.get(adapter.id, ()))
    return check


def _unnamed(adapter: Adapter, welcomes: Iterable[tuple[int, Mapping[str, Any]]]) -> list[Problem]:
    """The welcomes (with their line numbers) of a log some line of which carries
    ``adapter``'s fields that hold none of them: the server sends a connection's every
    line through its one dialect's adapter, the welcome too (which names the adapter),
    so each was stripped — which would make the log a plain client's, whose lines the
    adapter's :meth:`~rollbridge.adapter.Adapter.missing` does not check."""
    problems = []
    for position, welcome in welcomes:
        part = adapter.missing(welcome, welcome)
        if part is not None:
            seq = welcome.get("seq") if isinstance(welcome.get("seq"), int) else None
            text = _said(seq, part, adapter.name, True)
            problems.append(Problem(position, seq, "wrong_dialect", text))
    return problems
