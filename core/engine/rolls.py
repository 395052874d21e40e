"""Rolls and ruleset actions: the ``roll`` and ``resolve`` requests."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import replace
from typing import Any, NamedTuple

from rollbridge.contract import ActionContext, ActionSpec, Resolution, Ruleset
from rollbridge.dice import roll_formula
from rollbridge.dice.sources import DiceSource
from rollbridge.engine.context import RequestContext
from rollbridge.engine.model import ActorRecord
from rollbridge.engine.outputs import resolution_output
from rollbridge.engine.pending import pend
from rollbridge.engine.requests import Request
from rollbridge.engine.views import record_actor
from rollbridge.exceptions import Forbidden, InvalidRequest, UnknownAction
from rollbridge.plain import JSON
from rollbridge.schema import validate
from rollbridge.text import Messages

say = Messages("rollbridge")
# Translators: {action} is the action's name, quoted.
SECRET_DICE = say(
    "action.secret_dice",
    "action {action} is always secret: the GM's dice decide it behind the screen, and a "
    "player does not supply them (dice)",
)
# Translators: {action} is the action's name, quoted; {count}, {low}, {high} counts of
# target actors; {got} how many the request named.
TARGETS_EXACTLY = say.plural(
    "targets.count_exact",
    "targets: action {action} takes {count} target, got {got}",
    "targets: action {action} takes {count} targets, got {got}",
)
# Translators: the noun agrees with {high}, the range's end ("0 to 1 target").
TARGETS_BETWEEN = say.plural(
    "targets.count_range",
    "targets: action {action} takes {low} to {high} target, got {got}",
    "targets: action {action} takes {low} to {high} targets, got {got}",
    count="high",
)
TARGETS_AT_LEAST = say.plural(
    "targets.count_open",
    "targets: action {action} takes at least {low} target, got {got}",
    "targets: action {action} takes at least {low} targets, got {got}",
    count="low",
)


class _DiceNeeded(BaseException):
    """Raised by :class:`_Rehearsal` at the first die. A BaseException, so that a
    ruleset's own ``except Exception`` cannot swallow it."""


class _Rehearsal(DiceSource):
    """Dice that stop a resolution at its first die: what a request would refuse
    without rolling is found before it is held for the GM's approval."""

    def _draw(self, faces: int) -> int:
        raise _DiceNeeded


def stopped_at_first_die(error: BaseException) -> bool:
    """Whether ``error`` (what a ruleset raised, or an error raised from it) was
    raised while :class:`_Rehearsal`'s stop at the first die was handled — by an
    ``except BaseException``, a bare ``except:``, a ``finally`` or an ``__exit__``
    that raised — as its chain of causes and contexts says."""
    met: set[int] = set()
    found: BaseException | None = error
    while found is not None and id(found) not in met:
        if isinstance(found, _DiceNeeded):
            return True
        met.add(id(found))
        found = found.__cause__ or found.__context__
    return False


def rehearse(call: Callable[[DiceSource], object]) -> None:
    """Run ``call`` with :class:`_Rehearsal` dice up to its first die, for its refusals
    (its result, if it needs no dice, is dropped)."""
    with suppress(_DiceNeeded):
        call(_Rehearsal())


def roll(ctx: RequestContext) -> JSON:
    """``roll``: dice notation, optionally for an actor the caller controls."""
    table, fields, who = ctx.table, ctx.fields, ctx.who
    actor_id = fields.get("actor")
    if actor_id is not None:
        table.check_control(who, table.require_actor(ctx.draft, actor_id))
    source = table.dice_for(fields, who, ctx.dice)
    if not ctx.approved and table.needs_approval(who):
        rehearse(lambda dice: roll_formula(fields["formula"], dice))  # bad notation: now
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
    return ctx.record("roll", _seen_by_requester(data, fields), gm_only=bool(fields.get("secret")))


def _seen_by_requester(data: JSON, fields: Mapping[str, Any]) -> JSON:
    """A secret event the requester sees too (``requester_sees``: Foundry's GM roll,
    the GM and the roller) says so; its reply then carries the players' view of it."""
    if fields.get("secret") and fields.get("requester_sees"):
        data["requester_sees"] = True
    return data


