"""A table's retained event log, read once and shown to one audience.

:func:`read_log` reads a table and its retained events from a store (a blocking
call: a server runs it on its reader threads); :meth:`SessionLog.frames` yields
each event as the ``event`` frame the live protocol sends that audience — built
by the protocol's own :class:`~rollbridge.protocol.members.Delivery`, the very
path a resume takes (:meth:`~rollbridge.protocol.table.TableProtocol.join`), so
the export never has a redaction of its own (:mod:`rollbridge.engine.views`
decides, as for every client). :meth:`SessionLog.welcome` is the ``welcome`` a
client of the audience joining just before the first event would have been sent
(the table as it stood then, through :meth:`~rollbridge.engine.table.Table.view`),
which every export begins with.

The audiences are the protocol's roles: ``gm`` sees everything; ``player`` is
what any player at the table is sent (not a requester's own view of a secret:
a GM-only event is its ``hidden`` placeholder); ``observer`` is sent the same as a
player.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rollbridge.engine.model import Event, Principal
from rollbridge.engine.table import Table
from rollbridge.exceptions import InvalidRequest, StoreError
from rollbridge.protocol.members import Delivery, Member
from rollbridge.protocol.table import described_ruleset, welcome_fields, welcome_message
from rollbridge.stores.base import first_held
from rollbridge.text import Messages

if TYPE_CHECKING:
    from rollbridge.contract import Ruleset
    from rollbridge.stores.base import Store

__all__ = [
    "AUDIENCES",
    "FORMATS",
    "SessionLog",
    "check_audience",
    "check_format",
    "check_since",
    "read_log",
]

say = Messages("rollbridge")
#: Who an export is for: the protocol's roles.
AUDIENCES = ("gm", "player", "observer")
#: What an export is written as.
FORMATS = ("jsonl", "markdown")
# Translators: {given} is what was asked for; gm, player and observer stay as they are.
BAD_AUDIENCE = say("export.bad_audience", "as: must be gm, player or observer, not {given}")
# Translators: {given} is what was asked for; jsonl and markdown stay as they are.
BAD_FORMAT = say("export.bad_format", "format: must be jsonl or markdown, not {given}")
# Translators: format=jsonl and format=markdown stay as they are (a URL's query).
NO_FORMAT = say(
    "export.no_format",
    "format: missing; add format=jsonl (the log, which rollbridge verify checks) or "
    "format=markdown (a session report) to the address",
)
# Translators: {given} is what was sent for "since" (a seq number).
BAD_SINCE = say("export.bad_since", "since: must be a seq number (0 or more), not {given}")
# Translators: {since} is the seq asked for, {seq} the table's latest seq.
FUTURE_SINCE = say("export.future_since", "since: seq {since} is after the latest seq {seq}")
MOVING = say("export.moving", "the log of table {table} kept changing while it was read; try again")

#: How often a read is tried again when the log moved between its two reads.
_READ_TRIES = 5


def check_audience(given: Any) -> str:
    """``given`` as an audience of :data:`AUDIENCES`. :raises InvalidRequest:"""
    if given not in AUDIENCES:
        raise InvalidRequest(BAD_AUDIENCE(given=repr(given)), details={"field": "as"})
    return str(given)


def check_format(given: Any) -> str:
    """``given`` as a format of :data:`FORMATS` (``None``: none was given, which the
    refusal says apart from a wrong one). :raises InvalidRequest:"""
    if given is None:
        raise InvalidRequest(NO_FORMAT(), details={"field": "format"})
    if given not in FORMATS:
        raise InvalidRequest(BAD_FORMAT(given=repr(given)), details={"field": "format"})
    return str(given)


def check_since(given: Any) -> int:
    """``given`` (an int or its decimal text) as a seq, 0 or more. :raises InvalidRequest:"""
    if given.__class__ is int and given >= 0:
        return given
    if isinstance(given, str) and given.isascii() and given.isdigit() and len(given) <= 18:
        return int(given)
    shown = given if not isinstance(given, str) else given[:40]
    raise InvalidRequest(BAD_SINCE(given=repr(shown)), details={"field": "since"})


@dataclass(slots=True)
class SessionLog:
    """A table as it stands, and its retained events after ``since``, in seq order.

    :param table: the table engine, loaded from the store; each event is shown as
        it left the table (its :attr:`~rollbridge.engine.model.Event.redaction`,
        which :func:`read_log` gives it, as a resume does).
    :param events: the retained events with a seq above ``since``, of the table's
        epoch now.
    :param since: the seq asked for (0: the whole retained log).
    :param earlier: the latest seq of the retained events after ``since`` that an
        earlier epoch wrote (the history before a restore or a fence), which the
        log leaves out; 0 when there are none.
    """

    table: Table
    events: list[Event]
    since: int = 0
    earlier: int = 0

    @property
    def latest(self) -> int:
        """The table's latest seq when it was read."""
        return self.table.info.seq

    @property
    def truncated(self) -> bool:
        """Whether events after ``since`` have left the retained log (an earlier
        epoch's events, left out, have not: they are :attr:`earlier`)."""
        if self.earlier:
            return False  # the retained log holds them up to the epoch's first event
        first = self.events[0].seq if self.events else self.latest + 1
        return first > self.since + 1

    def member(self, audience: str, locale: str = "en") -> Member:
        """A member of the audience as the protocol knows one (JSON frames, no dialect)."""
        role = check_audience(audience)
        return Member(Principal(role, "export", "export"), kind="json", locale=locale)  # type: ignore[arg-type]

    def action_labels(self, locale: str = "en") -> dict[str, str]:
        """The ruleset's words for its actions in ``locale``, by action id (as a
        ``welcome`` describes them; an action without a label keeps its id)."""
        described = described_ruleset(self.table, locale)
        actions = described.get("actions") or {}
        return {name: str(action.get("label") or name) for name, action in actions.items()}

    def welcome(self, audience: str, locale: str = "en") -> str | None:
        """The ``welcome`` frame a client of ``audience`` joining just before the first
        event would have been sent (built as the protocol builds one,
        :func:`~rollbridge.protocol.table.welcome_fields`: the table as it stood then,
        its ``epoch`` and ``seq``, and the ``epochs`` its history ran through where the
        live welcome has them; no ``hello`` answered, so its ``id`` is null); None
        for a log without events. A view of a past seq has no ``pending``,
        ``can_undo``, ``can_redo`` or ``undo_redo`` (:meth:`Table.view`).

        ``rollbridge verify`` reads it as it reads a client's own log (docs/dice.md):
        the table's ruleset, settings and actors, on which it resolves the log's
        resolutions again; and, for an export that starts after a segment's
        ``dice.committed`` event (``since``, a pruned log, a restored backup), the
        frame's ``table.dice``, naming the open segment and its commitments.

        :raises InternalError: if the ruleset fails to show an actor or to describe
            itself.
        :raises InvalidRequest: if the events are not every event after the seq
            before the first (``Table.view(at=…)``: events missing from ``events``).
        """
        if not self.events:
            return None  # nothing to check
        at = self.events[0].seq - 1
        view = self.table.view(gm=audience == "gm", at=at, later=self.events, locale=locale)
        member = self.member(audience, locale)
        described = described_ruleset(self.table, locale)
        fields = welcome_fields(member.principal, locale, view, described, at, self.table)
        frame = member.encode(welcome_message(None, fields))
        return frame if isinstance(frame, str) else frame.decode("utf-8")

    def frames(self, audience: str, locale: str = "en") -> Iterator[str]:
        """Each event as the JSON text frame the protocol sends ``audience``, in seq
        order (one line each: compact JSON never holds a raw line break).

        :raises InternalError: if the ruleset fails to show an event.
        """
        member = self.member(audience, locale)
        for event in self.events:
            frame = Delivery(self.table, event).frame(member)
            event.views.clear()  # built for this frame only: a long log stays small
            yield frame if isinstance(frame, str) else frame.decode("utf-8")

    def actor_names(self, audience: str, locale: str = "en") -> dict[str, str]:
        """Every actor's name as the audience sees the table now, by id."""
        view = self.table.view(gm=audience == "gm", locale=locale)
        return {actor["id"]: actor["name"] for actor in view["actors"]}


