"""What decides an event's redaction: the table as that event left it.

Players see an NPC's details only where the ruleset reveals them under the table's
settings (:mod:`rollbridge.engine.views`); whether an actor is an NPC, and which
settings apply, must be those of the event's seq — not the table's later state, or
the same event would read differently to a player live, on a retry, on a resume, in
another language or in an export. A :class:`Redaction` is that state, kept on the
event (:attr:`Event.redaction <rollbridge.engine.model.Event.redaction>`, never
stored):

* the engine gives each event it stages the table as the request left it
  (:meth:`Table.execute <rollbridge.engine.table.Table.execute>`);
* an event read back from the log gets it by walking back through the events after
  it (:func:`recall`) from the first event that left the table as it is now (a
  :class:`Held`: :meth:`Table.held <rollbridge.engine.table.Table.held>`), whose
  redaction is the table's: each event's ``before`` sides hold every actor record
  and the settings as they were. The walk needs only the events from the one
  wanted to that first one — a repeated request reads just those
  (:class:`~rollbridge.protocol.effects.ReadEvents` with ``until``), not the rest of
  the log. Only the events of the retained log are ever shown, and the retained
  log is every event from its first to the latest, so the walk is exact; an event
  it cannot reach (one whose later events were not given) keeps none and is shown
  as the table is now. (The protocol never passes such events: a read of the log
  that was out while the table was loaded again is stale,
  :meth:`TableProtocol._read_done
  <rollbridge.protocol.table.TableProtocol._read_done>`.)

Settings are replaced, never changed in place, and so are the frozen sets here:
a :class:`Redaction` shares them with the table and with other events.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from rollbridge.plain import JSON

if TYPE_CHECKING:
    from rollbridge.engine.model import Event

__all__ = ["EMPTY_SETTINGS", "Held", "Redaction", "recall", "ruleset_settings"]

#: The ruleset settings of a table that has none (shared, never changed).
EMPTY_SETTINGS: Mapping[str, Any] = {}


def ruleset_settings(settings: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """The ruleset's own settings within a table's settings."""
    return (settings or EMPTY_SETTINGS).get("ruleset") or EMPTY_SETTINGS


class Redaction(NamedTuple):
    """The table as an event left it, as far as its views depend on it.

    :param settings: the ruleset's settings (what
        :meth:`~rollbridge.contract.Ruleset.reveals` and
        :meth:`~rollbridge.contract.Ruleset.player_view` are given).
    :param players: the actors some player controls.
    :param npcs: the actors no player controls.
    """

    settings: Mapping[str, Any]
    players: frozenset[str]
    npcs: frozenset[str]

    @classmethod
    def of(cls, settings: Mapping[str, Any], records: Mapping[str, Any]) -> Redaction:
        """The redaction of a table with these ruleset ``settings`` and actor
        ``records`` (:class:`~rollbridge.engine.model.ActorRecord` by id)."""
        players = frozenset(a for a, r in records.items() if not r.is_npc)
        return cls(settings, players, frozenset(records.keys() - players))

    def controlled(self, actor_id: str) -> bool:
        """Whether some player controlled the actor (unknown actors: no)."""
        return actor_id in self.players

    def with_actors(self, owned: Iterable[tuple[str, bool | None]]) -> Redaction:
        """This redaction with actors changed: ``(id, True)`` a player's, ``(id,
        False)`` an NPC, ``(id, None)`` absent. Itself when nothing changes (the
        sets are copied only when one does)."""
        players, npcs = self.players, self.npcs
        for actor_id, player in owned:
            held = (actor_id in players, actor_id in npcs)
            if held == (player is True, player is False):
                continue
            players = players | {actor_id} if player is True else players - {actor_id}
            npcs = npcs | {actor_id} if player is False else npcs - {actor_id}
        if players is self.players and npcs is self.npcs:
            return self
        return self._replace(players=players, npcs=npcs)

    def before(self, event: Event) -> Redaction:
        """The redaction just before ``event``, given this one just after it (its
        ``before`` sides: the settings, and each actor record it changed)."""
        found = self
        change = event.table_change
        if change and "settings" in (change.get("before") or ()):
            settings = ruleset_settings(change["before"]["settings"])
            if settings != found.settings:
                found = found._replace(settings=settings)
        if event.changes:
            found = found.with_actors(_owned(event.changes))
        return found


def _owned(changes: list[JSON]) -> Iterator[tuple[str, bool | None]]:
    for change in changes:
        record = change["before"]
        yield change["actor"], None if record is None else bool(record.get("controllers"))


class Held(NamedTuple):
    """A table's redaction and the events that left the table with it: every event
    from ``first`` to ``last``. It stays true of those events whatever
    the table does later, so a read of the log may take it when it is sent out and
    walk back from it when it comes back."""

    redaction: Redaction
    first: int
    last: int

    def recall(self, events: Iterable[Event]) -> None:
        """Give each of ``events`` that has no redaction the one of its seq:
        :attr:`redaction` from :attr:`first` to :attr:`last`; walking back from
        :attr:`first` (:func:`recall`) for an earlier one, which ``events`` must give
        with every event from it to :attr:`first`. One it cannot reach, or one after
        :attr:`last`, keeps none."""
        events = list(events)
        walk = False
        for event in events:
            if event.redaction is None:
                if self.first <= event.seq <= self.last:
                    event.redaction = self.redaction
                elif event.seq < self.first:
                    walk = True
        if walk:
            recall(self.redaction, self.first, events)


def recall(now: Redaction, seq: int, events: Iterable[Event]) -> None:
    """Give each of ``events`` that has no redaction the one of its seq, walking back
    from ``now`` (the redaction event ``seq`` left the table with) through
    ``events``: an event that has one already (staged here) is taken at its word.
    The walk stops at the first seq missing from ``events``: those before it keep
    none. It crosses epochs: a table moved to a new epoch (a restored backup, a Redis
    fence) keeps its log and continues its seqs, and the move itself changes no
    actor or setting, so an event of the old epoch is walked back through like any
    other (a log holds one event per seq)."""
    by_seq = {e.seq: e for e in events}
    wanted = [s for s, e in by_seq.items() if e.redaction is None]
    if not wanted:
        return
    lowest, current = min(wanted), now
    while True:
        event = by_seq.get(seq)
        if event is None:
            return
        if event.redaction is None:
            event.redaction = current
        else:
            current = event.redaction
        if seq <= lowest:
            return
        current = current.before(event)
        seq -= 1