def draw(ctx: RequestContext) -> JSON:
    """``draw``: ``number`` dice of ``faces`` faces from the server's dice, for a roll
    the client evaluates itself (Foundry's dice fulfillment). Never held for the GM's
    approval: the client's roll waits for them, and they decide nothing at the table
    (an audit trail of the client's dice, not authority)."""
    table, fields, who = ctx.table, ctx.fields, ctx.who
    actor_id = fields.get("actor")
    if actor_id is not None:
        table.check_control(who, table.require_actor(ctx.draft, actor_id))
    faces, number = fields["faces"], fields["number"]
    results = [ctx.dice.roll(faces) for _ in range(number)]
    data = {
        "faces": faces,
        "number": number,
        "results": results,
        "label": fields.get("label", ""),
        "actor": actor_id,
        "supplied": False,
    }
    return {**ctx.record("dice.drawn", _seen_by_requester(data, fields),
                         gm_only=bool(fields.get("secret"))),
            "results": results}  # fmt: skip


def _action(ctx: RequestContext) -> ActionSpec:
    ruleset, name = ctx.table.ruleset, ctx.fields["action"]
    spec = ruleset.actions.get(name)
    if spec is None:
        known = ", ".join(sorted(ruleset.actions))
        raise UnknownAction(
            say("action.unknown", "ruleset {ruleset} has no action {action} (actions: {known})")(
                ruleset=repr(ruleset.id), action=repr(name), known=known
            ),
            details={"action": name},
        )
    if spec.gm_only and not ctx.who.is_gm:
        raise Forbidden(
            say("action.gm_only", "action {action} is for the GM only")(action=repr(spec.name)),
            details={"action": spec.name},
        )
    return spec


def _targets(ctx: RequestContext, spec: ActionSpec) -> list[ActorRecord]:
    table, fields = ctx.table, ctx.fields
    if spec.every_actor:
        if fields.get("targets"):
            raise InvalidRequest(
                say(
                    "targets.every_actor",
                    "targets: action {action} applies to every actor; name none",
                )(action=repr(spec.name)),
                details={"field": "targets"},
            )
        return [table.require_actor(ctx.draft, a) for a in table.actors]
    target_ids = list(fields.get("targets") or [])
    if len(set(target_ids)) != len(target_ids):
        raise InvalidRequest(
            say("targets.twice", "targets: an actor is named twice")(), details={"field": "targets"}
        )
    if len(target_ids) < spec.min_targets or (
        spec.max_targets is not None and len(target_ids) > spec.max_targets
    ):
        action, got = repr(spec.name), len(target_ids)
        if spec.max_targets == spec.min_targets:
            wrong = TARGETS_EXACTLY(action=action, count=spec.min_targets, got=got)
        elif spec.max_targets:
            wrong = TARGETS_BETWEEN(action=action, low=spec.min_targets, high=spec.max_targets,
                                    got=got)  # fmt: skip
        else:
            wrong = TARGETS_AT_LEAST(action=action, low=spec.min_targets, got=got)
        raise InvalidRequest(
            wrong,
            details={"field": "targets"},
        )
    return [table.require_actor(ctx.draft, a) for a in target_ids]


class ActionInputs(NamedTuple):
    """A ``resolve`` (or ``odds``) request's action, checked: its spec, validated
    parameters, acting actor's record (or None) and target records."""

    spec: ActionSpec
    params: JSON
    actor: ActorRecord | None
    targets: list[ActorRecord]


def action_inputs(ctx: RequestContext) -> ActionInputs:
    """Check a request's ``action``, ``params``, ``actor`` and ``targets`` as the
    action's spec requires (not yet whether the asker controls the actor).

    :raises UnknownAction: Forbidden: InvalidParams: InvalidRequest: UnknownActor:
    """
    table, fields = ctx.table, ctx.fields
    spec = _action(ctx)
    params = validate(spec.params, fields.get("params") or {}, where="params")
    actor_id = fields.get("actor")
    if spec.actor == "required" and actor_id is None:
        raise InvalidRequest(
            say("actor.required", "actor: action {action} needs an acting actor")(
                action=repr(spec.name)
            ),
            details={"field": "actor"},
        )
    if spec.actor == "none" and actor_id is not None:
        raise InvalidRequest(
            say("actor.none", "actor: action {action} takes no acting actor")(
                action=repr(spec.name)
            ),
            details={"field": "actor"},
        )
    actor = table.require_actor(ctx.draft, actor_id) if actor_id is not None else None
    return ActionInputs(spec, params, actor, _targets(ctx, spec))


