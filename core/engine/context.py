"""The context a request handler runs in: the table, who asks, the request, the
dice, and the draft its changes go into.

Every handler of :data:`~rollbridge.engine.table.HANDLERS` takes one
:class:`RequestContext` and returns the reply template for the requester. It
reads the table through ``ctx.draft`` (which sees the request's own changes
first) and records what happened with :meth:`RequestContext.record`, which adds
the event (with the request's id and who asked) and answers with it. Nothing
touches the table itself: if a handler raises, the draft is dropped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rollbridge.dice.sources import DiceSource
from rollbridge.engine.draft import Draft
from rollbridge.engine.model import ActorRecord, Event, Principal
from rollbridge.engine.requests import Request
from rollbridge.plain import JSON
from rollbridge.text import Messages

if TYPE_CHECKING:
    from rollbridge.engine.table import Table

__all__ = ["SECRET_NOTE", "RequestContext", "reply_for"]

say = Messages("rollbridge")
#: The note of a secret result to the player who asked: kept in English with the
#: reply (a retry gets it again) and rendered in the asker's language when sent.
SECRET_NOTE = say("reply.secret_note", "sent to the GM only")


def reply_for(event: Event, who: Principal) -> JSON:
    """The reply template that reports ``event`` to ``who``: ``secret`` for a
    GM-only event a player asked for, else ``done`` with the view ``who`` gets
    (``view``: ``gm`` or ``players``; the event itself is added when the reply
    is sent, see :mod:`rollbridge.protocol`)."""
    if event.gm_only and not who.is_gm:
        if event.data.get("requester_sees"):  # the GM and the roller (Foundry's GM roll)
            return {"seq": event.seq, "status": "secret", "view": "requester"}
        return {"seq": event.seq, "status": "secret", "note": SECRET_NOTE().render()}
    return {"seq": event.seq, "status": "done", "view": "gm" if who.is_gm else "players"}


@dataclass(slots=True)
class RequestContext:
    """One request being executed; see the module docstring.

    :param table: the table (read it through :attr:`draft`).
    :param request: the validated request.
    :param who: who asks.
    :param dice: the server's dice source for this request.
    :param draft: the changes made so far.
    :param approved: the GM approved this (pending) request: it runs now.
    """

    table: Table
    request: Request
    who: Principal
    dice: DiceSource
    draft: Draft
    approved: bool = False

    @property
    def fields(self) -> Mapping[str, Any]:
        """The request's fields (validated, defaults filled in)."""
        return self.request.fields

    def derived(self, request: Request, who: Principal, *, approved: bool) -> RequestContext:
        """A context for another request on the same draft (an approved one)."""
        return RequestContext(self.table, request, who, self.dice, self.draft, approved)

    def event(
        self,
        kind: str,
        data: JSON,
        *,
        actors: Mapping[str, ActorRecord | None] | None = None,
        table: Mapping[str, Any] | None = None,
        gm_only: bool = False,
        undoable: bool = False,
        texts: list[list[Any]] | None = None,
        private: list[list[Any]] | None = None,
        places: Mapping[str, int] | None = None,
        shown: Sequence[ActorRecord] = (),
    ) -> Event:
        """Add an event of this request to the draft (see :meth:`Draft.add_event`)."""
        event = self.draft.add_event(
            kind,
            data,
            actors=actors,
            table=table,
            gm_only=gm_only,
            undoable=undoable,
            request=self.request.id,
            by=self.who.label(),
            places=places,
            shown=shown,
        )
        if texts:
            event.texts = texts
        if private:
            event.private = private
        return event

    def record(self, kind: str, data: JSON, **options: Any) -> JSON:
        """Add an event (as :meth:`event`) and return the reply that reports it."""
        return reply_for(self.event(kind, data, **options), self.who)
