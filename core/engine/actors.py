"""Actor requests: ``actor.create``, ``actor.update``, ``actor.remove``, ``adjust``."""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable
from typing import Any

from rollbridge.engine import turns
from rollbridge.engine.context import RequestContext
from rollbridge.engine.draft import Draft
from rollbridge.engine.model import ActorRecord
from rollbridge.engine.views import record_actor
from rollbridge.exceptions import InvalidRequest, LimitExceeded
from rollbridge.plain import JSON
from rollbridge.text import Messages

say = Messages("rollbridge")
_SLUG = re.compile(r"[^a-z0-9]+")


def new_actor_id(draft: Draft, name: str) -> str:
    """An unused actor id made from a name (``Guard A`` → ``guard-a``, then ``guard-a-2``)."""
    base = _SLUG.sub("-", name.lower()).strip("-")[:48] or "actor"
    candidate, number = base, 1
    while draft.actor(candidate) is not None:
        number += 1
        candidate = f"{base}-{number}"
    return candidate


def actor_create(ctx: RequestContext) -> JSON:
    """``actor.create``: validate the sheet, build the initial state (or validate and complete
    the given one, :meth:`~rollbridge.contract.Ruleset.validate_state`), add the actor."""
    table, draft = ctx.table, ctx.draft
    limit = table.max_actors
    if limit is not None and len(table.actors) >= limit:
        raise LimitExceeded(
            say.plural(
                "actor.too_many",
                "the table holds {count} actor, its limit; remove one before adding another",
                "the table holds {count} actors, its limit; remove one before adding another",
            )(count=len(table.actors)),
            details={"limit": limit},
        )
    spec = ctx.fields["actor"]
    actor_id = spec.get("id") or new_actor_id(draft, spec["name"])
    if draft.actor(actor_id) is not None:
        raise InvalidRequest(
            say("actor.exists", "actor.id: an actor {actor} already exists")(actor=repr(actor_id)),
            details={"field": "actor.id"},
        )
    sheet = table.call_ruleset(lambda: table.ruleset.validate_sheet(spec["sheet"]))
    state = spec.get("state")
    if state is None:
        made = table.call_ruleset(lambda: table.ruleset.initial_state(sheet))
        state = table.returned(made, dict, "initial_state")
    else:
        checked = table.call_ruleset(lambda: table.ruleset.validate_state(sheet, spec["state"]))
        state = table.returned(checked, dict, "validate_state")
    record = ActorRecord(actor_id, spec["name"], sheet, state, list(spec.get("controllers") or []))
    reply = ctx.record(
        "actor.created", {"actor": actor_id}, actors={actor_id: record}, undoable=True
    )
    return {**reply, "actor": actor_id}


def actor_update(ctx: RequestContext) -> JSON:
    """``actor.update``: change name, sheet, state or controllers. A new sheet is validated
    again; a new state is validated and completed against the actor's sheet (the new one when
    both change) by :meth:`~rollbridge.contract.Ruleset.validate_state`, and a new sheet
    alone must leave the current state valid (``invalid_state`` names what no longer fits:
    send the state with it)."""
    table, fields = ctx.table, ctx.fields
    current = table.require_actor(ctx.draft, fields["actor"])
    sheet = current.sheet
    if "sheet" in fields:
        sheet = table.call_ruleset(lambda: table.ruleset.validate_sheet(fields["sheet"]))
    state = current.state
    if fields.get("state") is not None:
        checked = table.call_ruleset(lambda: table.ruleset.validate_state(sheet, fields["state"]))
        state = table.returned(checked, dict, "validate_state")
    elif "sheet" in fields:  # the state must still fit the new sheet (a shorter track)
        checked = table.call_ruleset(lambda: table.ruleset.validate_state(sheet, current.state))
        state = table.returned(checked, dict, "validate_state")
    record = ActorRecord(
        current.id,
        fields.get("name", current.name),
        sheet,
        state,
        list(fields.get("controllers", current.controllers)),
    )
    changed = sorted(k for k in ("name", "sheet", "state", "controllers") if k in fields)
    return ctx.record(
        "actor.updated",
        {"actor": current.id, "fields": changed},
        actors={current.id: record},
        undoable=True,
    )


def actor_remove(ctx: RequestContext) -> JSON:
    """``actor.remove``: remove the actor, and take it out of a running encounter."""
    table = ctx.table
    actor_id = table.require_actor(ctx.draft, ctx.fields["actor"]).id
    fields: JSON = {}
    if table.encounter and actor_id in table.encounter.order:
        fields["encounter"] = turns.encounter_without(table, actor_id)
    return ctx.record(
        "actor.removed", {"actor": actor_id}, actors={actor_id: None}, table=fields, undoable=True
    )


@functools.lru_cache(maxsize=64)
def _takes_settings_of(function: Callable[..., Any]) -> bool:
    try:
        return "settings" in inspect.signature(function).parameters
    except (TypeError, ValueError):  # a builtin or a callable without a signature
        return False


def _takes_settings(method: Callable[..., Any]) -> bool:
    """Whether a ruleset's ``adjust`` names a ``settings`` parameter (an override
    written before it existed does not)."""
    return _takes_settings_of(getattr(method, "__func__", method))


def adjust(ctx: RequestContext) -> JSON:
    """``adjust``: the GM's direct damage or healing on a common track, through the
    ruleset (with the table's settings for it, where its ``adjust`` takes them)."""
    table, fields = ctx.table, ctx.fields
    current = table.require_actor(ctx.draft, fields["actor"])
    method = table.ruleset.adjust
    extra = {"settings": table.ruleset_settings} if _takes_settings(method) else {}
    state = table.returned(
        table.call_ruleset(
            lambda: method(record_actor(current), fields["track"], fields["delta"], **extra)
        ),
        dict,
        "adjust",
    )
    record = ActorRecord(current.id, current.name, current.sheet, state, current.controllers)
    return ctx.record(
        "adjusted",
        {"actor": current.id, "track": fields["track"], "delta": fields["delta"]},
        actors={current.id: record},
        undoable=True,
    )