def always_secret(ruleset: Ruleset, request: Request) -> Request:
    """A ``resolve`` request for an action that is always secret
    (:attr:`ActionSpec.secret <rollbridge.contract.ActionSpec.secret>`) as a secret
    one, without ``requester_sees`` (what the rules keep behind the screen the asker
    does not see either); any other request as it is. The table reads it so from the
    start (its dice stream, its reply)."""
    if request.type != "resolve":
        return request
    spec = ruleset.actions.get(request.fields.get("action", ""))
    if spec is None or not spec.secret:
        return request
    return replace(request, fields=_secret_fields(request.fields))


def _secret_fields(fields: Mapping[str, Any]) -> Mapping[str, Any]:
    if fields.get("secret") is True and not fields.get("requester_sees"):
        return fields
    return {**fields, "secret": True, "requester_sees": False}


def resolve(ctx: RequestContext) -> JSON:
    """``resolve``: check the action, its parameters, actor and targets, then let the
    ruleset resolve it (as a secret request, for an action that is always secret:
    one the GM approves, held before the action was, too)."""
    table, fields, who = ctx.table, ctx.fields, ctx.who
    spec, params, actor, targets = action_inputs(ctx)
    if spec.secret:
        fields = _secret_fields(fields)
        if fields.get("dice") is not None and not who.is_gm:
            # the player's own die under a skill they see is the result itself
            raise Forbidden(
                SECRET_DICE(action=repr(spec.name)), details={"field": "dice", "action": spec.name}
            )
    actor_id = actor.id if actor is not None else None
    if actor is not None:
        table.check_control(who, actor)
    source = table.dice_for(fields, who, ctx.dice)
    context = ActionContext(
        action=spec.name,
        params=params,
        actor=record_actor(actor) if actor is not None else None,
        targets=tuple(map(record_actor, targets)),
        settings=table.ruleset_settings,
        request_id=str(ctx.request.id),  # rulesets keep ids as text (1 and "1" alike)
        by_gm=who.is_gm,
        secret=bool(fields.get("secret")),
        seq=ctx.draft.next_seq,  # the resolution's event: the next one (ctx.record)
        controls=None
        if who.is_gm
        else frozenset(
            a.id for a in (actor, *targets) if a is not None and who.name in a.controllers
        ),
        words=table.words,
    )
    if not ctx.approved and table.needs_approval(who):
        # what the rules refuse before the dice (an unknown weapon, a spent pool) is
        # refused now, not when the GM approves
        table.call_ruleset(lambda: rehearse(lambda dice: table.ruleset.resolve(context, dice)))
        return pend(ctx)
    resolution = table.call_ruleset(lambda: table.ruleset.resolve(context, source))
    table.returned(resolution, Resolution, "resolve")
    table.returned(resolution.outcome, dict, "resolve", field="outcome")
    table.reshaped(resolution)
    source.finish()
    target_ids = [t.id for t in targets]
    allowed = set(target_ids)
    if actor_id is not None:
        allowed.add(actor_id)
    new_records = table.new_states(ctx.draft, resolution.states, allowed)
    head = {
        "action": spec.name,
        "actor": actor_id,
        "targets": target_ids if not spec.every_actor else [],
    }
    data, texts, private = resolution_output(
        table.ruleset, resolution, head, params, words=table.words
    )
    data["supplied"] = source.supplied
    return ctx.record(
        "resolution",
        _seen_by_requester(data, fields),
        actors=new_records,
        gm_only=bool(fields.get("secret")),
        undoable=True,
        texts=texts,
        private=private,
    )
