"""The GM's answer to a pending request: ``approve`` (resolve it now) or ``reject``.

Requests become pending in :mod:`rollbridge.engine.pending`.
"""

from __future__ import annotations

from rollbridge.engine import rolls
from rollbridge.engine.context import RequestContext, reply_for
from rollbridge.engine.model import Principal
from rollbridge.engine.requests import Request
from rollbridge.exceptions import UnknownRequest
from rollbridge.names import shows_nothing
from rollbridge.plain import JSON
from rollbridge.text import Messages

__all__ = ["approve", "pending_entry", "reject"]

say = Messages("rollbridge")


def pending_entry(ctx: RequestContext, pending_id: str) -> JSON:
    """A pending request by its id. :raises UnknownRequest:"""
    entry = ctx.table.pending.get(pending_id)
    if entry is None:
        raise UnknownRequest(
            say("approval.unknown", "no pending request {request}")(request=repr(pending_id)),
            details={"request": pending_id},
        )
    return entry


def approve(ctx: RequestContext) -> JSON:
    """``approve``: resolve the pending request now, apply it, and answer both the GM
    and (for a retry) the player."""
    table, draft = ctx.table, ctx.draft
    pending_id = ctx.fields["request"]
    entry = pending_entry(ctx, pending_id)
    requester = Principal(**entry["who"])
    fields = dict(entry["fields"])
    gm_dice = ctx.fields.get("dice") is not None
    if gm_dice:
        fields["dice"] = ctx.fields["dice"]
    original = Request(entry["type"], entry["id"], fields)
    draft.table_fields["pending"] = {k: v for k, v in table.pending.items() if k != pending_id}
    handler = rolls.roll if original.type == "roll" else rolls.resolve
    # The GM's supplied dice are the GM's to give; the player's were checked on request.
    asker = ctx.who if gm_dice else requester
    handler(ctx.derived(original, asker, approved=True))
    event = draft.events[-1]
    event.by = requester.label()
    event.data = {**event.data, "approved": pending_id, "approved_by": ctx.who.label()}
    draft.replies[table.reply_key(requester, original.id)] = reply_for(event, requester)
    return {**reply_for(event, ctx.who), "approved": pending_id}


def reject(ctx: RequestContext) -> JSON:
    """``reject``: discard the pending request; the player's retry gets ``rejected``."""
    table = ctx.table
    pending_id = ctx.fields["request"]
    entry = pending_entry(ctx, pending_id)
    requester = Principal(**entry["who"])
    reason = ctx.fields.get("reason", "")
    if shows_nothing(reason):  # spaces, zero-width characters: no reason, not "“”"
        reason = ""
    event = ctx.event(
        "approval.rejected",
        {
            "pending": pending_id,
            "request": entry["id"],
            "type": entry["type"],
            "requested_by": requester.label(),
            "reason": reason,
        },
    )
    ctx.draft.table_fields["pending"] = {k: v for k, v in table.pending.items() if k != pending_id}
    ctx.draft.replies[table.reply_key(requester, entry["id"])] = {
        "seq": event.seq,
        "status": "rejected",
        "reason": reason,
    }
    return reply_for(event, ctx.who)
