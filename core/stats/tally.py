"""Counting a table's log as one audience sees it.

Every event is first turned into the view the protocol sends that audience
(:meth:`~rollbridge.engine.table.Table.view_event`, the one place that decides
what each audience sees); only the views are counted. A GM-only event is a
``hidden`` placeholder to players and observers and counts for nothing, so their
statistics are the same whether or not it happened.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from rollbridge.contract import Count, Statistics
from rollbridge.engine.model import Event
from rollbridge.engine.table import Table
from rollbridge.engine.views import Audience
from rollbridge.exceptions import InternalError, LimitExceeded
from rollbridge.plain import JSON, dumps_json
from rollbridge.stats.dice import groups_of, is_int
from rollbridge.stats.faces import count_group
from rollbridge.stats.scope import Scope, undone_seqs
from rollbridge.stats.summary import Summary
from rollbridge.text import Messages, render

__all__ = ["AUDIENCES", "hook_views", "stats_counter", "table_stats", "tally"]

say = Messages("rollbridge")
#: Whose statistics: the protocol's roles (a player and an observer see alike).
AUDIENCES = ("gm", "player", "observer")
# Translators: the name shown for an actor removed from the table whose name no
# retained event shows (its creation is older than the log kept).
REMOVED_ACTOR = say("stats.removed_actor", "a removed actor")
BAD_COUNT = say(
    "stats.bad_count",
    "ruleset {ruleset} counted {key} for statistics, which is not one of its keys "
    "or not an integer",
)

# Translators: {size} and {limit} are byte counts.
TOO_LARGE = say.plural(
    "stats.too_large",
    "the statistics would be {size:,} byte, more than the {limit:,} a reply may carry; "
    "ask for one actor or a shorter span",
    "the statistics would be {size:,} bytes, more than the {limit:,} a reply may carry; "
    "ask for one actor or a shorter span",
    count="size",
)

# Translators: {size} and {limit} are byte counts; {size} is a least bound.
TOO_LARGE_ALREADY = say.plural(
    "stats.too_large_already",
    "the statistics would be more than {size:,} byte, more than the {limit:,} a reply may "
    "carry (the faces of their dice alone); ask for one actor or a shorter span",
    "the statistics would be more than {size:,} bytes, more than the {limit:,} a reply may "
    "carry (the faces of their dice alone); ask for one actor or a shorter span",
    count="size",
)


class Tally:
    """The counts of one session, as events are added in seq order."""

    def __init__(self, statistics: Statistics | None, ruleset_id: str) -> None:
        self.statistics = statistics
        self.keys = frozenset(k for k, _ in statistics.keys) if statistics else frozenset()
        self.ruleset_id = ruleset_id
        self.session = Summary()
        self.actors: dict[str, Summary] = {}
        self.events = 0
        self.first: int | None = None
        self.last: int | None = None

    def actor(self, actor_id: str) -> Summary:
        """One actor's counts (made on first use)."""
        found = self.actors.get(actor_id)
        if found is None:
            found = self.actors[actor_id] = Summary()
        return found

    def add(self, view: Mapping[str, Any], *, undone: bool) -> None:
        """Count one event view (``undone``: reversed by a later ``undo``; its dice
        count, what it meant does not)."""
        seq = view.get("seq")
        self.events += 1
        self.first = seq if self.first is None else self.first
        self.last = seq
        rolled: set[str | None] = set()
        for owner, group in groups_of(view):
            summaries = [self.session] if owner is None else [self.session, self.actor(owner)]
            if count_group(group, summaries):
                rolled.add(owner)
        if rolled:
            self.session.rolls += 1
            for owner in rolled - {None}:
                self.actors[owner].rolls += 1  # type: ignore[index]
        if self.statistics is not None and not undone:
            for meant in (view, *hook_views(view)):
                for count in self.statistics.count(meant):
                    self._count(count)

    def _count(self, count: Count) -> None:
        if count.key not in self.keys or not is_int(count.value):
            raise InternalError(
                BAD_COUNT(ruleset=self.ruleset_id, key=repr(count.key)[:64]),
                details={"field": "statistics"},
            )
        owners = [self.session] if count.actor is None else [self.session, self.actor(count.actor)]
        for summary in owners:
            summary.ruleset[count.key] = summary.ruleset.get(count.key, 0) + count.value

    def least_bytes(self, actor: str | None) -> int:
        """Bytes the reply will be at least: 5 a face its counts list (a
        ``"face":count`` pair, :meth:`Summary.listed`) — the session's, or with
        ``actor`` that actor's alone (the reply's ``session`` then). Counts only
        grow as events are added, so a reply this bound finds too large is one
        whatever the events after."""
        summary = self.session if actor is None else self.actors.get(actor)
        return 0 if summary is None else 5 * summary.listed()


