"""The table engine's data: tables, actors, principals, events, commits.

Everything here is plain data that serialises to JSON/msgpack with
``to_dict`` and back with ``from_dict``; the stores keep exactly that.

An :class:`Event` records what changed as *changes*: for each actor touched,
its whole record before and after (``None`` for created / removed; a removal also
records where the actor stood, :mod:`rollbridge.engine.places`), and for the table
its settings and encounter before and after. That one shape serves
every purpose: applying an event folds the ``after`` side, undo applies the
``before`` side as a new event, a snapshot at an older seq walks back through
``before`` sides, and views redact records actor by actor.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from rollbridge.engine.forms import (
    MARK,
    before_texts,
    has_outcome,
    holds_nobodys_form,
    read_forms,
)
from rollbridge.plain import JSON, pack, unpack
from rollbridge.text import Places, stored

if TYPE_CHECKING:
    from rollbridge.engine.redaction import Redaction

__all__ = [
    "ROLES",
    "ActorRecord",
    "Commit",
    "Encounter",
    "Event",
    "Principal",
    "Role",
    "TableInfo",
    "TableSnapshot",
]

Role = Literal["gm", "player", "observer"]
ROLES: tuple[Role, ...] = ("gm", "player", "observer")


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is asking: a role at one table and the name of the token used.

    :param role: ``gm``, ``player`` or ``observer``.
    :param name: the token's name (``player``, ``alice``); actors list the
        names of the players who control them.
    :param key: a stable, non-secret id of the token, scoping request ids
        (two clients may both send request id ``1``).
    """

    role: Role
    name: str
    key: str = ""

    @property
    def is_gm(self) -> bool:
        return self.role == "gm"

    def label(self) -> str:
        return self.name if self.name == self.role else f"{self.role}:{self.name}"


@dataclass(slots=True)
class TableInfo:
    """A table's identity and settings, and where its event log stands."""

    id: str
    name: str
    ruleset: str
    ruleset_version: str
    settings: JSON = field(default_factory=dict)
    epoch: int = 1
    seq: int = 0

    def to_dict(self) -> JSON:
        return {
            "id": self.id,
            "name": self.name,
            "ruleset": self.ruleset,
            "ruleset_version": self.ruleset_version,
            "settings": copy.deepcopy(self.settings),
            "epoch": self.epoch,
            "seq": self.seq,
        }

    def summary(self) -> JSON:
        """The table as the admin API and ``rollbridge table … --json`` show it: its
        id, name, ruleset and where its log stands, without its settings."""
        return {
            "id": self.id,
            "name": self.name,
            "ruleset": self.ruleset,
            "ruleset_version": self.ruleset_version,
            "epoch": self.epoch,
            "seq": self.seq,
        }

    @classmethod
    def from_dict(cls, data: JSON) -> TableInfo:
        return cls(
            id=data["id"],
            name=data["name"],
            ruleset=data["ruleset"],
            ruleset_version=data["ruleset_version"],
            settings=dict(data.get("settings") or {}),
            epoch=int(data.get("epoch", 1)),
            seq=int(data.get("seq", 0)),
        )


@dataclass(slots=True)
class ActorRecord:
    """An actor at a table: id, name, sheet, ruleset state, controlling players."""

    id: str
    name: str
    sheet: JSON
    state: JSON
    controllers: list[str] = field(default_factory=list)
    #: The record packed (msgpack), made once: records are never changed in place.
    _packed: bytes | None = field(default=None, repr=False, compare=False)

    def packed(self) -> bytes:
        """The record as msgpack bytes (packed once, then shared).

        :raises NotPlain: if the record holds something that is not plain data.
        """
        if self._packed is None:
            self._packed = pack(self.as_data())
        return self._packed

    def as_data(self) -> JSON:
        """The record as plain data, sharing its sheet and state (never change them)."""
        return {
            "id": self.id,
            "name": self.name,
            "sheet": self.sheet,
            "state": self.state,
            "controllers": self.controllers,
        }

    @property
    def is_npc(self) -> bool:
        """An actor no player controls; players see it through the ruleset's view."""
        return not self.controllers

    def to_dict(self) -> JSON:
        return {
            "id": self.id,
            "name": self.name,
            "sheet": copy.deepcopy(self.sheet),
            "state": copy.deepcopy(self.state),
            "controllers": list(self.controllers),
        }

    @classmethod
    def from_dict(cls, data: JSON, *, fresh: bool = False) -> ActorRecord:
        """A record from its dict; ``fresh``: the dict was just unpacked and is the
        record's own (its sheet and state are taken, not copied)."""
        sheet, state = data.get("sheet") or {}, data.get("state") or {}
        if not fresh:
            sheet, state = copy.deepcopy(sheet), copy.deepcopy(state)
        return cls(
            id=data["id"],
            name=data["name"],
            sheet=sheet,
            state=state,
            controllers=list(data.get("controllers") or []),
        )


