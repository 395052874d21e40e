"""Rolls and ruleset actions: the ``roll`` and ``resolve`` requests."""

from __future__ import annotations

from rollbridge.contract import ActionContext, ActionSpec
from rollbridge.dice import roll_formula
from rollbridge.engine.context import RequestContext
from rollbridge.engine.model import ActorRecord
from rollbridge.engine.outputs import resolution_output
from rollbridge.engine.pending import pend
from rollbridge.engine.views import record_actor
from rollbridge.exceptions import Forbidden, InvalidRequest, UnknownAction
from rollbridge.plain import JSON
from rollbridge.schema import validate


def roll(ctx: RequestContext) -> JSON:
    """``roll``: dice notation, optionally for an actor the caller controls."""
    table, fields, who = ctx.table, ctx.fields, ctx.who
    actor_id = fields.get("actor")
    if actor_id is not None:
        table.check_control(who, table.require_actor(ctx.draft, actor_id))
    source = table.dice_for(fields, who, ctx.dice)
    if not ctx.approved and table.needs_approval(who):
        return pend(ctx)
    result = roll_formula(fields["formula"], source)
    source.finish()
    data = {
        "formula": result.formula,
        "label": fields.get("label", ""),
        "actor": actor_id,
        "total": result.total,
        "text": result.describe(),
        "roll": result.to_dict(),
        "supplied": source.supplied,
    }
    return ctx.record("roll", data, gm_only=bool(fields.get("secret")))


def _action(ctx: RequestContext) -> ActionSpec:
    ruleset, name = ctx.table.ruleset, ctx.fields["action"]
    spec = ruleset.actions.get(name)
    if spec is None:
        known = ", ".join(sorted(ruleset.actions))
        raise UnknownAction(
            f"ruleset {ruleset.id!r} has no action {name!r} (actions: {known})",
            details={"action": name},
        )
    if spec.gm_only and not ctx.who.is_gm:
        raise Forbidden(f"action {spec.name!r} is for the GM only", details={"action": spec.name})
    return spec


def _targets(ctx: RequestContext, spec: ActionSpec) -> list[ActorRecord]:
    table, fields = ctx.table, ctx.fields
    if spec.every_actor:
        if fields.get("targets"):
            raise InvalidRequest(
                f"targets: action {spec.name!r} applies to every actor; name none",
                details={"field": "targets"},
            )
        return [table.require_actor(ctx.draft, a) for a in table.actors]
    target_ids = list(fields.get("targets") or [])
    if len(set(target_ids)) != len(target_ids):
        raise InvalidRequest("targets: an actor is named twice", details={"field": "targets"})
    if len(target_ids) < spec.min_targets or (
        spec.max_targets is not None and len(target_ids) > spec.max_targets
    ):
        wanted = (
            f"{spec.min_targets}"
            if spec.max_targets == spec.min_targets
            else f"{spec.min_targets} to {spec.max_targets or 'any number of'}"
        )
        raise InvalidRequest(
            f"targets: action {spec.name!r} takes {wanted} target(s), got {len(target_ids)}",
            details={"field": "targets"},
        )
    return [table.require_actor(ctx.draft, a) for a in target_ids]


def resolve(ctx: RequestContext) -> JSON:
    """``resolve``: check the action, its parameters, actor and targets, then let the
    ruleset resolve it."""
    table, fields, who = ctx.table, ctx.fields, ctx.who
    spec = _action(ctx)
    params = validate(spec.params, fields.get("params") or {}, where="params")
    actor_id = fields.get("actor")
    if spec.actor == "required" and actor_id is None:
        raise InvalidRequest(
            f"actor: action {spec.name!r} needs an acting actor", details={"field": "actor"}
        )
    if spec.actor == "none" and actor_id is not None:
        raise InvalidRequest(
            f"actor: action {spec.name!r} takes no acting actor", details={"field": "actor"}
        )
    actor = table.require_actor(ctx.draft, actor_id) if actor_id is not None else None
    if actor is not None:
        table.check_control(who, actor)
    targets = _targets(ctx, spec)
    source = table.dice_for(fields, who, ctx.dice)
    if not ctx.approved and table.needs_approval(who):
        return pend(ctx)
    context = ActionContext(
        action=spec.name,
        params=params,
        actor=record_actor(actor) if actor is not None else None,
        targets=tuple(record_actor(t) for t in targets),
        settings=table.ruleset_settings,
        request_id=ctx.request.id,
        by_gm=who.is_gm,
    )
    resolution = table.call_ruleset(lambda: table.ruleset.resolve(context, source))
    source.finish()
    allowed = {a.id for a in (actor, *targets) if a is not None}
    new_records = table.new_states(ctx.draft, resolution.states, allowed)
    head = {
        "action": spec.name,
        "actor": actor_id,
        "targets": [t.id for t in targets] if not spec.every_actor else [],
    }
    data, texts, private = resolution_output(table.ruleset, resolution, head, params)
    data["supplied"] = source.supplied
    return ctx.record(
        "resolution",
        data,
        actors=new_records,
        gm_only=bool(fields.get("secret")),
        undoable=True,
        texts=texts,
        private=private,
    )
