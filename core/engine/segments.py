"""Verifiable dice at a table: segments opened, revealed, and the dice they roll.

While the table setting ``verifiable`` is on, the table has an open *segment*
(:mod:`rollbridge.dice.verifiable`): its number is the table field ``dice``
(``{"segment": k, "open": true, "commitment": …, "since": seq}``, stored in the
table's meta and shown to every client, so that one joining later knows what the
open segment committed to), its seed is
derived from the server's dice key and never stored or sent until its reveal.

* Turning ``verifiable`` on adds a ``dice.committed`` event (the next segment's
  number, its commitment, the scheme, the table and epoch) after the
  ``settings`` event; turning it off adds ``dice.revealed`` (the seed).
* ``dice.reveal`` (GM) ends the open segment — ``dice.revealed`` — and opens the
  next one — ``dice.committed`` — in one commit.
* Every request executed while a segment is open rolls the server's dice with
  :class:`~rollbridge.dice.verifiable.VerifiableDice` (dice a client or the GM
  supplies stay theirs: the event says ``supplied``); each event that drew dice
  records them in ``data.draws`` (``{"segment": k, "dice": [[faces, result], …]}``).

The commitment event precedes every die of its segment in seq order: a segment is
opened by a commit before any request can roll in it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rollbridge.dice.verifiable import SCHEME, VerifiableDice, commitment
from rollbridge.engine.context import RequestContext, reply_for
from rollbridge.engine.draft import Draft
from rollbridge.exceptions import Conflict, InternalError
from rollbridge.plain import JSON
from rollbridge.text import Messages

if TYPE_CHECKING:
    from rollbridge.engine.table import Table

__all__ = ["dice_reveal", "reconcile", "record_draws", "verifiable_dice"]

say = Messages("rollbridge")
NOT_VERIFIABLE = say(
    "dice.not_verifiable",
    "this table's dice are not verifiable (setting verifiable): there is no segment to reveal",
)
NO_KEY = say("dice.no_key", "this server has no dice key, so it cannot roll verifiable dice")


def _seed(table: Table, segment: int) -> bytes:
    if table.dice_key is None:
        raise InternalError(NO_KEY())
    return table.dice_key.seed(table.info.id, table.info.epoch, segment)


def verifiable_dice(table: Table, draft: Draft) -> VerifiableDice | None:
    """The dice a request rolls at ``table`` while a segment is open, else None."""
    state = table.dice_segment
    if not state or not state.get("open"):
        return None
    info = table.info
    seed = _seed(table, state["segment"])
    return VerifiableDice(seed, info.id, info.epoch, lambda: info.seq + len(draft.events) + 1)


def record_draws(draft: Draft, dice: VerifiableDice) -> None:
    """Put each event's draws in its data (what was drawn for a seq no event took —
    a request refused after its dice — is left out: nothing is committed then)."""
    segment = dice_state(draft)
    if segment is None:
        return
    for event in draft.events:
        drawn = dice.draws.get(event.seq)
        if drawn:
            event.data = {**event.data, "draws": {"segment": segment, "dice": drawn}}


def dice_state(draft: Draft) -> int | None:
    """The number of the segment the draft's dice were rolled in (as the table had it
    when the request began)."""
    state = draft.table.dice_segment
    return state["segment"] if state and state.get("open") else None


def _open(ctx: RequestContext, number: int) -> None:
    info = ctx.table.info
    digest = commitment(_seed(ctx.table, number))
    data: JSON = {
        "segment": number,
        "commitment": digest,
        "scheme": SCHEME,
        "table": info.id,
        "epoch": info.epoch,
    }
    at = info.seq + len(ctx.draft.events) + 1  # the seq this event gets
    state = {"segment": number, "open": True, "commitment": digest, "since": at}
    ctx.event("dice.committed", data, table={"dice": state})


def _reveal(ctx: RequestContext, number: int) -> None:
    seed = _seed(ctx.table, number)
    data: JSON = {"segment": number, "seed": seed.hex(), "commitment": commitment(seed)}
    ctx.event("dice.revealed", data, table={"dice": {"segment": number, "open": False}})


def reconcile(ctx: RequestContext, verifiable: bool) -> None:
    """After a settings change: open a segment when ``verifiable`` turned on, reveal
    the open one when it turned off."""
    state = ctx.draft.field("dice") or {"segment": 0, "open": False}
    if verifiable and not state["open"]:
        _seed(ctx.table, state["segment"] + 1)  # no key: refused before anything changes
        _open(ctx, state["segment"] + 1)
    elif not verifiable and state["open"]:
        _reveal(ctx, state["segment"])


def dice_reveal(ctx: RequestContext) -> JSON:
    """``dice.reveal``: publish the open segment's seed and commit to the next one."""
    state = ctx.draft.field("dice")
    if not state or not state.get("open"):
        raise Conflict(NOT_VERIFIABLE(), code="not_verifiable")
    _reveal(ctx, state["segment"])
    _open(ctx, state["segment"] + 1)
    return reply_for(ctx.draft.events[-1], ctx.who)
