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
* A request refused having drawn dice leaves the next request at its seq another
  stream (``attempt``, counted by :data:`REFUSED_DRAWS`): what a refusal told of its
  dice is never rolled.
* A segment whose seed is no longer the committed one (the dice key changed) rolls
  nothing (``dice_key_lost``); its reveal abandons it (``dice.abandoned``).
* A segment opened by rollbridge of 2 December 2026 before segments had a nonce and
  a GM stream (still open in a table that version stored) goes on as it was
  committed: its seed is derived without a nonce, every die it rolls is on its public
  stream, and its reveal reveals that one seed.
* A segment open when its table was restored from a backup
  (:meth:`~rollbridge.stores.sqlite.SQLiteStore.finish_restore`) is marked
  ``restored`` and keeps the epoch it was committed under (``epoch``): it rolls
  nothing (``dice_segment_restored``: its seed may have been revealed in the history
  the backup lost), and its reveal still reveals its seed.

The commitment event precedes every die of its segment in seq order: a segment is
opened by a commit before any request can roll in it.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from typing import TYPE_CHECKING

from rollbridge.dice.verifiable import SCHEME, VerifiableDice, commitment
from rollbridge.dice.verify import event_dice
from rollbridge.engine.context import RequestContext, reply_for
from rollbridge.engine.draft import Draft
from rollbridge.engine.requests import Request
from rollbridge.exceptions import Conflict, InternalError
from rollbridge.plain import JSON
from rollbridge.text import Messages

if TYPE_CHECKING:
    from rollbridge.engine.table import Table

__all__ = ["GM_STREAM", "PUBLIC", "REFUSED_DRAWS", "RefusedDraws", "dice_reveal", "reconcile",
           "record_draws", "refused", "stream_of", "verifiable_dice"]  # fmt: skip

#: The two streams of a segment: the one players can check, and the GM's.
PUBLIC = "public"
GM_STREAM = "gm"

say = Messages("rollbridge")
NOT_VERIFIABLE = say(
    "dice.not_verifiable",
    "this table's dice are not verifiable (setting verifiable): there is no segment to reveal",
)
NO_KEY = say("dice.no_key", "this server has no dice key, so it cannot roll verifiable dice")
# Translators: {segment} a number; dice.reveal is a request type; "verifiable" a setting.
KEY_LOST = say(
    "dice.key_lost",
    "segment {segment} of this table's verifiable dice was committed under another dice "
    "key than this server's (its file beside the database was lost or replaced), so its "
    "dice can neither be rolled nor revealed: the GM ends it with dice.reveal (or turns "
    "verifiable off and on), which opens a new segment",
)

# Translators: {segment} a number; dice.reveal is a request type; "verifiable" a setting.
RESTORED = say(
    "dice.segment_restored",
    "segment {segment} of this table's verifiable dice was open when the table was "
    "restored from a backup, and its seed may have been revealed since, so its dice are "
    "not rolled: the GM ends it with dice.reveal (or turns verifiable off and on), which "
    "reveals its seed and opens a new segment",
)

# Translators: {segment} a number; dice.reveal is a request type; "verifiable" a setting.
MOVED = say(
    "dice.segment_moved",
    "segment {segment} of this table's verifiable dice was open when the table moved to "
    "a new epoch (its store went back in time), and its seed may have been revealed in "
    "the history lost, so its dice are not rolled: the GM ends it with dice.reveal (or "
    "turns verifiable off and on), which reveals its seed and opens a new segment",
)


def _seed(
    table: Table, segment: int, nonce: str | None, stream: str = PUBLIC, epoch: int | None = None
) -> bytes:
    if table.dice_key is None:
        raise InternalError(NO_KEY())
    name: int | str = segment if stream == PUBLIC else f"{segment}:{stream}"
    at = table.info.epoch if epoch is None else epoch
    return table.dice_key.seed(table.info.id, at, name, nonce)


