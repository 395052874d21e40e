"""Undo, redo and table settings: changes reversed or set table-wide."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from rollbridge.engine import segments
from rollbridge.engine.context import RequestContext
from rollbridge.engine.model import ActorRecord, Event
from rollbridge.engine.places import places
from rollbridge.engine.redaction import ruleset_settings
from rollbridge.engine.settings import default_settings, merge_settings
from rollbridge.engine.views import reshown
from rollbridge.exceptions import (
    InvalidRequest,
    InvalidSettings,
    NothingToRedo,
    NothingToUndo,
    NotLatest,
)
from rollbridge.plain import JSON
from rollbridge.text import Messages

say = Messages("rollbridge")
EMPTY: Mapping[str, object] = {}


def reverse(
    original: Event, *, to_before: bool
) -> tuple[dict[str, ActorRecord | None], JSON, dict[str, int]]:
    """The actor records and table fields that take ``original`` back (its
    ``before`` side) or forward again (its ``after`` side), and the places of the
    actors they put in (:mod:`rollbridge.engine.places`: an undone removal's actor
    goes back where it stood; one a removal stored without its place goes last)."""
    side = "before" if to_before else "after"
    actors: dict[str, ActorRecord | None] = {}
    for change in original.changes:
        target = change[side]
        actors[change["actor"]] = ActorRecord.from_dict(target, fresh=True) if target else None
    fields: JSON = {}
    if original.table_change:
        for key, value in original.table_change[side].items():
            if key in ("settings", "encounter"):
                fields[key] = value
    return actors, fields, places(original.changes, side)


def undo(ctx: RequestContext) -> JSON:
    """Take back the latest undoable event: its actors and table fields go back
    to their before side, in a new ``undo`` event. With ``seq``, only if that is
    the event it would take back (:class:`NotLatest` otherwise)."""
    table = ctx.table
    if not table.undo_stack:
        raise NothingToUndo(say("undo.nothing", "there is nothing to undo")())
    seq = table.undo_stack[-1]
    _check_named(ctx, seq, "undo")
    ctx.draft.undo = table.undo_stack[:-1]
    ctx.draft.redo = [*table.redo_stack, seq]
    return _replay(ctx, seq, backwards=True)


def redo(ctx: RequestContext) -> JSON:
    """Re-apply the latest undone event's after side, in a new ``redo`` event.
    With ``seq``, only if that is the event it would redo (:class:`NotLatest`)."""
    table = ctx.table
    if not table.redo_stack:
        raise NothingToRedo(say("redo.nothing", "there is nothing to redo")())
    seq = table.redo_stack[-1]
    _check_named(ctx, seq, "redo")
    ctx.draft.undo = [*table.undo_stack, seq]
    ctx.draft.redo = table.redo_stack[:-1]
    return _replay(ctx, seq, backwards=False)


def _check_named(ctx: RequestContext, latest: int, kind: str) -> None:
    """Refuse an ``undo`` or ``redo`` that names another event than ``latest``,
    the one it would take: the client's view of the table is behind."""
    named = ctx.fields.get("seq")
    if named is None or named == latest:
        return
    message = (
        say("undo.not_latest", "undo: #{seq} is not the latest change; undo takes back #{latest}")
        if kind == "undo"
        else say(
            "redo.not_latest", "redo: #{seq} is not the latest undone change; redo redoes #{latest}"
        )
    )
    raise NotLatest(message(seq=named, latest=latest), details={"seq": named, "latest": latest})


def _replay(ctx: RequestContext, seq: int, *, backwards: bool) -> JSON:
    original = ctx.table.history_event(seq)
    actors, fields, where = reverse(original, to_before=backwards)
    kind, key = ("undo", "undoes") if backwards else ("redo", "redoes")
    shown = _reshown(ctx, fields["settings"], actors) if "settings" in fields else ()
    reply = ctx.record(
        kind,
        {key: seq, "kind": original.kind},
        actors=actors,
        table=fields,
        places=where,
        gm_only=original.gm_only,  # taking back a secret roll stays secret
        shown=shown,
    )
    if "settings" in fields:  # verifiable dice follow the setting back and forth
        segments.reconcile(ctx, bool(fields["settings"].get("verifiable")))
    return reply


