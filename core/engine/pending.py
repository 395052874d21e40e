"""Holding a player's checked request for the GM's approval (table setting ``approval``).

The pending requests are table state, but events do not record the whole list
before and after (it would grow with every request): each event says which
request was added or settled, and the table keeps the list. A table holds at
most :data:`MAX_PENDING` of them, a player at most :data:`MAX_PENDING_PER_PLAYER`,
and all of them together at most :data:`MAX_PENDING_BYTES` packed, a player's at most
:data:`MAX_PENDING_BYTES_PER_PLAYER`: the list is part of the table's meta, which the
SQLite store writes again with every commit's log row, so its size is multiplied by
``--retain`` on disk.
``approve`` and ``reject`` are in :mod:`rollbridge.engine.approvals`.
"""

from __future__ import annotations

from rollbridge.engine.context import RequestContext
from rollbridge.exceptions import Conflict
from rollbridge.plain import JSON, pack
from rollbridge.text import Messages

__all__ = [
    "MAX_PENDING",
    "MAX_PENDING_BYTES",
    "MAX_PENDING_BYTES_PER_PLAYER",
    "MAX_PENDING_PER_PLAYER",
    "pend",
]

#: Requests waiting for the GM at one table, and from one player's token.
MAX_PENDING = 64
MAX_PENDING_PER_PLAYER = 8
#: The bytes (msgpack) all the requests waiting at one table may take together: room
#: for the 64 largest plain rolls in Latin letters (~900 bytes each: a 256-character
#: formula, a 200-character label, a 64-character id, a token's 200-character name),
#: 48 in Cyrillic (two bytes a letter: six a player, :data:`MAX_PENDING_BYTES_PER_PLAYER`),
#: or eight players' rolls that supply 1,499 dice each. Each commit's log row holds them
#: on SQLite, so ``--retain`` rows hold at most ``retain`` × this (64 MiB at the default
#: 1,000) — without it, 64 rolls with supplied dice (``player_dice``) made a 1 MiB list
#: and 1 GiB of log per table.
MAX_PENDING_BYTES = 64 * 1024
#: The bytes one player's token may keep waiting: its share of :data:`MAX_PENDING_BYTES`
#: as :data:`MAX_PENDING_PER_PLAYER` is of :data:`MAX_PENDING` (8 KiB: eight of the
#: largest plain rolls in Latin letters, or a roll supplying 1,499 dice of a million
#: faces), so that no player alone fills the table's bytes and holds every other
#: player's requests back, as the counts ensure: without it one player's four rolls
#: supplying their 2,997 dice each took the whole 64 KiB.
MAX_PENDING_BYTES_PER_PLAYER = MAX_PENDING_BYTES * MAX_PENDING_PER_PLAYER // MAX_PENDING

say = Messages("rollbridge")


def pend(ctx: RequestContext) -> JSON:
    """Store a player's checked request as pending (a GM-only event) and answer ``pending``."""
    who, request, draft = ctx.who, ctx.request, ctx.draft
    pending = dict(draft.field("pending"))
    mine = sum(1 for e in pending.values() if e["who"]["key"] == who.key)
    if len(pending) >= MAX_PENDING or mine >= MAX_PENDING_PER_PLAYER:
        raise Conflict(
            say(
                "approval.too_many",
                "too many requests are waiting for the GM's approval "
                "(at most {per_player} per player, {per_table} per table)",
            )(per_player=MAX_PENDING_PER_PLAYER, per_table=MAX_PENDING),
            code="too_many_pending",
        )
    pending_id = f"p{ctx.table.info.seq + 1}"
    entry = {
        "type": request.type,
        "id": request.id,
        "fields": dict(request.fields),
        "who": {"role": who.role, "name": who.name, "key": who.key},
    }
    pending[pending_id] = entry
    theirs = len(pack({k: e for k, e in pending.items() if e["who"]["key"] == who.key}))
    if theirs > MAX_PENDING_BYTES_PER_PLAYER:
        raise Conflict(
            # Translators: {limit} is a number of KiB (8).
            say(
                "approval.too_large_player",
                "your requests waiting for the GM's approval, this one with them, would "
                "take more than the {limit} KiB one player may keep waiting; wait until "
                "the GM approves or rejects some, or send a smaller request",
            )(limit=MAX_PENDING_BYTES_PER_PLAYER // 1024),
            code="too_many_pending",
            details={"size": theirs, "limit": MAX_PENDING_BYTES_PER_PLAYER, "scope": "player"},
        )
    size = len(pack(pending))
    if size > MAX_PENDING_BYTES:
        raise Conflict(
            say(
                "approval.too_large",
                "the requests waiting for the GM's approval would take more than the "
                "{limit} KiB a table keeps; wait until the GM approves or rejects some",
            )(limit=MAX_PENDING_BYTES // 1024),
            code="too_many_pending",
            details={"size": size, "limit": MAX_PENDING_BYTES, "scope": "table"},
        )
    draft.table_fields["pending"] = pending
    ctx.event("approval.requested", {"pending": pending_id, "request": entry}, gm_only=True)
    return {"pending": pending_id, "status": "pending"}