def _nonce(state: JSON) -> str | None:
    """A segment's nonce; None for one opened before segments had a nonce (and a GM
    stream): its seed is derived without one (:func:`~rollbridge.dice.verifiable.segment_seed`)."""
    nonce = state.get("nonce")
    return nonce if isinstance(nonce, str) else None


def _epoch_of(state: JSON) -> int | None:
    """The epoch a segment was committed under (kept since 3 December 2026, and by a
    restore; None: the table's)."""
    epoch = state.get("epoch")
    return epoch if isinstance(epoch, int) and not isinstance(epoch, bool) else None


def _involves_npc(table: Table, request: Request) -> bool:
    """Whether a request rolls for or against an actor no player controls, or may
    (turn hooks, approvals, actions on every actor): its dice go to the GM stream."""
    if request.type in ("approve", "encounter.start", "encounter.next", "encounter.end"):
        return True
    if request.type not in ("roll", "resolve", "draw"):
        return False  # a request that rolls no dice of its own
    fields = request.fields
    named = [fields.get("actor"), *(fields.get("targets") or ())]
    if request.type == "resolve":
        spec = table.ruleset.actions.get(fields.get("action", ""))
        if spec is not None and spec.every_actor:
            named = list(table.actors)
    return any(a is not None and not table.controlled(a) for a in named)


def stream_of(table: Table, request: Request) -> str:
    """``gm`` for a secret request or one that involves an NPC, else ``public``.

    The public stream's seed is revealed to everyone; the GM stream's only to the GM
    (a ``dice.revealed.gm`` event), so that a reveal never lets players recompute a
    secret roll or an NPC's dice (how many it rolled could tell its hidden numbers).
    """
    return GM_STREAM if request.fields.get("secret") or _involves_npc(table, request) else PUBLIC


class RefusedDraws:
    """How many requests were refused at a table's next seq having drawn verifiable
    dice, kept for the process rather than in a :class:`Table`: a table is dropped
    from memory when its last client leaves and read again at the next ``hello``
    (or after a failed commit), and a count kept in it would start again from 0 —
    a player alone at a table could probe, reconnect, and roll the probed dice.
    Forgotten when the process ends (docs/dice.md, "What it cannot check"). Kept per
    segment (its random nonce): a table made again under the same id starts afresh.
    """

    def __init__(self, limit: int = 100_000) -> None:
        self._counts: OrderedDict[tuple[str, int, str], tuple[int, int]] = OrderedDict()
        self._limit = limit

    def attempt(self, table: str, epoch: int, segment: str, seq: int) -> int:
        """The attempt the next request at ``seq`` of the segment with the nonce
        ``segment`` rolls (0: none was refused there)."""
        at, count = self._counts.get((table, epoch, segment), (seq, 0))
        return count if at == seq else 0

    def refused(self, table: str, epoch: int, segment: str, seq: int) -> None:
        """A request at ``seq`` was refused having drawn dice."""
        key = (table, epoch, segment)
        self._counts[key] = (seq, self.attempt(table, epoch, segment, seq) + 1)
        self._counts.move_to_end(key)
        while len(self._counts) > self._limit:
            self._counts.popitem(last=False)


#: The process's count of refused draws (:class:`RefusedDraws`).
REFUSED_DRAWS = RefusedDraws()

# Translators: {segment} a number; dice.reveal is a request type.
NO_GM_STREAM = say(
    "dice.segment_public_only",
    "segment {segment} of this table's verifiable dice was opened by an older rollbridge "
    "with a public stream only, whose seed its reveal shows everyone, so a secret roll or "
    "an NPC's dice are not rolled in it: the GM ends it with dice.reveal, which opens a "
    "new segment that keeps them secret",
)


