"""Which events a statistics request counts: a session of the retained log."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rollbridge.exceptions import InvalidRequest
from rollbridge.plain import JSON
from rollbridge.text import Messages

__all__ = ["Scope", "check_scope", "undone_seqs"]

say = Messages("rollbridge")
# Translators: {field} is a parameter name (since, until, encounter); {given} what was sent.
BAD_SEQ = say("stats.bad_seq", "{field}: must be a seq number (0 or more), not {given}")
# Translators: {field} is "actor"; {given} is what was sent.
BAD_ACTOR = say("stats.bad_actor", "{field}: must be an actor id, not {given}")
# Translators: {since} and {until} are seq numbers.
EMPTY_SPAN = say("stats.empty_span", "since: seq {since} is after until: seq {until}")
# Translators: {field} is from_time or to_time; {given} is what was sent.
BAD_TIME = say("stats.bad_time", "{field}: must be a time in seconds since 1970 (UTC), not {given}")
# Translators: {start} and {end} are times in seconds since 1970.
EMPTY_TIMES = say("stats.empty_times", "from_time: {start} is after to_time: {end}")
# Translators: {seq} is the seq number the request named as an encounter.
NO_ENCOUNTER = say(
    "stats.no_encounter",
    "encounter: no encounter started at seq {seq} in the retained log "
    "(an encounter's id is the seq of its encounter.started event)",
)
# Translators: {until} and {first} are seq numbers.
BEFORE_LOG = say(
    "stats.before_log",
    "until: seq {until} is before the retained log, which starts at seq {first}",
)


@dataclass(frozen=True, slots=True)
class Scope:
    """A session: whose statistics (``actor``: one actor's only), and which events
    — the encounter whose ``encounter.started`` event has seq ``encounter``, the
    seqs from ``since`` to ``until`` (inclusive), the events executed from
    ``from_time`` to ``to_time`` (seconds since the Unix epoch, inclusive), or all
    retained ones. Given together, they narrow each other."""

    actor: str | None = None
    encounter: int | None = None
    since: int | None = None
    until: int | None = None
    from_time: float | None = None
    to_time: float | None = None

    def to_dict(self) -> JSON:
        """The parameters given (the reply's ``scope``)."""
        fields = ("actor", "encounter", "since", "until", "from_time", "to_time")
        return {k: getattr(self, k) for k in fields if getattr(self, k) is not None}

    def span(self, views: Sequence[Mapping[str, Any]]) -> tuple[int, int | None]:
        """The seq bounds (inclusive; None: open) of this session among the
        audience's ``views`` (in seq order).

        :raises InvalidRequest: for an encounter not started in the retained log.
        """
        low = self.since if self.since is not None else 0
        high = self.until
        if high is not None and views and high < views[0]["seq"]:
            raise InvalidRequest(
                BEFORE_LOG(until=high, first=views[0]["seq"]), details={"field": "until"}
            )
        if self.encounter is not None:
            undone = undone_seqs(views)  # an undone start or end is none (until a redo)
            started = [v for v in views if v.get("seq") == self.encounter]
            if (
                not started
                or started[0].get("kind") != "encounter.started"
                or self.encounter in undone
            ):
                raise InvalidRequest(
                    NO_ENCOUNTER(seq=self.encounter), details={"field": "encounter"}
                )
            end = next(
                (v["seq"] for v in views
                 if v.get("kind") == "encounter.ended" and v["seq"] > self.encounter
                 and v["seq"] not in undone),
                None,
            )  # fmt: skip
            low = max(low, self.encounter)
            if end is not None:
                high = end if high is None else min(high, end)
        return low, high

    def before_end(self, view: Mapping[str, Any], high: int | None) -> bool:
        """Whether ``view`` comes no later than the session's end: its seq ``high``
        and its ``to_time`` (an undo after the end does not undo within it)."""
        if high is not None and view["seq"] > high:
            return False
        at = view.get("at")
        return self.to_time is None or at.__class__ not in (int, float) or at <= self.to_time

    def timed(self) -> bool:
        """Whether the session is a time span (then only events with a time count)."""
        return self.from_time is not None or self.to_time is not None

    def holds_time(self, at: Any) -> bool:
        """Whether an event executed at ``at`` (None: no time recorded) is in the
        time span; every event is when there is none."""
        if not self.timed():
            return True
        if at.__class__ not in (int, float):
            return False
        return (self.from_time is None or at >= self.from_time) and (
            self.to_time is None or at <= self.to_time
        )


def check_scope(fields: Mapping[str, Any]) -> Scope:
    """The scope of a request's (schema-checked) fields, or of the CLI's options.

    :raises InvalidRequest: naming the bad field; ``since`` after ``until``,
        ``from_time`` after ``to_time``.
    """
    for name in ("encounter", "since", "until"):
        value = fields.get(name)
        if value is not None and (value.__class__ is not int or value < 0):
            raise InvalidRequest(BAD_SEQ(field=name, given=repr(value)), details={"field": name})
    actor = fields.get("actor")
    if actor is not None and (actor.__class__ is not str or not actor):
        raise InvalidRequest(
            BAD_ACTOR(field="actor", given=repr(actor)), details={"field": "actor"}
        )
    since, until = fields.get("since"), fields.get("until")
    if since is not None and until is not None and since > until:
        raise InvalidRequest(EMPTY_SPAN(since=since, until=until), details={"field": "since"})
    for name in ("from_time", "to_time"):
        value = fields.get(name)
        if value is not None and (
            value.__class__ not in (int, float) or not math.isfinite(value) or value < 0
        ):
            raise InvalidRequest(BAD_TIME(field=name, given=repr(value)[:64]),
                                 details={"field": name})  # fmt: skip
    start, end = fields.get("from_time"), fields.get("to_time")
    if start is not None and end is not None and start > end:
        raise InvalidRequest(EMPTY_TIMES(start=start, end=end), details={"field": "from_time"})
    return Scope(
        actor,
        fields.get("encounter"),
        since,
        until,
        float(start) if start is not None else None,
        float(end) if end is not None else None,
    )


def undone_seqs(
    views: Sequence[Mapping[str, Any]], until: Callable[[Mapping[str, Any]], bool] | None = None
) -> set[int]:
    """The seqs an ``undo`` reversed and no later ``redo`` restored, reading the
    ``views`` in order as long as ``until`` holds (default: all of them)."""
    undone: set[int] = set()
    for view in views:
        if until is not None and not until(view):
            break
        data = view.get("data") or {}
        if view.get("kind") == "undo" and data.get("undoes").__class__ is int:
            undone.add(data["undoes"])
        elif view.get("kind") == "redo" and data.get("redoes").__class__ is int:
            undone.discard(data["redoes"])
    return undone