def hook_views(view: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Each turn hook's result of an ``encounter.*`` event, as the ruleset's
    :attr:`~rollbridge.contract.Statistics.count` reads it (a view of kind ``hook``,
    shaped as a resolution's)."""
    data = view.get("data")
    if not isinstance(data, Mapping) or not isinstance(data.get("hooks"), list):
        return []
    return [
        {"kind": "hook", "seq": view.get("seq"), "data": {
            "action": hook.get("hook"), "actor": hook.get("actor"),
            "outcome": hook.get("outcome"), "dice": hook.get("dice")}}
        for hook in data["hooks"] if isinstance(hook, Mapping)
    ]  # fmt: skip


def tally(
    table: Table,
    views: Sequence[Mapping[str, Any]],
    scope: Scope,
    *,
    limit: int | None = None,
) -> Tally:
    """Count the ``views`` (one audience's, in seq order) within ``scope``; with
    ``limit``, stop as soon as the faces counted show the reply would be larger
    than ``limit`` bytes (:meth:`Tally.least_bytes`): a log of thousands of dice of
    a million faces each lists more faces than any reply may carry after a few
    events, and counting the rest only to refuse it held a reader thread for
    seconds (hostile29).

    :raises InvalidRequest: an encounter not in the log. :raises InternalError:
        a ruleset's statistics failed. :raises LimitExceeded: the reply would be
        larger than ``limit``.
    """
    statistics = table.call_ruleset(table.ruleset.statistics)
    counted = Tally(statistics, table.ruleset.id)
    low, high = scope.span(views)
    undone = undone_seqs(views, lambda view: scope.before_end(view, high))
    for view in views:
        seq = view["seq"]
        if seq < low or (high is not None and seq > high) or view.get("kind") == "hidden":
            continue
        if not scope.holds_time(view.get("at")):
            continue
        table.call_ruleset(lambda v=view, u=seq in undone: counted.add(v, undone=u))
        least = counted.least_bytes(scope.actor) if limit is not None else 0
        if limit is not None and least > limit:
            raise LimitExceeded(TOO_LARGE_ALREADY(size=least, limit=limit),
                                details={"size": least, "limit": limit})  # fmt: skip
    return counted


def table_stats(
    table: Table, events: Iterable[Event], *, audience: str, scope: Scope, locale: str = "en"
) -> JSON:
    """The ``stats`` reply's body: the statistics of ``events`` (the retained log,
    in seq order) as ``audience`` (``gm``, ``player`` or ``observer``) sees them,
    labels in ``locale`` (docs/statistics.md).

    :raises LimitExceeded: the body would be larger than the table's largest event.
    """
    return stats_counter(table, events, audience=audience, scope=scope, locale=locale)()


def stats_counter(
    table: Table, events: Iterable[Event], *, audience: str, scope: Scope, locale: str = "en"
) -> Callable[[], JSON]:
    """:func:`table_stats` in two steps, for a table that changes while its log is
    counted (the server's: counted on a reader thread while its event loop goes on).
    What the statistics take of ``table`` that may change is taken now: its actors'
    names, and its redaction as it is for an event that has none (one read back
    that :meth:`Table.recall` could not reach: shown as the table is now, as
    :meth:`Table.view_event` would). The function returned does the rest — every
    event's view, the counting, the reply — and reads of ``table`` only its
    ruleset, which does not change.

    The function raises :class:`LimitExceeded` as :func:`table_stats` does."""
    events = list(events)
    now = table.redaction()
    for event in events:
        if event.redaction is None:
            event.redaction = now
    names = {actor_id: record.name for actor_id, record in table.actors.items()}
    limit = table.max_event_bytes
    return lambda: _counted(table, events, names, limit, audience=audience, scope=scope,
                            locale=locale)  # fmt: skip


def _counted(
    table: Table,
    events: list[Event],
    actors_now: Mapping[str, str],
    limit: int,
    *,
    audience: str,
    scope: Scope,
    locale: str,
) -> JSON:
    seen = Audience(audience == "gm", locale)
    views = [table.view_event(event, audience=seen) for event in events]
    counted = tally(table, views, scope, limit=limit)
    statistics = counted.statistics
    labels = (
        tuple((k, render(label, locale=locale)) for k, label in statistics.keys)
        if statistics
        else ()
    )
    names = _names(actors_now, views)
    removed = REMOVED_ACTOR().render(locale)
    actors = counted.actors
    session = counted.session
    if scope.actor is not None:
        session = actors.get(scope.actor, Summary())
        actors = {scope.actor: session} if scope.actor in actors else {}
    reply = {
        "stats": {
            "audience": audience,
            "scope": scope.to_dict(),
            "events": counted.events,
            "first_seq": counted.first,
            "last_seq": counted.last,
            "log_from": views[0]["seq"] if views else None,
            "session": session.to_dict(labels),
            "actors": {
                actor_id: {
                    "name": names.get(actor_id, removed),
                    **actors[actor_id].to_dict(labels),
                }
                for actor_id in sorted(actors)
            },
        }
    }
    size = len(dumps_json(reply).encode())
    if size > limit:  # it must reach the asker: no larger than an event
        raise LimitExceeded(TOO_LARGE(size=size, limit=limit),
                            details={"size": size, "limit": limit})  # fmt: skip
    return reply


def _names(actors_now: Mapping[str, str], views: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Actor names as the audience was shown them: the table's now (``actors_now``),
    else the latest an event showed (an actor removed since); an actor no retained
    event names is not here (:data:`REMOVED_ACTOR` names it)."""
    names: dict[str, str] = {}
    for view in views:
        for actor in view.get("actors") or ():
            if isinstance(actor, Mapping) and "name" in actor:
                names[actor["id"]] = actor["name"]
    names.update(actors_now)
    return names