def verifiable_dice(table: Table, draft: Draft, request: Request) -> VerifiableDice | None:
    """The dice a request rolls at ``table`` while a segment is open, else None: at
    the seq's next attempt after requests refused there having drawn dice
    (:func:`refused`)."""
    state = table.dice_segment
    if not state or not state.get("open"):
        return None
    info = table.info
    attempt = REFUSED_DRAWS.attempt(info.id, info.epoch, state.get("nonce", ""), info.seq)
    nonce = _nonce(state)
    wanted = stream_of(table, request)
    # a segment opened before the GM stream committed to the public one alone
    stream = PUBLIC if nonce is None else wanted
    seed = _seed(table, state["segment"], nonce, stream, _epoch_of(state))
    dice = VerifiableDice(seed, info.id, info.epoch, lambda: draft.next_seq, attempt=attempt)
    dice.stream = stream
    committed_in = _epoch_of(state)
    if state.get("restored") or committed_in not in (None, info.epoch):
        # restored from a backup, or fenced by a store that went back in time (the
        # segment's epoch, kept since it opened, is not the table's): its seed may be
        # known, so nothing is rolled from it
        said = RESTORED if state.get("restored") else MOVED
        dice.refusal = Conflict(
            said(segment=state["segment"]),
            code="dice_segment_restored",
            details={"segment": state["segment"]},
        )
    elif stream != wanted:  # its reveal would let players recompute what the GM keeps
        dice.refusal = Conflict(
            NO_GM_STREAM(segment=state["segment"]),
            code="dice_segment_public_only",
            details={"segment": state["segment"]},
        )
    elif not _committed_to(state, stream, seed):  # a request that rolls nothing goes on
        dice.refusal = Conflict(
            KEY_LOST(segment=state["segment"]),
            code="dice_key_lost",
            details={"segment": state["segment"]},
        )
    return dice


def refused(table: Table, dice: VerifiableDice) -> None:
    """A request rolling ``dice`` at ``table`` was refused: if it drew any, what the
    refusal told of them (a total past 64 bits, a division by zero) must not be
    rolled by the next request at this seq, which takes the next attempt."""
    state = table.dice_segment
    if dice.draws and state:
        info = table.info
        REFUSED_DRAWS.refused(info.id, info.epoch, state.get("nonce", ""), info.seq)


def _committed_to(state: JSON, stream: str, seed: bytes) -> bool:
    """Whether ``seed`` is the one the open segment committed to for ``stream`` (not
    when the dice key changed since: a lost key file made anew)."""
    committed = state.get("commitment" if stream == PUBLIC else "gm_commitment")
    return committed is None or committed == commitment(seed)


def record_draws(draft: Draft, dice: VerifiableDice) -> None:
    """Put each event's draws in its data (what was drawn for a seq no event took —
    a request refused after its dice — is left out: nothing is committed then).

    :raises InternalError: a resolution (or a turn hook's, in an encounter event)
        shows dice other than those it drew, in the order drawn (the contract: every
        die rolled, as rolled), which ``rollbridge verify`` would report as a server
        that chose its dice.
    """
    segment = dice_state(draft)
    if segment is None:
        return
    for event in draft.events:
        drawn = dice.draws.get(event.seq)
        if drawn is not None:
            _check_shown(draft, event.kind, event.data, drawn)
        if drawn:
            draws = {"segment": segment, "stream": dice.stream, "dice": drawn}
            if dice.attempt:
                draws["attempt"] = dice.attempt
            event.data = {**event.data, "draws": draws}


NOT_SHOWN = say.plural(
    "internal.dice_not_shown",
    "ruleset {ruleset} drew {drawn} die but shows {shown} as its resolution's "
    "dice: a resolution must show every die it rolls, in the order rolled",
    "ruleset {ruleset} drew {drawn} dice but shows {shown} as its resolution's "
    "dice: a resolution must show every die it rolls, in the order rolled",
    count="drawn",
)
# An encounter event's dice are its turn hooks': a hook that rolls and returns None
# shows none, which the resolution's words above would not tell its author.
HOOKS_NOT_SHOWN = say.plural(
    "internal.hook_dice_not_shown",
    "ruleset {ruleset} drew {drawn} die but shows {shown} in its turn hooks' results: "
    "a turn hook (on_round_start, on_turn_start, on_turn_end, on_round_end) must show "
    "every die it rolls in the Resolution it returns, in the order rolled, and one that "
    "returns None must roll none",
    "ruleset {ruleset} drew {drawn} dice but shows {shown} in its turn hooks' results: "
    "a turn hook (on_round_start, on_turn_start, on_turn_end, on_round_end) must show "
    "every die it rolls in the Resolution it returns, in the order rolled, and one that "
    "returns None must roll none",
    count="drawn",
)


