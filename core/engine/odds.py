"""The ``odds`` request: exact odds of dice notation or of an action, from what the
asker may see.

It changes nothing and draws no dice. For a formula it is
:func:`rollbridge.odds.distribution`. For an action the request is checked as
``resolve`` checks it (:func:`~rollbridge.engine.rolls.action_inputs`: the action,
its parameters, actor and targets; not whether the asker controls the actor), and
the ruleset's optional :meth:`~rollbridge.contract.Ruleset.odds` hook is asked on
the actors **as the asker sees them** (a ruleset without the hook of its own answers
``odds_unavailable`` first, whoever asks and whatever they assume: :func:`gives_odds`):

* the GM, and anyone for an actor some player controls: the actor as the table
  holds it;
* a player or observer for an actor no player controls (an NPC): the ruleset's
  :meth:`~rollbridge.contract.Ruleset.player_view` of it — its sheet and state as
  players see them, never the hidden values. Where the view hides the whole sheet
  or the whole state (``None``), the asker must state it in ``assume``
  (``{"npc": {"sheet": {...}, "state": {...}}}``; an empty state is a statement
  too: the fresh state), else the request is refused with ``odds_hidden``, naming
  the actor and the part — also where what the view shows of a part does not make
  a valid one and the asker stated nothing for it.

The hook is told ``secret`` for an action that is always secret
(:attr:`~rollbridge.contract.ActionSpec.secret`), as ``resolve`` is for every request
of it (an ``odds`` request carries no ``secret``: any other action's odds are told
``False``); a player is answered for such an action as for any other, not refused: a
secret hides how a roll went, not its chance, and the chance comes from what the
asker sees alone (a player's odds of the GM's hidden check on an NPC: from the
players' view of the NPC and what they assume).

``assume`` may also change what the asker sees ("what if it had armour 6"): an
assumption is laid over the actor's sheet or state (nested objects merged key by
key), then checked and completed as ``actor.update`` would
(:meth:`~rollbridge.contract.Ruleset.validate_sheet`, ``validate_state``). So the
answer to a player is a function of the players' view and the assumptions alone:
whatever the hidden values are, it is the same (tests/engine/test_odds_request.py
proves it with generated hidden values).

The computation runs under the bounds its driver sets
(:mod:`rollbridge.odds.bounds`); formulas' distributions are cached, since they
depend on the text alone, in caches bounded by bytes
(:mod:`rollbridge.odds.cache`). Each answer is computed inside
:func:`~rollbridge.odds.cache.provisional`: a refused one (a reply larger than an
event may be, say) leaves nothing in any cache. A formula whose reply could not
fit, whatever its probabilities (:func:`~rollbridge.odds.support.fewest_totals`
outcomes of at least :data:`OUTCOME_BYTES` each), is refused before its
distribution is computed.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from rollbridge.contract import ActionContext, Actor, Ruleset
from rollbridge.dice.notation import parse
from rollbridge.dice.sources import ScriptedDice
from rollbridge.engine.context import RequestContext
from rollbridge.engine.draft import Draft
from rollbridge.engine.model import ActorRecord, Principal
from rollbridge.engine.requests import Request
from rollbridge.engine.rolls import action_inputs
from rollbridge.exceptions import (
    DiceLimitExceeded,
    InternalError,
    InvalidRequest,
    InvalidSheet,
    InvalidState,
    OddsHidden,
    OddsUnavailable,
)
from rollbridge.odds import Distribution, Odds, distribution
from rollbridge.odds.bounds import DEFAULT_BOUNDS, Bounds, bounded
from rollbridge.odds.cache import provisional
from rollbridge.odds.support import fewest_totals
from rollbridge.plain import JSON, dumps_json
from rollbridge.text import Messages

if TYPE_CHECKING:
    from rollbridge.engine.table import Table

__all__ = ["OUTCOME_BYTES", "answer_odds", "formula_distribution", "gives_odds"]

say = Messages("rollbridge")
ONE_OF = say("odds.one_of", "odds: give either formula or action, not both and not neither")
# Translators: {actor} is an actor's name; assume.{id}.sheet is a field's path: keep it.
HIDDEN_SHEET = say(
    "odds.hidden.sheet",
    "players do not see all of {actor}'s sheet, and their odds are computed from what "
    "they see alone; state it in assume.{id}.sheet to compute them from your assumption",
)
# Translators: {actor} is an actor's name; assume.{id}.state is a field's path: keep it.
HIDDEN_STATE = say(
    "odds.hidden.state",
    "players do not see all of {actor}'s state, and their odds are computed from what "
    "they see alone; state it in assume.{id}.state to compute them from your assumption",
)
# (Until 7 December they said "the odds depend on {actor}'s sheet": the core does not
# know what the ruleset's odds read; it refuses where the players' view of a part is
# None or makes no whole one, whether the odds would read that part or not.)
HIDDEN = {"sheet": HIDDEN_SHEET, "state": HIDDEN_STATE}
# "odds.hidden" named the part in an argument ({part}: an English word inside every
# translation) until 6 December; a reply kept from before reads as the new message.
say.renamed("odds.hidden", by="part", keys={part: f"odds.hidden.{part}" for part in HIDDEN})
# Translators: {actor} is an actor id.
NOT_NAMED = say("odds.assume_unknown", "assume: {actor} is neither the acting actor nor a target")
# Translators: {ruleset} and {action} are ids: keep them.
NO_ODDS = say("odds.unavailable", "ruleset {ruleset} gives no odds for action {action}")
# Translators: {size} and {limit} are numbers of bytes.
TOO_LARGE = say.plural(
    "odds.too_large",
    "the odds would be {size:,} byte, more than the {limit:,} a reply may carry; ask for "
    "fewer dice",
    "the odds would be {size:,} bytes, more than the {limit:,} a reply may carry; ask for "
    "fewer dice",
    count="size",
)

# Translators: {totals}, {size} and {limit} are numbers ({size}, {limit} of bytes).
TOO_MANY_TOTALS = say(
    "odds.too_many_totals",
    "the odds would have {totals:,} totals, at least {size:,} bytes, more than the "
    "{limit:,} a reply may carry; ask for fewer dice",
)


#: An action's reply carries the law of its total up to this many totals.
MAX_REPLY_TOTALS = 500


def formula_distribution(formula: str, bounds: Bounds = DEFAULT_BOUNDS) -> Distribution:
    """The exact distribution of ``formula`` under ``bounds`` (cached by
    :func:`rollbridge.odds.distribution`: the same formula's odds are computed once)."""
    with bounded(bounds):
        return distribution(formula)


#: The fewest bytes one total takes in a formula's reply (``Distribution.to_dict``):
#: the shortest total, fraction and float there are.
OUTCOME_BYTES = len(dumps_json({"total": 0, "probability": "1/1", "float": 1.0})) + 1


def _formula_odds(formula: Any, bounds: Bounds, limit: int) -> JSON:
    """The reply fields of a formula's odds; refused before any computation when
    even the shortest outcomes of the totals it must have pass ``limit``."""
    totals = fewest_totals(parse(formula))
    least = totals * OUTCOME_BYTES - 1
    if least > limit:
        raise DiceLimitExceeded(
            TOO_MANY_TOTALS(totals=totals, size=least, limit=limit),
            details={"size": least, "limit": limit, "totals": totals},
        )
    return _check_size({"distribution": formula_distribution(formula, bounds).to_dict()}, limit)


def _merged(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        known = out.get(key)
        if isinstance(value, Mapping) and isinstance(known, Mapping):
            out[key] = _merged(known, value)
        else:
            out[key] = value
    return out


def checked_odds(table: Table, odds: Any) -> Odds | None:
    """What the ruleset's ``odds`` returned, when it is an :class:`Odds` of exact
    probabilities (or None). :raises InternalError: anything else, naming the ruleset
    and what is wrong (a float probability, say: odds are exact fractions)."""
    table.returned(odds, Odds, "odds", optional=True)
    if odds is None:
        return None
    named = [(repr(name), p) for name, p in odds.outcomes.items()]
    for outcome, probability in [*named, ("truncated", odds.truncated)]:
        if probability.__class__ is not Fraction and probability.__class__ is not int:
            raise InternalError(
                say(
                    "internal.odds_inexact",
                    "ruleset {ruleset} gave the odds of {outcome} as {returned}, "
                    "not an exact Fraction",
                )(
                    ruleset=repr(table.ruleset.id),
                    outcome=outcome,
                    returned=type(probability).__name__,
                )
            )
    return odds


def _seen_actor(
    table: Table, record: ActorRecord, who: Principal, stated: Mapping[str, Any] | None
) -> tuple[Actor, bool]:
    """The actor ``record`` as ``who`` sees it with ``stated`` laid over it, and
    whether it is limited (an NPC seen by players)."""
    ruleset = table.ruleset
    limited = not who.is_gm and not record.controllers
    sheet: Mapping[str, Any] | None = record.sheet
    state: Mapping[str, Any] | None = record.state
    if limited:
        actor = Actor(record.id, record.name, record.sheet, record.state)
        view = table.call_ruleset(lambda: ruleset.player_view(actor, table.ruleset_settings))
        sheet, state = view.sheet, view.state
        for part, shown in (("sheet", sheet), ("state", state)):
            if shown is None and (stated is None or part not in stated):
                raise OddsHidden(
                    HIDDEN[part](actor=record.name, id=record.id),
                    details={"actor": record.id, "part": part},
                )
    if stated is None and not limited:
        return Actor(record.id, record.name, record.sheet, record.state), False
    stated = stated or {}

    def checked(part: str, check: Any) -> Any:
        try:
            return table.call_ruleset(check)
        except (InvalidSheet, InvalidState) as exc:
            if limited and part not in stated:
                # what players see of this part does not make a whole one (the view
                # leaves fields out): the asker must state it, not mend the view
                raise OddsHidden(
                    HIDDEN[part](actor=record.name, id=record.id),
                    details={"actor": record.id, "part": part},
                ) from None
            raise exc from None  # the asker's own assumption: its field named

    sheet = checked(
        "sheet", lambda: ruleset.validate_sheet(_merged(sheet or {}, stated.get("sheet") or {}))
    )
    state = _merged(state or {}, stated.get("state") or {})
    state = checked("state", lambda: ruleset.validate_state(sheet, state))
    table.returned(state, dict, "validate_state")  # as actor.create and actor.update
    return Actor(record.id, record.name, sheet, state), limited


def gives_odds(ruleset: Ruleset) -> bool:
    """Whether ``ruleset`` has an :meth:`~rollbridge.contract.Ruleset.odds` hook of its
    own: the contract's answers None for every action. Without one a player is told
    there are no odds (``odds_unavailable``), not asked to state an NPC's hidden part
    in ``assume`` (review plugins-23: no assumption would have given any)."""
    hook = getattr(ruleset, "odds", None)
    return hook is not None and getattr(hook, "__func__", hook) is not Ruleset.odds


def _check_size(reply: JSON, limit: int) -> JSON:
    size = len(dumps_json(reply).encode())
    if size > limit:
        raise DiceLimitExceeded(
            TOO_LARGE(size=size, limit=limit), details={"size": size, "limit": limit}
        )
    return reply


def answer_odds(
    table: Table,
    request: Request,
    who: Principal,
    *,
    locale: str = "en",
    bounds: Bounds = DEFAULT_BOUNDS,
) -> JSON:
    """The reply fields of an ``odds`` request (see the module docstring).

    :raises InvalidRequest: neither or both of ``formula`` and ``action``, or an
        assumption about an actor the request does not name.
    :raises OddsHidden: a player's odds would need an NPC's hidden sheet or state.
    :raises OddsUnavailable: the ruleset gives no odds for the action.
    :raises DiceLimitExceeded: the computation or its reply passes a bound.
    """
    table.check_role(request, who)
    fields = request.fields
    formula, action = fields.get("formula"), fields.get("action")
    if (formula is None) == (action is None):
        raise InvalidRequest(ONE_OF(), details={"field": "formula"})
    with provisional():  # a refused answer keeps nothing in the caches
        if formula is not None:
            return _formula_odds(formula, bounds, table.max_event_bytes)
        return _action_odds(table, request, who, locale, bounds)


def _action_odds(
    table: Table, request: Request, who: Principal, locale: str, bounds: Bounds
) -> JSON:
    fields = request.fields
    ctx = RequestContext(table, request, who, ScriptedDice([]), Draft(table))
    spec, params, actor, targets = action_inputs(ctx)
    assume: Mapping[str, Any] = fields.get("assume") or {}
    named = {r.id for r in (actor, *targets) if r is not None}
    for actor_id in assume:
        if actor_id not in named:
            raise InvalidRequest(
                NOT_NAMED(actor=repr(actor_id)), details={"field": "assume", "actor": actor_id}
            )
    if not gives_odds(table.ruleset):  # no answer follows from any assumption: said first
        raise OddsUnavailable(
            NO_ODDS(ruleset=table.ruleset.id, action=spec.name), details={"action": spec.name}
        )
    limited: list[str] = []

    def seen(record: ActorRecord) -> Actor:
        view, is_limited = _seen_actor(table, record, who, assume.get(record.id))
        if is_limited:
            limited.append(record.id)
        return view

    context = ActionContext(
        action=spec.name,
        params=params,
        actor=seen(actor) if actor is not None else None,
        targets=tuple(seen(t) for t in targets),
        settings=table.ruleset_settings,
        request_id=str(request.id),
        by_gm=who.is_gm,
        # as resolve is told for every request of an action that is always secret (an
        # odds request carries no secret: any other action's odds are told False)
        secret=spec.secret,
    )

    def compute() -> Any:
        with bounded(bounds):
            return table.ruleset.odds(context)

    odds = checked_odds(table, table.call_ruleset(compute))
    if odds is None:
        raise OddsUnavailable(
            NO_ODDS(ruleset=table.ruleset.id, action=spec.name), details={"action": spec.name}
        )
    # the outcomes are the answer; the law of the total is a detail a large one omits
    with_totals = odds.totals is not None and len(odds.totals.weights) <= MAX_REPLY_TOTALS
    reply = {
        "ruleset": table.ruleset.id,
        "action": spec.name,
        "odds": odds.to_dict(locale, totals=with_totals),
        "limited": limited,
        "assumed": sorted(assume),
    }
    if odds.totals is not None and not with_totals:
        reply["odds"]["totals_omitted"] = True
    try:
        return _check_size(reply, table.max_event_bytes)
    except DiceLimitExceeded:
        if reply["odds"]["totals"] is None:
            raise
    reply["odds"] = {**odds.to_dict(locale, totals=False), "totals_omitted": True}
    return _check_size(reply, table.max_event_bytes)