def read_log(
    store: Store, table_id: str, rulesets: Mapping[str, Ruleset], since: int = 0
) -> SessionLog:
    """Read a table and its retained events after ``since`` (blocking).

    :raises UnknownTable: RulesetUnavailable: InvalidRequest: ``since`` is after
        the table's latest seq.
    """
    since = check_since(since)
    for _ in range(_READ_TRIES):
        snapshot, history = store.load(table_id)
        latest = snapshot.info.seq
        if since > latest:
            raise InvalidRequest(FUTURE_SINCE(since=since, seq=latest), details={"field": "since"})
        ruleset = Table.check_ruleset(snapshot.info, rulesets)
        start = max(since, latest - max(0, store.retain))
        # a log written with a shorter ``retain`` than this store's starts later
        events = store.events_after(table_id, first_held(store, table_id, start, latest))
        if events is not None:  # None: a commit pruned the log between the two reads
            epoch = snapshot.info.epoch
            kept = [e for e in events if e.seq <= latest and e.epoch == epoch]
            # before a restore or a fence: kept in the log, not this epoch's history
            earlier = max((e.seq for e in events if e.seq <= latest and e.epoch != epoch),
                          default=0)  # fmt: skip
            table = Table(snapshot, ruleset, history)
            table.recall(kept)  # each event shown as it left the table, as it was live
            return SessionLog(table, kept, since, earlier)
    raise StoreError(MOVING(table=repr(table_id)), details={"table": table_id})
