"""Resolving a logged resolution again: the engine executes the request the event
records, on the table the log shows before it, with the event's own dice.

:func:`rerun` builds a :class:`~rollbridge.engine.table.Table` from the log's table
as of the seq before the event (:class:`~rollbridge.engine.logtable.LoggedTable`),
executes the request the event records on it
(:func:`~rollbridge.engine.recorded.recorded`: a resolution's ``resolve`` or
approval, an encounter event's ``encounter.start`` or ``encounter.next`` whose turn
hooks resolve) with the event's dice, through :meth:`Table.execute` — the very path
of every request, the table's ruleset settings and all; the server's dice are its
scripted source, not supplied (a ruleset may tell them apart) — and shows the
event it makes to the log's audience in the log's locale, as the server showed it.
The ruleset writes the event's own version of its words (:func:`logged_words`, the
``words`` its data records: :attr:`~rollbridge.contract.Ruleset.words`), so that an
event an earlier version of the ruleset wrote is compared with what that version
wrote, word for word; a version newer than the installed ruleset's is not resolved
again (``skipped``: ``words``: a newer version of the ruleset wrote it, or the log
was altered; either way the installed ruleset cannot check it).
Everything the rules decide must be as logged: the narration, outcome, steps, dice
groups and parameters, the hooks' results, every actor's view after — every value
the log shows (a field this version writes that the logged event's data lacks is
no difference: a log written before that field existed; the state it leaves, its
actors and ``table_after``, may leave out no key the state before it had, as the log
carries it on). Not compared: the time
(``at``), the frame's ``type`` and ``table``, and the data that is no ruleset's —
``draws`` (the dice check's), ``approved`` and ``approved_by`` (an approval's,
where the approval is not executed again), the GM's ``pending``. A stored private
form a ruleset built into an outcome reads as its value on both sides: an event
written before 7 December kept the form itself, where the server now reads it as
the ``Private`` it stands for (:func:`_outcomes_read`).

The table it runs on does not hold the requests for the GM's approval (the logged
event is the approved request's) and rolls no verifiable dice (the dice are given):
those two settings are off; every other, the ruleset's above all, is the log's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from rollbridge.contract import Ruleset
from rollbridge.dice.sources import ScriptedDice
from rollbridge.engine.logtable import LoggedTable
from rollbridge.engine.recorded import Recorded, recorded
from rollbridge.engine.requests import parse_request
from rollbridge.engine.table import Table
from rollbridge.engine.views import Audience
from rollbridge.exceptions import RollbridgeError
from rollbridge.plain import JSON, NotPlain, dumps_json
from rollbridge.text import MAX_OUTPUT_DEPTH, Text, stored_private

__all__ = ["Rerun", "logged_words", "rerun"]

#: What a logged frame holds that the rules do not decide (see the module docstring).
_NOT_COMPARED = ("type", "table", "at")
_DATA_NOT_COMPARED = ("draws", "approved", "approved_by")
#: The fields of a frame that are the state it leaves (each actor's view after, the
#: table's settings and encounter): no key of the state before it left out.
_STATE = frozenset({"actors", "table_after"})


@dataclass(frozen=True, slots=True)
class Rerun:
    """What resolving a logged event again gave: ``ok``; else ``field`` names where
    they first differ (``data.outcome.boxes``, ``actors[1].state``) or ``refused`` holds
    the engine's refusal of the logged request on the logged table; ``skipped``: it
    was not resolved again (``no_table``: a resolution approved with supplied dice
    whose request the log does not hold, :mod:`~rollbridge.engine.recorded`; ``words``:
    an event recording newer words than the installed ruleset's); ``malformed``:
    the log's table before it, its pending request or the event itself is not what
    the engine can execute."""

    ok: bool
    field: str | None = None
    refused: Text | str | None = None
    skipped: str | None = None
    #: The log's table before it, its pending request or the event itself is not
    #: what the engine can execute (a shape no server writes).
    malformed: bool = False


class _Drawn(ScriptedDice):
    """The server's dice of a logged event, in the order drawn: scripted, but not
    supplied (a ruleset may tell the two apart, as techlevel's ``rolled_by``)."""

    @property
    def supplied(self) -> bool:
        return False


def rerun(table: LoggedTable, frame: Mapping[str, Any], ruleset: Ruleset) -> Rerun:
    """Execute the request the event ``frame`` records again on ``table`` (the log's
    table as of the seq before it, :func:`~rollbridge.engine.recorded.recorded`)
    and compare; see the module docstring."""
    try:
        found = recorded(table, frame)
    except (KeyError, IndexError, TypeError, ValueError, AttributeError, RecursionError):
        return Rerun(False, malformed=True)  # an event no server writes
    if found is None:
        return Rerun(False, skipped="no_table")
    words = logged_words(frame)
    if type(words) is not int or words < 1:
        return Rerun(False, malformed=True)  # no server writes it
    if words > ruleset.words:
        return Rerun(False, skipped="words")  # a newer version of the ruleset's, or forged
    first = _executed(table, frame, ruleset, found, found.dice, words)
    if not first.ok and first.refused is not None and found.as_gms is not None:
        # an approval's dice equal to the held ones, which the engine refuses as the
        # player's (the table changed since the request): the GM gave them
        gms = _executed(table, frame, ruleset, replace(found, message=found.as_gms), [], words)
        if gms.ok:
            return gms
    if first.ok or found.chip_dice is None:
        return first
    # a log written before a chip's group was tagged: its dice read as a chip's; where
    # they are what the engine takes and the others not, the difference they make is
    # the one to name
    other = _executed(table, frame, ruleset, found, found.chip_dice, words)
    return other if other.ok or (first.refused is not None and other.refused is None) else first


def logged_words(frame: Mapping[str, Any]) -> Any:
    """The version of its ruleset's words a logged event was written in: its data's
    ``words`` (a resolution's; an encounter event's in its turn hooks' entries), 1
    where it records none (a ruleset's first words, or a log older than the field).
    As the log gives it: the caller checks it is a whole number."""
    data = frame.get("data")
    if not isinstance(data, Mapping):
        return 1
    if "words" in data:
        return data["words"]
    hooks = data.get("hooks")
    for entry in hooks if isinstance(hooks, list) else ():
        if isinstance(entry, Mapping) and "words" in entry:
            return entry["words"]
    return 1


def _executed(
    table: LoggedTable,
    frame: Mapping[str, Any],
    ruleset: Ruleset,
    found: Recorded,
    dice: list[int],
    words: int,
) -> Rerun:
    """Execute ``found`` with the server's ``dice`` on ``table``, in the ruleset's
    ``words`` of the event, and compare."""
    try:
        settings = {**table.settings, "approval": False, "verifiable": False}
        engine = Table(table.snapshot(int(frame["seq"]) - 1, settings), ruleset)
        engine.words = words
        engine.max_event_bytes = 1 << 40  # the server stored it: no limit of this one's
        engine.max_actors = None
        outcome = engine.execute(parse_request(found.message), found.who, _Drawn(dice))
        event = outcome.events[-1]
        view = engine.view_event(event, audience=Audience(table.role == "gm", table.locale))
    except RollbridgeError as exc:
        return Rerun(False, refused=exc.text if exc.text is not None else exc.message)
    except (KeyError, IndexError, TypeError, ValueError, AttributeError, RecursionError, NotPlain):
        # a log whose table, pending request or event the engine cannot take
        return Rerun(False, malformed=True)
    return _compare(json.loads(dumps_json(view)), frame, table)


def _compare(made: JSON, logged: Mapping[str, Any], table: LoggedTable) -> Rerun:
    """Whether the event made again is the one logged, but for what the rules do not
    decide; else where they first differ (``data.outcome.boxes``). ``table``: the
    log's table before it, whose state a logged state may not leave a field of."""
    made, logged = (
        _changed_only(_comparable(made), table),
        _changed_only(_comparable(logged), table),
    )
    actors = made.get("actors")
    before = {
        "actors": [
            table.actors.get(view.get("id")) if isinstance(view, Mapping) else None
            for view in (actors if isinstance(actors, list) else [])
        ],
        "table_after": {"settings": table.settings, "encounter": table.encounter},
    }
    where = _difference(made, logged, "", before)
    return Rerun(True) if where is None else Rerun(False, where or "data")


def _difference(made: Any, logged: Any, path: str, before: Any = None) -> str | None:
    """Where ``logged`` first shows something ``made`` does not, as a path; None
    where every value it shows is ``made``'s. A key only ``made`` has is no
    difference (a log written before that field existed lacks it: an earlier
    version of rollbridge or of the ruleset, the same major version) but in the
    state the event leaves (:data:`_STATE`) where the state ``before`` it had that
    key: the log carries its state on to the resolutions after it, so a key it left
    out there (an actor's damage) is a change of the state, not a field too new."""
    if isinstance(made, Mapping) and isinstance(logged, Mapping):
        keys = set(logged)
        if not path:  # the state itself is never left out
            keys |= set(made) & _STATE
        elif isinstance(before, Mapping):
            keys |= set(made) & set(before)
        for key in sorted(keys, key=str):
            here = f"{path}.{key}" if path else str(key)
            if key not in made or key not in logged:
                return here
            was = before.get(key) if isinstance(before, Mapping) else None
            found = _difference(made[key], logged[key], here, was)
            if found is not None:
                return found
        return None
    if isinstance(made, list) and isinstance(logged, list) and len(made) == len(logged):
        for index, (one, other) in enumerate(zip(made, logged, strict=True)):
            was = before[index] if isinstance(before, list) and index < len(before) else None
            found = _difference(one, other, f"{path}[{index}]", was)
            if found is not None:
                return found
        return None
    return None if made == logged and type(made) is type(logged) else path


def _changed_only(frame: JSON, table: LoggedTable) -> JSON:
    """``frame`` without the actors it shows exactly as the table before it held them:
    an actor an event lists unchanged tells nothing the rules decided (the rollbridge
    of 74f6d37 and before, 2 December 2026, listed a resolution's targets it left as
    they were: tests/fixtures/upgrade)."""
    actors = frame.get("actors") if isinstance(frame, dict) else None
    if not isinstance(actors, list):
        return frame
    changed = [
        view
        for view in actors
        if not (isinstance(view, Mapping) and table.actors.get(view.get("id")) == view)
    ]
    return {**frame, "actors": changed}


def _outcomes_read(data: dict[str, Any]) -> None:
    """``data``'s outcome, and each hook's, with every stored private form in it read as
    its value, as the server reads one a ruleset built there (since 7 December:
    :func:`~rollbridge.text.extract`): an event written before kept the form as data,
    the number in it, and reads so to the GM, where the same resolution made again
    holds the value — the same result, not a mismatch."""
    if isinstance(data.get("outcome"), Mapping):
        data["outcome"] = _forms_read(data["outcome"], 0)
    hooks = data.get("hooks")
    if isinstance(hooks, list):
        data["hooks"] = [
            {**hook, "outcome": _forms_read(hook["outcome"], 0)}
            if isinstance(hook, Mapping) and isinstance(hook.get("outcome"), Mapping)
            else hook
            for hook in hooks
        ]


def _forms_read(value: Any, depth: int) -> Any:
    """``value`` with each stored private form in it read as its value (an outcome
    nests at most :data:`~rollbridge.text.MAX_OUTPUT_DEPTH` levels: deeper is left)."""
    if depth > MAX_OUTPUT_DEPTH:
        return value
    if isinstance(value, dict):
        if "private" in value and "of" in value and stored_private(value) is not None:
            return _forms_read(value["private"], depth + 1)
        return {key: _forms_read(item, depth + 1) for key, item in value.items()}
    if isinstance(value, list):
        return [_forms_read(item, depth + 1) for item in value]
    return value


def _comparable(frame: Mapping[str, Any]) -> JSON:
    found = {k: v for k, v in frame.items() if k not in _NOT_COMPARED}
    data = found.get("data")
    found["data"] = (
        {k: v for k, v in data.items() if k not in _DATA_NOT_COMPARED}
        if isinstance(data, Mapping)
        else {}
    )
    _outcomes_read(found["data"])
    after = found.get("table_after")
    if isinstance(after, Mapping):
        after = {k: v for k, v in after.items() if k != "pending"}
        found["table_after"] = after or None
    if not found.get("table_after"):
        found.pop("table_after", None)
    return found