def _check_shown(draft: Draft, kind: str, data: JSON, drawn: list[list[int]]) -> None:
    shown = event_dice(kind, data)
    if shown is not None and shown != [(faces, value) for faces, value in drawn]:
        said = NOT_SHOWN if kind == "resolution" else HOOKS_NOT_SHOWN
        raise InternalError(
            said(ruleset=repr(draft.table.ruleset.id), drawn=len(drawn), shown=len(shown))
        )


def dice_state(draft: Draft) -> int | None:
    """The number of the segment the draft's dice were rolled in (as the table had it
    when the request began)."""
    state = draft.table.dice_segment
    return state["segment"] if state and state.get("open") else None


def _open(ctx: RequestContext, number: int) -> None:
    info = ctx.table.info
    nonce = os.urandom(16).hex()  # never the same seed twice, whatever the table's past
    digest = commitment(_seed(ctx.table, number, nonce))
    gm_digest = commitment(_seed(ctx.table, number, nonce, GM_STREAM))
    data: JSON = {
        "segment": number,
        "commitment": digest,
        "gm_commitment": gm_digest,
        "scheme": SCHEME,
        "table": info.id,
        "epoch": info.epoch,
    }
    at = ctx.draft.next_seq  # the seq this event gets
    state = {"segment": number, "open": True, "commitment": digest,
             "gm_commitment": gm_digest, "since": at, "nonce": nonce,
             "epoch": info.epoch}  # fmt: skip
    ctx.event("dice.committed", data, table={"dice": state})


def _reveal(ctx: RequestContext, state: JSON) -> None:
    number, nonce, epoch = state["segment"], _nonce(state), _epoch_of(state)
    seed = _seed(ctx.table, number, nonce, epoch=epoch)
    if not _committed_to(state, PUBLIC, seed):  # the key that made it is gone
        data = {"segment": number, "reason": "key_lost"}
        ctx.event("dice.abandoned", data, table={"dice": {"segment": number, "open": False}})
        return
    data: JSON = {"segment": number, "seed": seed.hex(), "commitment": commitment(seed)}
    if nonce is not None:  # a segment opened before the GM stream has none to reveal
        gm_seed = _seed(ctx.table, number, nonce, GM_STREAM, epoch)
        gm: JSON = {"segment": number, "seed": gm_seed.hex(), "commitment": commitment(gm_seed)}
        ctx.event("dice.revealed.gm", gm, gm_only=True)  # the GM stream: the GM's log only
    ctx.event("dice.revealed", data, table={"dice": {"segment": number, "open": False}})


def reconcile(ctx: RequestContext, verifiable: bool) -> None:
    """After a settings change: open a segment when ``verifiable`` turned on, reveal
    the open one when it turned off."""
    state = ctx.draft.field("dice") or {"segment": 0, "open": False}
    if verifiable and not state["open"]:
        _seed(ctx.table, state["segment"] + 1, "")  # no key: refused before any change
        _open(ctx, state["segment"] + 1)
    elif not verifiable and state["open"]:
        _reveal(ctx, state)


def dice_reveal(ctx: RequestContext) -> JSON:
    """``dice.reveal``: publish the open segment's seed and commit to the next one."""
    state = ctx.draft.field("dice")
    if not state or not state.get("open"):
        raise Conflict(NOT_VERIFIABLE(), code="not_verifiable")
    _reveal(ctx, state)
    _open(ctx, state["segment"] + 1)
    return reply_for(ctx.draft.events[-1], ctx.who)
