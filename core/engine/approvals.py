"""The GM's answer to a pending request: ``approve`` (resolve it now) or ``reject``.

Requests become pending in :mod:`rollbridge.engine.pending`.
"""

from __future__ import annotations

from collections.abc import Iterable

from rollbridge.engine import rolls
from rollbridge.engine.context import RequestContext, reply_for
from rollbridge.engine.model import Event, Principal
from rollbridge.engine.requests import Request
from rollbridge.exceptions import Conflict, UnknownRequest
from rollbridge.names import shows_nothing
from rollbridge.plain import JSON
from rollbridge.text import Messages

__all__ = ["SETTLED_LISTED", "approve", "pending_entry", "reject", "settled_requests"]

#: How many settled requests :func:`settled_requests` lists at most (the newest).
SETTLED_LISTED = 200

say = Messages("rollbridge")
# Translators: {request} is a pending request's id (p12), {action} an action's name,
# quoted; dice (the approve request's field), rollbridge connect, approve and supply=…
# stay as written; With my dice… and Approve with my dice… are the buttons' labels in the web
# view and the Foundry module: write them as their translations there read.
SECRET_DICE_HELD = say(
    "approval.secret_dice",
    "request {request} gives the player's own dice for action {action}, which is always "
    "secret now (it was not when they asked): dice they chose would tell them how it went. "
    "Reject it so that they ask again without theirs, or approve it with your own dice "
    "(the approve request's dice; in rollbridge connect: approve {request} supply=…; in "
    "the web view: With my dice…; in the Foundry module: Approve with my dice…)",
)


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
    elif fields.get("dice") is not None and not requester.is_gm:
        _refuse_secret_dice(ctx, entry, pending_id)
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


def _refuse_secret_dice(ctx: RequestContext, entry: JSON, pending_id: str) -> None:
    """A player's request held with their own dice for an action that is always secret
    (:attr:`ActionSpec.secret <rollbridge.contract.ActionSpec.secret>`) — one asked
    before the ruleset made it so, since such dice are refused on request now — is
    refused to the GM's approval without the GM's own dice: a :class:`Conflict`
    (``held_dice_secret``) naming the request, the action, why, and what the GM may
    do (reject, or approve with dice: ``rollbridge connect``'s ``approve p12 supply=…``,
    the web view's *With my dice…*, the Foundry module's *Approve with my dice…*); the
    table unchanged. (It was refused ``forbidden``
    with the player's refusal, which told the GM they supplied dice they had not.)"""
    if entry["type"] != "resolve":
        return
    action = entry["fields"].get("action")
    spec = ctx.table.ruleset.actions.get(action) if isinstance(action, str) else None
    if spec is not None and spec.secret:
        raise Conflict(
            SECRET_DICE_HELD(request=pending_id, action=repr(spec.name)),
            code="held_dice_secret",  # a table's conflicts carry codes of their own
            details={"request": pending_id, "action": spec.name, "field": "dice"},
        )


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


def settled_requests(events: Iterable[Event], epoch: int) -> list[JSON]:
    """How the pending requests that ``events`` of ``epoch`` settle were settled, as a
    GM's welcome lists them (docs/protocol.md, ``settled``): ``{"pending", "outcome":
    "approved" | "rejected", "seq"}``, a rejection's ``reason`` too when it shows
    something (one logged before reasons that show nothing were blanked is left out),
    in seq order, the newest :data:`SETTLED_LISTED`. An approved request's event names
    it in ``data.approved``; an ``approval.rejected`` event in ``data.pending``."""
    settled: dict[str, JSON] = {}
    for event in events:
        if event.epoch != epoch:
            continue
        data = event.data
        if event.kind == "approval.rejected" and isinstance(data.get("pending"), str):
            entry: JSON = {"pending": data["pending"], "outcome": "rejected", "seq": event.seq}
            reason = data.get("reason")
            if isinstance(reason, str) and not shows_nothing(reason):
                entry["reason"] = reason
        elif isinstance(data.get("approved"), str):
            entry = {"pending": data["approved"], "outcome": "approved", "seq": event.seq}
        else:
            continue
        settled.pop(entry["pending"], None)  # the latest word on it, last
        settled[entry["pending"]] = entry
    return list(settled.values())[-SETTLED_LISTED:]
