"""A table as a client's log shows it, rebuilt seq by seq from the log alone.

A log (a client's own, or ``rollbridge table export --format jsonl``) opens with a
``welcome``: the table as its audience was sent it — id, name, ruleset and version,
settings, epoch, seq, encounter, every actor as that audience sees it — and the
locale of its texts. Each event frame after it carries the new view of every actor
it touched (``{"id", "removed": true}`` for one taken out; ``index`` for one put
back at its place) and the settings and encounter it set (``table_after``; the
table's other fields decide no resolution); a secret event's ``hidden`` stand-in
carries its actors too. The GM's log also holds the requests waiting for the GM's
approval: the welcome of the table as it stands lists them (``pending``; a table at
seq 0 has none), each ``approval.requested`` event adds one, its approval or
rejection settles it (:func:`rollbridge.engine.follow.pending_after`, as a follower
applies them). :meth:`LoggedTable.apply` takes a frame to the table as
:func:`rollbridge.engine.places.placed` takes an event's changes to a table's
actors, so the table is, after each frame, as that frame left it.

:meth:`LoggedTable.snapshot` gives the table as the engine loads one, for
:mod:`rollbridge.engine.rerun` to execute a logged request again on it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rollbridge.engine.follow import Unfit, pending_after
from rollbridge.engine.model import ActorRecord, Encounter, Event, TableInfo, TableSnapshot
from rollbridge.engine.places import placed
from rollbridge.i18n import DEFAULT_LOCALE, negotiate
from rollbridge.plain import JSON

__all__ = ["LoggedTable"]


@dataclass(slots=True)
class LoggedTable:
    """The table a log's audience saw, as of :attr:`seq` — what a resolution depends
    on: its ruleset, settings, actors and encounter; see the module docstring.

    :param role: the audience of the log (the welcome's ``role``: ``gm``,
        ``player`` or ``observer``).
    :param locale: the locale of the log's texts (the welcome's, negotiated as a
        ``hello``'s is: :func:`rollbridge.i18n.negotiate`; English if it names none).
    :param actors: each actor's view, by id, in the table's order; one with
        ``limited`` is an NPC seen through the ruleset's players' view.
    """

    id: str
    name: str
    ruleset: str
    ruleset_version: str
    settings: JSON
    epoch: int
    seq: int
    role: str = "gm"
    locale: str = "en"
    actors: dict[str, JSON] = field(default_factory=dict)
    #: The requests waiting for the GM's approval, by pending id; None: not known
    #: (a player's log, a log that starts at a past seq with some waiting).
    pending: dict[str, JSON] | None = None
    #: The running encounter (its order, round, turn), or None.
    encounter: JSON | None = None
    #: Each actor's record made from its view, kept while the view is the same (the
    #: engine never changes a record in place; made once, not at every snapshot).
    _records: dict[str, tuple[JSON, ActorRecord]] = field(default_factory=dict, repr=False)

    @classmethod
    def from_welcome(cls, welcome: Mapping[str, Any]) -> LoggedTable | None:
        """The table a ``welcome`` frame shows; None if it lacks what this needs."""
        table = welcome.get("table")
        if not isinstance(table, Mapping):
            return None
        try:
            actors = {a["id"]: dict(a) for a in table.get("actors") or []}
            found = cls(
                id=str(table["id"]),
                name=str(table.get("name", "")),
                ruleset=str(table["ruleset"]),
                ruleset_version=str(table["ruleset_version"]),
                settings=dict(table.get("settings") or {}),
                epoch=int(table.get("epoch", 1)),
                seq=int(table.get("seq", welcome.get("seq"))),
                role=str(welcome.get("role", "gm")),
                # a log's word, as hello's is: "cs_CZ.UTF-8" is Czech, "../x" English
                locale=negotiate(welcome.get("locale")) or DEFAULT_LOCALE,
                actors=actors,
                pending=_pending(table),
                encounter=table.get("encounter"),
            )
        except (KeyError, TypeError, ValueError):
            return None
        return found

    def apply(self, frame: Mapping[str, Any]) -> None:
        """Take one event frame (or a ``hidden`` stand-in) to the table: its actors'
        new views, the table fields it set, its seq."""
        shown = frame.get("actors")
        if isinstance(shown, list):
            views = [a for a in shown if isinstance(a, Mapping) and isinstance(a.get("id"), str)]
            where = {a["id"]: a["index"] for a in views if isinstance(a.get("index"), int)}
            updates: dict[str, JSON | None] = {
                a["id"]: None if a.get("removed") else dict(a) for a in views
            }
            if all(v is not None and k in self.actors for k, v in updates.items()):
                self.actors.update(updates)  # views replaced in place (nearly every frame's)
            else:
                self.actors = placed(self.actors, updates, where)
        after = frame.get("table_after")
        if isinstance(after, Mapping):
            if isinstance(after.get("settings"), Mapping):
                self.settings = dict(after["settings"])
            if "encounter" in after:
                self.encounter = after["encounter"]
        if self.pending is not None and isinstance(frame.get("data"), Mapping):
            try:
                event = Event(self.id, self.epoch, int(frame["seq"]), str(frame.get("kind")),
                              dict(frame["data"]))  # fmt: skip
                self.pending = pending_after(self.pending, event)
            except (Unfit, KeyError, TypeError, ValueError):
                self.pending = None  # not as the log says it was: not known from here
        if isinstance(frame.get("seq"), int):
            self.seq = frame["seq"]

    def limited(self, actor_id: Any) -> bool:
        """Whether this log's audience sees the actor only through the ruleset's
        players' view (an NPC in a player's log): its numbers are withheld."""
        view = self.actors.get(actor_id)
        return view is not None and bool(view.get("limited"))

    def snapshot(self, seq: int, settings: Mapping[str, Any] | None = None) -> TableSnapshot:
        """The table as the engine loads one, at ``seq``, with ``settings`` instead of
        its own where given."""
        info = TableInfo(self.id, self.name, self.ruleset, self.ruleset_version,
                         dict(settings if settings is not None else self.settings),
                         self.epoch, seq)  # fmt: skip
        return TableSnapshot(info=info, actors=self.records(), pending=dict(self.pending or {}),
                             encounter=Encounter.from_dict(self.encounter))  # fmt: skip

    def records(self) -> dict[str, ActorRecord]:
        """Every actor as the engine holds one, in the table's order."""
        records, kept = {}, {}
        for actor_id, view in self.actors.items():
            known = self._records.get(actor_id)
            if known is None or known[0] is not view:
                known = (view, ActorRecord.from_dict(view))
            kept[actor_id] = known
            records[actor_id] = known[1]
        self._records = kept
        return records


def _pending(table: Mapping[str, Any]) -> dict[str, JSON] | None:
    """The requests a welcome's table lists as waiting for approval (the GM's view
    of the table as it stands), by pending id: none at seq 0; None if not listed."""
    listed = table.get("pending")
    if isinstance(listed, list):
        return {e["pending"]: {k: v for k, v in e.items() if k != "pending"} for e in listed}
    return {} if table.get("seq") == 0 else None