@dataclass(slots=True)
class Encounter:
    """A running encounter: the turn order, the round (from 1) and whose turn it is."""

    order: list[str]
    round: int = 1
    turn: int = 0

    @property
    def current(self) -> str | None:
        return self.order[self.turn] if self.order else None

    def to_dict(self) -> JSON:
        return {
            "order": list(self.order),
            "round": self.round,
            "turn": self.turn,
            "current": self.current,
        }

    @classmethod
    def from_dict(cls, data: JSON | None) -> Encounter | None:
        if not data:
            return None
        return cls(order=list(data["order"]), round=int(data["round"]), turn=int(data["turn"]))


@dataclass(slots=True)
class Event:
    """One entry of a table's log, with its place (epoch, seq) and its changes.

    :param kind: ``roll``, ``resolution``, ``actor.created``, ``actor.updated``,
        ``actor.removed``, ``adjusted``, ``undo``, ``redo``, ``settings``,
        ``encounter.started``, ``encounter.turn``, ``encounter.reordered``,
        ``encounter.ended``, ``approval.requested``, ``approval.rejected``.
    :param data: what happened, by kind (the dice, the narration, …).
    :param changes: per actor touched, ``{"actor": id, "before": record|None,
        "after": record|None}``; one that takes an actor out, and one that puts it
        back at a place, also has ``index``: its place among the table's actors
        (:mod:`rollbridge.engine.places`; changes stored before it have none).
    :param table_change: ``{"before": {...}, "after": {...}}`` for the table
        fields changed (``settings``, ``encounter``, ``pending``), or None.
    :param gm_only: only the GM may see it (secret rolls, approval requests).
    :param undoable: the GM's undo may reverse it.
    :param request: the request id that caused it.
    :param by: who asked (``gm``, ``player:alice``).
    :param texts: where in ``data`` texts are (paths of keys and indices), in
        their stored form (:mod:`rollbridge.text`); rendered per audience.
    :param private: ``[path, actor id, aspect, instead?, instead is a text?]`` for
        each value in ``data`` that is one actor's detail
        (:class:`~rollbridge.text.Private`; entries stored before the last mark
        have four items at most).
    :param at: when it was executed, in seconds since the Unix epoch (UTC), from
        the clock its driver gave the table (:attr:`Table.clock
        <rollbridge.engine.table.Table.clock>`); None where no clock was given
        (and in logs written before events carried a time).
    :param shown: the records, as the event left them, of the actors whose view
        players now see differently though the event did not change them (a
        ``settings`` change, or its ``undo`` or ``redo``, that shows or hides an
        NPC's details: :func:`~rollbridge.engine.views.reshown`); players' views of
        the event list them in ``actors``, the GM's does not. Stored only when there
        are some: events stored before it have none, and read as they did.
    :param reread: the event changed how players see some actors, but their records
        did not fit in it (:attr:`shown` would have passed the largest event the
        table stores): it keeps none, and players' views of it carry ``"reread":
        true`` instead, telling a client to read the table's ``state`` again.
        Stored only when True.
    :param forms: its outcomes' stored private forms were read as private values when
        it was made (every event made since 7 December 2026): stored as ``"forms":
        true`` on an event with an outcome. An event read without it has them read so
        then (:mod:`rollbridge.engine.forms`), and is marked when stored again only
        where each of its outcomes could be read.
    """

    table: str
    epoch: int
    seq: int
    kind: str
    data: JSON = field(default_factory=dict)
    changes: list[JSON] = field(default_factory=list)
    table_change: JSON | None = None
    gm_only: bool = False
    undoable: bool = False
    request: str | None = None
    by: str | None = None
    texts: list[list[Any]] = field(default_factory=list)
    private: list[list[Any]] = field(default_factory=list)
    at: float | None = None
    shown: list[JSON] = field(default_factory=list)
    reread: bool = False
    forms: bool = True
    #: Views already built, by audience; not stored.
    views: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)
    #: The table as this event left it, as its views depend on it (the settings and
    #: who was a player's): set when it is staged, or walked back to when it is read
    #: from the log (:mod:`rollbridge.engine.redaction`); None: shown as the table
    #: is now. Not stored, not compared.
    redaction: Redaction | None = field(default=None, repr=False, compare=False)
    #: The stored form packed (msgpack), made once; not compared.
    _packed: bytes | None = field(default=None, repr=False, compare=False)
    #: Its places trees (:meth:`places`), with and without private values; not compared.
    _places: dict[bool, Places] | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> JSON:
        data = {
            "table": self.table,
            "epoch": self.epoch,
            "seq": self.seq,
            "kind": self.kind,
            "data": self.data,
            "changes": self.changes,
            "table_change": self.table_change,
            "gm_only": self.gm_only,
            "undoable": self.undoable,
            "request": self.request,
            "by": self.by,
        }
        if self.texts:
            data["texts"] = self.texts
        if self.private:
            data["private"] = self.private
        if self.at is not None:
            data["at"] = self.at
        if self.shown:
            data["shown"] = self.shown
        if self.reread:
            data["reread"] = True
        if self.forms and has_outcome(self.data):
            data[MARK] = True
        return data

    def packed(self) -> bytes:
        """The stored form as msgpack bytes, packed once (the store writes these).

        :raises NotPlain: if the event holds something that is not plain data.
        """
        if self._packed is None:
            self._packed = pack(self.to_dict(), stored)
        return self._packed

    def places(self, privates: bool = True) -> Places:
        """Where its texts (and, with ``privates``, its private values) are, as a tree
        (:meth:`Places.of <rollbridge.text.Places.of>`: shared by the events of the
        same shape): a view that hides nothing walks only to the texts."""
        if self._places is None:
            self._places = {}
        found = self._places.get(privates)
        if found is None:
            found = self._places[privates] = Places.of(self.texts, self.private if privates else ())
        return found

    def forget_packed(self) -> None:
        """Drop the packed form and the views (after the event was changed)."""
        self._packed = None
        self.views.clear()

    @classmethod
    def from_dict(cls, data: JSON, *, nobodys: bool = True) -> Event:
        """An event from its stored form (:meth:`to_dict`); one stored before its
        outcomes' private forms were read has them read now
        (:func:`~rollbridge.engine.forms.read_forms`), and so has a marked one whose
        outcome holds a form of no actor as data
        (:func:`~rollbridge.engine.forms.holds_nobodys_form`) — looked for only where
        ``nobodys`` (False: its packed bytes hold no ``"of"`` null, :data:`NOBODYS`)."""
        event = cls(
            table=data["table"],
            epoch=int(data["epoch"]),
            seq=int(data["seq"]),
            kind=data["kind"],
            data=data.get("data") or {},
            changes=list(data.get("changes") or []),
            table_change=data.get("table_change"),
            gm_only=bool(data.get("gm_only", False)),
            undoable=bool(data.get("undoable", False)),
            request=data.get("request"),
            by=data.get("by"),
            texts=list(data.get("texts") or []),
            private=list(data.get("private") or []),
            at=_time(data.get("at")),
            shown=list(data.get("shown") or []),
            reread=data.get("reread") is True,
        )
        if (
            has_outcome(event.data)
            and (data.get(MARK) is not True or (nobodys and holds_nobodys_form(event.data)))
            and not before_texts(event.kind, event.data, event.texts, event.private, event.at)
        ):  # unmarked, or marked with a form of no actor left as data (forms.py)
            event.forms = read_forms(event.data, event.texts, event.private)
        return event

    @classmethod
    def unpacked(cls, blob: bytes) -> Event:
        """An event from its stored bytes (:meth:`packed`, as a log keeps them), which
        it keeps as its packed form: a table holding it packed does not pack it again."""
        event = cls.from_dict(unpack(blob), nobodys=NOBODYS in blob)
        event._packed = bytes(blob)
        return event

    def touched(self) -> list[str]:
        """Ids of the actors this event changes."""
        return [change["actor"] for change in self.changes]