def settings(ctx: RequestContext) -> JSON:
    """``settings``: a partial update of the table settings, validated whole."""
    table = ctx.table
    change = ctx.fields["settings"]
    settings = default_settings(table.ruleset, merge_settings(table.info.settings, change))
    if settings == table.info.settings:  # an event would say "changed" and change nothing
        raise InvalidSettings(
            say(
                "settings.unchanged",
                "settings: nothing would change (every setting given already has that value)",
            )(),
            details={"field": "settings"},
        )
    reply = ctx.record(
        "settings",
        {"changed": sorted(change)},
        table={"settings": settings},
        undoable=True,
        shown=_reshown(ctx, settings),
    )
    segments.reconcile(ctx, bool(settings.get("verifiable")))
    return reply


def _reshown(
    ctx: RequestContext, settings: JSON, changed: Mapping[str, object] = EMPTY
) -> list[ActorRecord]:
    """The actors (but those in ``changed``, which the event lists anyway) whose
    players' view the table's settings becoming ``settings`` changes: players are
    sent their new views with the event (:func:`~rollbridge.engine.views.reshown`)."""
    table = ctx.table
    before = ruleset_settings(ctx.draft.field("settings"))
    after = ruleset_settings(settings)
    if before == after:
        return []
    records = (
        record
        for actor_id in table.actors
        if actor_id not in changed and (record := ctx.draft.actor(actor_id)) is not None
    )
    return table.call_ruleset(
        lambda: reshown(records, ruleset=table.ruleset, before=before, after=after)
    )


# -- encounters --------------------------------------------------------------


#: The kinds of event that undo or redo another (``data``: ``undoes``, ``redoes``).
UNDO_KINDS = frozenset({"undo", "redo"})

_TWICE = say("state.undone_twice", "state.undone: seq {seq} is named twice")
_FUTURE = say("state.undone_future", "state.undone: seq {seq} is after the latest seq {latest}")


def check_undone(asked: Iterable[int], latest: int) -> None:
    """Refuse a ``state`` request's ``undone`` (seqs) that names a seq twice, or one
    after the table's ``latest`` seq (no event has it yet), before anything is read:
    as ``targets`` naming an actor twice and ``at`` after the latest seq are.

    :raises InvalidRequest: (``details``: ``field``, ``seq``)."""
    seen: set[int] = set()
    for seq in asked:
        if seq in seen:
            raise InvalidRequest(_TWICE(seq=seq), details={"field": "undone", "seq": seq})
        if seq > latest:
            raise InvalidRequest(
                _FUTURE(seq=seq, latest=latest), details={"field": "undone", "seq": seq}
            )
        seen.add(seq)


def undone_states(events: Iterable[Event], asked: Iterable[int], *, gm: bool) -> JSON:
    """Whether the GM has undone each event of ``asked`` (seqs), as the latest ``undo``
    or ``redo`` of it among ``events`` (the table's retained log) says: ``{"12": true}``
    (undone), ``{"12": false}`` (redone since), in seq order; a seq that none of them
    names is left out (as far as they tell, never undone). The log is the table's
    history whatever epoch wrote each event: a restore or a Redis fence moves the table
    to a new epoch and keeps the log it goes on from, so an undo written before it is
    counted (it was not: such an event was said never undone). For players and
    observers a GM-only undo or redo (a secret's) is not counted: it reaches them as a
    placeholder, which names nothing (docs/protocol.md, ``state``'s ``undone``)."""
    wanted = set(asked)
    states: dict[int, bool] = {}
    for event in events:
        if event.gm_only and not gm:
            continue
        key = {"undo": "undoes", "redo": "redoes"}.get(event.kind)
        seq = event.data.get(key) if key else None
        if seq.__class__ is int and seq in wanted:
            states[seq] = event.kind == "undo"
    return {str(seq): states[seq] for seq in sorted(states)}
