"""Rolls and ruleset actions: the ``roll`` and ``resolve`` requests."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rollbridge.contract import ActionContext
from rollbridge.dice import roll_formula
from rollbridge.dice.sources import DiceSource
from rollbridge.engine import approvals
from rollbridge.engine.draft import Draft, record_dict
from rollbridge.engine.model import Principal
from rollbridge.engine.requests import Request
from rollbridge.engine.views import record_actor
from rollbridge.exceptions import Forbidden, InvalidRequest, UnknownAction
from rollbridge.schema import validate

if TYPE_CHECKING:
    from rollbridge.engine.table import Table

JSON = dict[str, Any]


def roll(
    table: Table,
    draft: Draft,
    request: Request,
    who: Principal,
    dice: DiceSource,
    *,
    approved: bool = False,
) -> JSON:
    """``roll``: dice notation, optionally for an actor the caller controls."""
    fields = request.fields
    actor_id = fields.get("actor")
    if actor_id is not None:
        table.check_control(who, table.require_actor(draft, actor_id))
    source = table.dice_for(fields, who, dice)
    if not approved and table.needs_approval(who):
        return approvals.pend(table, draft, request, who)
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
    event = draft.add_event(
        "roll", data, gm_only=bool(fields.get("secret")), request=request.id, by=who.label()
    )
    return table.reply_for(event, who)


def resolve(
    table: Table,
    draft: Draft,
    request: Request,
    who: Principal,
    dice: DiceSource,
    *,
    approved: bool = False,
) -> JSON:
    """``resolve``: check the action, its parameters, actor and targets, then let the ruleset
    resolve it."""
    fields = request.fields
    spec = table.ruleset.actions.get(fields["action"])
    if spec is None:
        known = ", ".join(sorted(table.ruleset.actions))
        raise UnknownAction(
            f"ruleset {table.ruleset.id!r} has no action {fields['action']!r} (actions: {known})",
            details={"action": fields["action"]},
        )
    if spec.gm_only and not who.is_gm:
        raise Forbidden(f"action {spec.name!r} is for the GM only", details={"action": spec.name})
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
    actor = table.require_actor(draft, actor_id) if actor_id is not None else None
    if actor is not None:
        table.check_control(who, actor)
    if spec.every_actor:
        if fields.get("targets"):
            raise InvalidRequest(
                f"targets: action {spec.name!r} applies to every actor; name none",
                details={"field": "targets"},
            )
        targets = [table.require_actor(draft, a) for a in table.actors]
    else:
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
        targets = [table.require_actor(draft, a) for a in target_ids]
    source = table.dice_for(fields, who, dice)
    if not approved and table.needs_approval(who):
        return approvals.pend(table, draft, request, who)
    context = ActionContext(
        action=spec.name,
        params=params,
        actor=record_actor(record_dict(actor)) if actor is not None else None,
        targets=tuple(record_actor(record_dict(t)) for t in targets),
        settings=table.ruleset_settings,
        request_id=request.id,
        by_gm=who.is_gm,
    )
    resolution = table.call_ruleset(lambda: table.ruleset.resolve(context, source))
    source.finish()
    allowed = {a.id for a in (actor, *targets) if a is not None}
    new_records = table.new_states(draft, resolution.states, allowed)
    data = {
        "action": spec.name,
        "actor": actor_id,
        "targets": [t.id for t in targets] if not spec.every_actor else [],
        "params": params,
        "supplied": source.supplied,
        **resolution.to_dict(),
    }
    data.pop("states")
    event = draft.add_event(
        "resolution",
        data,
        actors=new_records,
        gm_only=bool(fields.get("secret")),
        undoable=True,
        request=request.id,
        by=who.label(),
    )
    return table.reply_for(event, who)