#: A key ``of``'s bytes and a null after them, as msgpack packs them, whatever the
#: key's header (rollbridge's packers write a two-letter key as a fixstr, ``a2``;
#: msgpack allows str8, str16 and str32 too, as another writer of the file may use:
#: matched on the header, rev29o found such a row's form sent to players): packed
#: bytes without them hold no stored form of no actor, and a marked event's outcome
#: is not walked for one (``Event.from_dict``'s ``nobodys``; the walk cost a decode
#: of an sr2 attack 60 %). Another key ending in ``of`` only costs a walk.
NOBODYS = b"of\xc0"


def _time(value: Any) -> float | None:
    """A stored event's time, or None (absent, or not a number)."""
    if value.__class__ in (int, float):
        return float(value)
    return None


@dataclass(slots=True)
class TableSnapshot:
    """Everything needed to rebuild a table engine: what a store loads."""

    info: TableInfo
    actors: dict[str, ActorRecord]
    encounter: Encounter | None = None
    pending: dict[str, JSON] = field(default_factory=dict)
    undo: list[int] = field(default_factory=list)
    redo: list[int] = field(default_factory=list)
    #: The verifiable dice's segment (``{"segment": k, "open": bool}``), or None.
    dice: JSON | None = None
    #: Which epochs the table's history ran through (:mod:`rollbridge.engine.epochs`),
    #: or None: not recorded (a table never restored).
    epochs: JSON | None = None

    @classmethod
    def from_meta(
        cls, info: TableInfo, actors: dict[str, ActorRecord], meta: JSON
    ) -> TableSnapshot:
        """A snapshot from a store's info, actors and :meth:`meta` (a meta stored
        before a field existed reads that field's default)."""
        return cls(
            info=info,
            actors=actors,
            encounter=Encounter.from_dict(meta["encounter"]),
            pending=meta["pending"],
            undo=meta["undo"],
            redo=meta["redo"],
            dice=meta.get("dice"),
            epochs=meta.get("epochs"),
        )

    def meta(self) -> JSON:
        """The table-level state besides info and actors, as stored (``epochs`` only
        where recorded)."""
        meta = {
            "encounter": self.encounter.to_dict() if self.encounter else None,
            "pending": copy.deepcopy(self.pending),
            "undo": list(self.undo),
            "redo": list(self.redo),
            "dice": copy.deepcopy(self.dice),
        }
        if self.epochs is not None:
            meta["epochs"] = copy.deepcopy(self.epochs)
        return meta


