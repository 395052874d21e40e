"""Resolving a harm roll: BD-3 (the roll), BD-4 (two light weapons), BD-5 (the table),
then BD-6 (a bandit's slots) or BD-9 (an extra).

The actor is the attacker (optional: an attacker without an actor on the table gives its
Pierce in ``params.pierce``); the one target is who is harmed. ``direction`` says who
rolls and which formula applies:

* ``dealt``: the attacker rolls 2d6 − target's Armour + own Pierce;
* ``taken``: the target rolls 2d6 − own Steady − own Armour + attacker's Pierce.

The target's Steady and Armour are its sheet's, the attacker's Pierce its sheet's or
the request's: private to each (:mod:`.privacy`), and so is the total built from them.
:mod:`.harm_texts` says what happened.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rollbridge.contract import ActionContext, Actor, Resolution
from rollbridge.dice import DiceSource
from rollbridge.exceptions import InvalidParams, RuleViolation

from . import sheet as sheets
from .actors import require_able, state_of
from .harm_texts import HarmRoll, HarmTerm, harm_report
from .messages import (
    NO_ATTACKER_TO_CHOOSE,
    NO_PAIR,
    NO_PIERCE,
    NO_WOUND_INSTEAD,
    NOT_YOUR_STANCE,
    PAIR_LOCKED,
    REDUCTION_NEEDS_GM,
    SELF_HARM,
    TARGET_DEAD,
    TARGET_OUT,
)
from .privacy import of_sheet, of_state
from .rolls import roll_2d6
from .table import band_for
from .wounds import hit_bandit, hit_extra

__all__ = ["HarmPlan", "dual_wield_choice", "plan_harm", "resolve_harm"]


def dual_wield_choice(
    actor: Actor | None,
    state: Mapping[str, Any] | None,
    asked: str | None,
    field: str,
    controls: frozenset[str] | None = None,
) -> tuple[str | None, bool]:
    """BD-4: the actor's two-weapon choice for this turn and whether it is new.

    No choice asked: this turn's earlier choice (if any) applies again. A choice needs
    two light weapons on the sheet, and cannot differ from one already made this turn.
    It is the GM's or the actor's player's (``controls``: the actors a player asking
    controls, None for the GM): another player's is refused before it is checked, so
    that the refusal tells nothing of an NPC's weapons or stance.
    """
    if (
        asked is not None
        and actor is not None
        and controls is not None
        and actor.id not in controls
    ):
        raise RuleViolation(
            NOT_YOUR_STANCE(field=field, actor=actor.name),
            code="stance_not_yours",
            details={"field": f"params.{field}"},
        )
    if actor is None or state is None:
        if asked is not None:
            raise InvalidParams(
                NO_ATTACKER_TO_CHOOSE(field=field),
                details={"field": f"params.{field}"},
            )
        return None, False
    has_pair = sheets.two_light_weapons(actor.sheet)
    current = state.get("dual_wield")
    if asked is None:
        return (current if has_pair else None), False
    if not has_pair:
        raise RuleViolation(
            NO_PAIR[asked](actor=actor.name),
            code="no_two_light_weapons",
            details={"actor": actor.id, "field": f"params.{field}"},
        )
    if current is not None and current != asked:
        raise RuleViolation(
            PAIR_LOCKED[current](actor=actor.name),
            code="dual_wield_locked",
            details={"actor": actor.id, "chosen": current},
        )
    return asked, current is None


def _check_params(context: ActionContext) -> None:
    params = context.params
    attacker, target = context.actor, context.targets[0]
    if attacker is not None and attacker.id == target.id:
        raise InvalidParams(SELF_HARM(), details={"field": "targets"})
    if attacker is None and params.get("pierce") is None:
        raise InvalidParams(
            NO_PIERCE(),
            details={"field": "params.pierce"},
        )
    if params.get("wound_instead_of_trouble") and (
        params["direction"] != "taken" or not sheets.is_bandit(target.sheet)
    ):
        raise InvalidParams(
            NO_WOUND_INSTEAD(),
            details={"field": "params.wound_instead_of_trouble"},
        )
    if params.get("reduction", 0) and not context.by_gm:
        raise RuleViolation(REDUCTION_NEEDS_GM(), code="reduction_needs_gm")


@dataclass(slots=True)
class HarmPlan:
    """What a harm roll adds to its 2d6, before any die (BD-3, BD-4), and the two-weapon
    choices it makes; :func:`resolve_harm` rolls it, :mod:`.odds` computes its odds."""

    a_state: dict[str, Any] | None
    t_state: dict[str, Any]
    a_choice: str | None
    a_new: bool
    t_choice: str | None
    t_new: bool
    terms: list[HarmTerm]
    #: The attacker's Pierce, and where it comes from: ``sheet`` or ``given`` (params).
    pierce: int
    pierce_from: str

    @property
    def modifier(self) -> int:
        """The sum of the terms: what the 2d6 are added to."""
        return sum(t.value for t in self.terms)


def plan_harm(context: ActionContext) -> HarmPlan:
    """The harm roll's terms; refuses what the rules refuse before the dice."""
    _check_params(context)
    params = context.params
    attacker, target = context.actor, context.targets[0]
    direction = params["direction"]
    a_state = state_of(attacker) if attacker is not None else None
    if attacker is not None:
        require_able(attacker, context.settings, "harm", a_state)
    t_state = state_of(target)
    if t_state.get("dead"):
        raise RuleViolation(TARGET_DEAD(target=target.name), code="target_dead")
    if t_state.get("kind") == "extra" and t_state.get("out"):
        raise RuleViolation(TARGET_OUT(target=target.name), code="target_out")
    a_choice, a_new = dual_wield_choice(
        attacker, a_state, params.get("attacker_dual_wield"), "attacker_dual_wield",
        context.controls,
    )  # fmt: skip
    t_choice, t_new = dual_wield_choice(
        target, t_state, params.get("target_dual_wield"), "target_dual_wield", context.controls
    )

    terms: list[HarmTerm] = []
    if direction == "taken":
        terms.append(HarmTerm("steady", -sheets.steady(target.sheet), target.id))
    terms.append(HarmTerm("armour", -sheets.armour(target.sheet), target.id))
    if t_choice == "armour":
        terms.append(HarmTerm("armour_pair", -1))
    if params.get("pierce") is not None:
        pierce, pierce_from = int(params["pierce"]), "given"
    else:
        assert attacker is not None
        pierce, pierce_from = sheets.pierce(attacker.sheet), "sheet"
    terms.append(HarmTerm("pierce", pierce, attacker.id if attacker is not None else None))
    if a_choice == "pierce":
        terms.append(HarmTerm("pierce_pair", 1))
    return HarmPlan(a_state, t_state, a_choice, a_new, t_choice, t_new, terms, pierce, pierce_from)


