"""The clients at a table, and each durable event framed once for all of them.

A :class:`Member` is one connection joined to a table, as the protocol sees it:
who it is (its principal, hence its audience), the kind of frames it reads, its
dialect adapter, its locale, its ``hello`` options, and the last seq it was
sent. A :class:`Delivery` is one event ready to go out: its view is built at
most once per audience and its frame encoded at most once per audience, frame
kind and adapter instance, however many members share them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rollbridge.adapter import Adapter
from rollbridge.engine.model import Event, Principal
from rollbridge.engine.views import Audience
from rollbridge.plain import JSON, Packed, dumps_json, pack
from rollbridge.protocol.frames import Kind, encode, encode_with, event_frame
from rollbridge.text import stored

if TYPE_CHECKING:
    from rollbridge.engine.table import Table

__all__ = ["Delivery", "Member"]


@dataclass(eq=False, slots=True)
class Member:
    """One client at a table.

    :param principal: who the client is (from its token).
    :param kind: the kind of frames it reads (``msgpack`` or ``json``).
    :param adapter: its dialect's adapter for this connection, or None.
    :param locale: the language of the texts it is sent.
    :param brief: ``hello`` option ``results: "brief"``: results of its own
        requests do not repeat the event it receives as an ``event`` anyway.
    :param origin: the driver's handle of the connection.
    :param hello_id: the id of its ``hello``, echoed in the ``welcome``.
    :param notes: what its ``welcome`` tells it about its ``hello`` (``notes``:
        ``{"code", "message"}`` each; a locale it asked for that is not available).
    :param on_refused: called (with nothing) when it is marked :attr:`refused`: its
        connection is no longer at a table (its driver starts its ``hello`` deadline
        anew).
    """

    principal: Principal
    kind: Kind = "json"
    adapter: Adapter | None = None
    locale: str = "en"
    brief: bool = False
    origin: Any = None
    hello_id: Any = None
    notes: tuple[JSON, ...] = ()
    on_refused: Callable[[], None] | None = None
    #: The highest seq of an event sent to it: nothing at or below it is sent again.
    last_seq: int = -1
    #: Set once it left or was cut off: nothing more is sent.
    gone: bool = False
    #: Set when its ``hello`` was refused after the table took it (its welcome
    #: failed): it left, and its connection is no longer at the table.
    refused: bool = False
    #: Who its views are for (the GM or the players, in its locale).
    audience: Audience = field(init=False)

    def __post_init__(self) -> None:
        self.audience = Audience(self.principal.is_gm, self.locale)

    def encode(self, message: JSON) -> bytes | str:
        """A message as a frame for this member (through its adapter)."""
        if self.adapter is not None:
            message = self.adapter.outbound(message)
        return encode(message, self.kind)


def npcs_of(players_view: JSON) -> list[JSON]:
    """The NPCs' views in a players' view of a table (no player controls them)."""
    return [actor for actor in players_view.get("actors") or () if not actor.get("controllers")]


def wants_public_view(adapter: Adapter | None, kind: str) -> bool:
    """Whether ``adapter``'s ``public_view`` (True, or the kinds) asks for the players'
    view of ``kind`` (an event kind, or ``welcome``) in a GM's frames."""
    wanted = getattr(adapter, "public_view", None)
    return bool(wanted) and (wanted is True or kind in wanted)


@dataclass(eq=False, slots=True)
class Delivery:
    """One durable event, viewed and framed once per audience, kind and adapter.

    An adapter whose ``public_view`` asks for it (True, or the event kinds) gets,
    in the GM's ``event`` frame of an event that is not GM-only, the players' view
    too: ``players``, the frame a player in the GM's locale is sent. Of a GM-only
    event that changed actors it gets it when ``public_view`` is True or holds
    ``hidden``: the ``hidden`` event players are sent, with their views of those
    actors. Of a ``settings`` change, only when it changed how players see some
    actors (:attr:`Event.shown <rollbridge.engine.model.Event.shown>`, or
    :attr:`Event.reread <rollbridge.engine.model.Event.reread>`): their views are in
    the players' copy alone — of a ``reread`` one, beside the mark players get, the
    players' views of every NPC of the table as it stands when the frame is built
    (:meth:`_npcs_as_players_see`)."""

    table: Table
    event: Event
    _frames: dict[Any, bytes | str] = field(default_factory=dict)

    @property
    def seq(self) -> int:
        return self.event.seq

    def view(self, audience: Audience) -> JSON:
        """The event as ``audience`` sees it. :raises InternalError:"""
        return self.table.view_event(self.event, audience=audience)

    def encoded_view(self, audience: Audience, kind: Kind) -> bytes | str:
        """The view alone, encoded for ``kind``, to embed in a result."""
        key = (audience, kind)
        found = self.event.views.get(key)
        if found is None:
            view = self.view(audience)
            found = Packed(pack(view, stored)) if kind == "msgpack" else dumps_json(view, stored)
            self.event.views[key] = found
        return found

    def frame(self, member: Member) -> bytes | str:
        """The ``event`` frame for ``member``. :raises InternalError: NotPlain:"""
        audience = member.audience
        key = (audience, member.kind, member.adapter)
        frame = self._frames.get(key)
        if frame is None:
            view = self.view(audience)
            if member.adapter is not None:
                message: JSON = {"type": "event", "table": self.table.info.id, **view}
                if audience.gm and self._public_view_for(member.adapter):
                    # what a player in this locale is sent of the event, for a client
                    # that shows it to players (the adapter's public_view)
                    players = self.view(Audience(False, audience.locale))
                    if self.event.reread:
                        players = {**players, "actors": self._npcs_as_players_see(audience)}
                    message["players"] = {"type": "event", "table": self.table.info.id, **players}
                frame = member.encode(message)
            else:
                # the view's own bytes, with "type" and "table" put in front
                encoded = self.encoded_view(audience, member.kind)
                frame = event_frame(self.table.info.id, encoded, member.kind)
            self._frames[key] = frame
        return frame

    def _npcs_as_players_see(self, audience: Audience) -> list[JSON]:
        """The players' views of every NPC of the table as it stands, in ``audience``'s
        locale: what a ``reread`` event's players' copy carries in a GM's adapter frame
        in place of the records the stored event could not hold (a player reads them
        with ``state``, which answers a GM the GM's view). The frame is built when the
        event is sent: live, right after it, the table as it left it; resent on a
        resume, the table as it is then, which the later events resent after it lead
        to as well."""
        return npcs_of(self.table.view(gm=False, locale=audience.locale))

    def _public_view_for(self, adapter: Adapter) -> bool:
        """Whether the GM's frames of this event through ``adapter`` carry the
        players' view too: its ``public_view`` (True, or the event kinds) asks for
        it — for a GM-only event, one that changed actors, by the kind players
        receive it as (``hidden``)."""
        kind = "hidden" if self.event.gm_only else self.event.kind
        if self.event.gm_only and not self.event.changes:
            return False
        if kind == "settings" and not (self.event.shown or self.event.reread):
            return False  # players see no actor of it differently: nothing to write
        return wants_public_view(adapter, kind)


def result_frame(
    member: Member, message: JSON, delivery: Delivery | None, audience: Audience | None = None
) -> bytes | str:
    """A result for ``member``; its ``event`` (the view of ``delivery``'s event for
    ``audience``, by default the member's) embedded already encoded where the member
    has no adapter."""
    if delivery is None or "event" not in message or member.adapter is not None:
        return member.encode(message)
    fields = dict(message)
    del fields["event"]
    seen = delivery.encoded_view(audience or member.audience, member.kind)
    return encode_with(fields, "event", seen, member.kind)
