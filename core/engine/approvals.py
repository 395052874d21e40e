"""Players' requests waiting for the GM: pending, ``approve``, ``reject``.

The pending requests are table state, but events do not record the whole
list before and after (it would grow with every request): each event says
which request was added or settled, and the table keeps the list. A table
holds at most :data:`MAX_PENDING` of them, a player at most
:data:`MAX_PENDING_PER_PLAYER`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rollbridge.dice.sources import DiceSource
from rollbridge.engine import rolls
from rollbridge.engine.draft import Draft
from rollbridge.engine.model import Principal
from rollbridge.engine.requests import Request
from rollbridge.exceptions import Conflict, UnknownRequest

if TYPE_CHECKING:
    from rollbridge.engine.table import Table

JSON = dict[str, Any]

#: Requests waiting for the GM at one table, and from one player's token.
MAX_PENDING = 64
MAX_PENDING_PER_PLAYER = 8


def pend(table: Table, draft: Draft, request: Request, who: Principal) -> JSON:
    """Store a player's checked request as pending (a GM-only event) and answer ``pending``."""
    pending = dict(draft.field("pending"))
    mine = sum(1 for e in pending.values() if e["who"]["key"] == who.key)
    if len(pending) >= MAX_PENDING or mine >= MAX_PENDING_PER_PLAYER:
        raise Conflict(
            "too many requests are waiting for the GM's approval "
            f"(at most {MAX_PENDING_PER_PLAYER} per player, {MAX_PENDING} per table)",
            code="too_many_pending",
        )
    pending_id = f"p{table.info.seq + 1}"
    entry = {
        "type": request.type,
        "id": request.id,
        "fields": dict(request.fields),
        "who": {"role": who.role, "name": who.name, "key": who.key},
    }
    pending[pending_id] = entry
    draft.table_fields["pending"] = pending
    draft.add_event(
        "approval.requested",
        {"pending": pending_id, "request": entry},
        gm_only=True,
        request=request.id,
        by=who.label(),
    )
    return {"pending": pending_id, "status": "pending"}


def pending_entry(table: Table, pending_id: str) -> JSON:
    """A pending request by its id. :raises UnknownRequest:"""
    entry = table.pending.get(pending_id)
    if entry is None:
        raise UnknownRequest(f"no pending request {pending_id!r}", details={"request": pending_id})
    return entry


def approve(table: Table, draft: Draft, request: Request, who: Principal, dice: DiceSource) -> JSON:
    """``approve``: resolve the pending request now, apply it, and answer both the GM and (for a
    retry) the player."""
    pending_id = request.fields["request"]
    entry = pending_entry(table, pending_id)
    requester = Principal(**entry["who"])
    fields = dict(entry["fields"])
    if request.fields.get("dice") is not None:
        fields["dice"] = request.fields["dice"]
        requester_dice_ok = True
    else:
        requester_dice_ok = False
    original = Request(entry["type"], entry["id"], fields)
    pending = {k: v for k, v in table.pending.items() if k != pending_id}
    draft.table_fields["pending"] = pending
    handler = rolls.roll if original.type == "roll" else rolls.resolve
    # The GM's supplied dice are the GM's to give; the player's were checked on request.
    asker = who if requester_dice_ok else requester
    handler(table, draft, original, asker, dice, approved=True)
    event = draft.events[-1]
    event.by = requester.label()
    event.data = {**event.data, "approved": pending_id, "approved_by": who.label()}
    event.views.clear()  # built before the approval was noted on it
    draft.replies[table.reply_key(requester, original.id)] = table.reply_for(event, requester)
    return {**table.reply_for(event, who), "approved": pending_id}


def reject(table: Table, draft: Draft, request: Request, who: Principal, dice: DiceSource) -> JSON:
    """``reject``: discard the pending request; the player's retry gets ``rejected``."""
    pending_id = request.fields["request"]
    entry = pending_entry(table, pending_id)
    pending = {k: v for k, v in table.pending.items() if k != pending_id}
    requester = entry["who"]
    event = draft.add_event(
        "approval.rejected",
        {
            "pending": pending_id,
            "request": entry["id"],
            "type": entry["type"],
            "requested_by": Principal(**requester).label(),
            "reason": request.fields.get("reason", ""),
        },
        request=request.id,
        by=who.label(),
    )
    draft.table_fields["pending"] = pending
    draft.replies[table.reply_key(Principal(**requester), entry["id"])] = {
        "seq": event.seq,
        "status": "rejected",
        "reason": request.fields.get("reason", ""),
    }
    return table.reply_for(event, who)