def resolve_harm(context: ActionContext, dice: DiceSource) -> Resolution:
    """BD-3 the roll, BD-4 two light weapons, BD-5 the table, BD-6 / BD-9 the wounds."""
    plan = plan_harm(context)
    params = context.params
    attacker, target = context.actor, context.targets[0]
    direction = params["direction"]
    a_state, t_state, terms = plan.a_state, plan.t_state, plan.terms
    a_choice, a_new, t_choice, t_new = plan.a_choice, plan.a_new, plan.t_choice, plan.t_new
    pierce, pierce_from = plan.pierce, plan.pierce_from

    dice_rolled = roll_2d6(dice)
    roll = sum(d.value for d in dice_rolled)
    a_id = attacker.id if attacker is not None else None
    total = roll + plan.modifier
    band = band_for(total)

    reduction = int(params.get("reduction", 0))
    trouble = band.wounds == 0
    instead = trouble and bool(params.get("wound_instead_of_trouble"))
    wounds = 1 if instead else max(0, band.wounds - reduction)

    if t_new:
        t_state["dual_wield"] = t_choice
    if sheets.is_bandit(target.sheet):
        lasting = bool(context.settings.get("heavy_wound_lasts_the_raid", False))
        new_target, info = hit_bandit(t_state, wounds, lasting=lasting)
    else:
        new_target, info = hit_extra(t_state, wounds)

    states: dict[str, Any] = {target.id: new_target}
    if attacker is not None and a_new and a_state is not None:
        a_state["dual_wield"] = a_choice
        states[attacker.id] = a_state

    roller = attacker if direction == "dealt" else target
    harm = HarmRoll(
        direction=direction,
        attacker=attacker,
        target=target,
        dice=dice_rolled,
        terms=terms,
        total=total,
        band=band,
        reduction=reduction,
        wounds=wounds,
        instead=instead,
        pierce_given=pierce_from == "given",
        info=info,
        # The total is built from the target's sheet and the attacker's Pierce.
        owners=(target.id,) if a_id is None else (target.id, a_id),
    )
    report = harm_report(harm)
    outcome: dict[str, Any] = {
        "action": "harm",
        "direction": direction,
        "attacker": a_id,
        "target": target.id,
        "roller": roller.id if roller is not None else None,
        "dice": [d.value for d in dice_rolled],
        "terms": report.terms,
        "pierce_from": pierce_from,
        "dual_wield": {"attacker": a_choice, "target": t_choice},
        "total": report.total,
        "table": band.to_dict(),
        "table_text": band.data["table_text"],
        "table_text_ru": band.text_ru,
        "table_wounds": band.wounds,
        "reduction": reduction,
        "trouble": trouble and not instead,
        "trouble_for": (roller.id if roller is not None else None)
        if trouble and not instead
        else None,
        "wound_instead_of_trouble": instead,
        "wounds": wounds,
        "result": info["result"],
        "slot": info.get("slot"),
        "slot_name": info.get("slot_name"),
        "reason": info["reason"],
        "state": of_state(target.id, new_target),
    }
    recorded = None
    if pierce_from == "given" and a_id is not None:  # a Pierce given for an actor is its own
        recorded = {**params, "pierce": of_sheet(pierce, (a_id,))}
    return Resolution(
        narration=report.narration,
        outcome=outcome,
        dice=[report.dice],
        states=states,
        steps=report.steps,
        params=recorded,
    )