@dataclass(slots=True)
class Commit:
    """What one request changed, for a store to write atomically.

    :param events: the new events, in seq order.
    :param actors: actor records created or changed (their full new record).
    :param removed: ids of actors removed.
    :param info: the table's info after the request (seq, settings).
    :param meta: the table's meta after the request (encounter, pending, undo, redo).
    :param replies: the reply to return for a repeat of each request this
        commit answers, by idempotency key (the request itself, and on
        approval also the player's original request). A reply that reports an
        event names it (``seq``) and the audience whose view it carries
        (``view``: ``gm`` or ``players``) rather than holding the view.
    :param order: the ids of every actor of the table after the request, in order,
        when that is not the order the store holds with ``actors`` changed in their
        place, new ones added last (in the order given) and ``removed`` taken out —
        an undone removal puts its actor back where it stood
        (:mod:`rollbridge.engine.places`); None: it is.
    :param packed_replies: ``replies`` packed (msgpack), in their order, as
        ``(key, bytes)``: the table packs them when it stages the request (the
        check that they can be stored), and every store writes these bytes
        (None: it packs ``replies`` itself).
    """

    events: list[Event]
    actors: list[ActorRecord]
    removed: list[str]
    info: TableInfo
    meta: JSON
    replies: dict[str, JSON] = field(default_factory=dict)
    order: list[str] | None = None
    packed_replies: tuple[tuple[str, bytes], ...] | None = None
