"""The table engine's data: tables, actors, principals, events, commits.

Everything here is plain data that serialises to JSON/msgpack with
``to_dict`` and back with ``from_dict``; the stores keep exactly that.

An :class:`Event` records what changed as *changes*: for each actor touched,
its whole record before and after (``None`` for created / removed), and for
the table its settings and encounter before and after. That one shape serves
every purpose: applying an event folds the ``after`` side, undo applies the
``before`` side as a new event, a snapshot at an older seq walks back through
``before`` sides, and views redact records actor by actor.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Literal

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

JSON = dict[str, Any]


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
    def from_dict(cls, data: JSON) -> ActorRecord:
        return cls(
            id=data["id"],
            name=data["name"],
            sheet=copy.deepcopy(data.get("sheet") or {}),
            state=copy.deepcopy(data.get("state") or {}),
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
        ``encounter.started``, ``encounter.turn``, ``encounter.ended``,
        ``approval.requested``, ``approval.rejected``.
    :param data: what happened, by kind (the dice, the narration, …).
    :param changes: per actor touched, ``{"actor": id, "before": record|None,
        "after": record|None}``.
    :param table_change: ``{"before": {...}, "after": {...}}`` for the table
        fields changed (``settings``, ``encounter``, ``pending``), or None.
    :param gm_only: only the GM may see it (secret rolls, approval requests).
    :param undoable: the GM's undo may reverse it.
    :param request: the request id that caused it.
    :param by: who asked (``gm``, ``player:alice``).
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
    #: Views already built (``True``: the GM's, ``False``: everyone else's); not stored.
    views: dict[bool, JSON] = field(default_factory=dict, repr=False, compare=False)

    def to_dict(self) -> JSON:
        return {
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

    @classmethod
    def from_dict(cls, data: JSON) -> Event:
        return cls(
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
        )

    def touched(self) -> list[str]:
        """Ids of the actors this event changes."""
        return [change["actor"] for change in self.changes]


@dataclass(slots=True)
class TableSnapshot:
    """Everything needed to rebuild a table engine: what a store loads."""

    info: TableInfo
    actors: dict[str, ActorRecord]
    encounter: Encounter | None = None
    pending: dict[str, JSON] = field(default_factory=dict)
    undo: list[int] = field(default_factory=list)
    redo: list[int] = field(default_factory=list)

    def meta(self) -> JSON:
        """The table-level state besides info and actors, as stored."""
        return {
            "encounter": self.encounter.to_dict() if self.encounter else None,
            "pending": copy.deepcopy(self.pending),
            "undo": list(self.undo),
            "redo": list(self.redo),
        }


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
        approval also the player's original request).
    """

    events: list[Event]
    actors: list[ActorRecord]
    removed: list[str]
    info: TableInfo
    meta: JSON
    replies: dict[str, JSON] = field(default_factory=dict)
