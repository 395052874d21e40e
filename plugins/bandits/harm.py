"""Resolving a harm roll: BD-3 (the roll), BD-4 (two light weapons), BD-5 (the table),
then BD-6 (a bandit's slots) or BD-9 (an extra).

The actor is the attacker (optional: an attacker without an actor on the table gives its
Pierce in ``params.pierce``); the one target is who is harmed. ``direction`` says who
rolls and which formula applies:

* ``dealt``: the attacker rolls 2d6 − target's Armour + own Pierce;
* ``taken``: the target rolls 2d6 − own Steady − own Armour + attacker's Pierce.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rollbridge.contract import ActionContext, Actor, Resolution
from rollbridge.dice import DiceGroup, DiceSource
from rollbridge.exceptions import InvalidParams, RuleViolation

from . import sheet as sheets
from .actors import require_able, state_of
from .rolls import roll_2d6, signed
from .state import SLOT_LABELS
from .table import band_for
from .wounds import hit_bandit, hit_extra

__all__ = ["dual_wield_choice", "resolve_harm"]


def dual_wield_choice(
    actor: Actor | None, state: Mapping[str, Any] | None, asked: str | None, field: str
) -> tuple[str | None, bool]:
    """BD-4: the actor's two-weapon choice for this turn and whether it is new.

    No choice asked: this turn's earlier choice (if any) applies again. A choice needs
    two light weapons on the sheet, and cannot differ from one already made this turn.
    """
    if actor is None or state is None:
        if asked is not None:
            raise InvalidParams(
                f"params.{field}: there is no attacker actor to make the choice",
                details={"field": f"params.{field}"},
            )
        return None, False
    has_pair = sheets.two_light_weapons(actor.sheet)
    current = state.get("dual_wield")
    if asked is None:
        return (current if has_pair else None), False
    if not has_pair:
        raise RuleViolation(
            f"{actor.name} does not carry two light weapons, so cannot take +1 {asked} (BD-4)",
            code="no_two_light_weapons",
            details={"actor": actor.id, "field": f"params.{field}"},
        )
    if current is not None and current != asked:
        raise RuleViolation(
            f"{actor.name} already chose +1 {current} this turn and cannot change it (BD-4)",
            code="dual_wield_locked",
            details={"actor": actor.id, "chosen": current},
        )
    return asked, current is None


def _check_params(context: ActionContext) -> None:
    params = context.params
    attacker, target = context.actor, context.targets[0]
    if attacker is not None and attacker.id == target.id:
        raise InvalidParams(
            "targets: the attacker and the harmed target must differ", details={"field": "targets"}
        )
    if attacker is None and params.get("pierce") is None:
        raise InvalidParams(
            "params.pierce: name the attacker as the actor, or give its Pierce",
            details={"field": "params.pierce"},
        )
    if params.get("wound_instead_of_trouble") and (
        params["direction"] != "taken" or not sheets.is_bandit(target.sheet)
    ):
        raise InvalidParams(
            "params.wound_instead_of_trouble: only a bandit taking harm may take 1 wound "
            "instead of the trouble (BD-5)",
            details={"field": "params.wound_instead_of_trouble"},
        )
    if params.get("reduction", 0) and not context.by_gm:
        raise RuleViolation("only the GM may reduce the wounds of a hit", code="reduction_needs_gm")


def resolve_harm(context: ActionContext, dice: DiceSource) -> Resolution:
    _check_params(context)
    params = context.params
    attacker, target = context.actor, context.targets[0]
    direction = params["direction"]
    if attacker is not None:
        require_able(attacker, context.settings, "deal harm")
    t_state = state_of(target)
    if t_state.get("dead"):
        raise RuleViolation(f"{target.name} is already dead", code="target_dead")
    if t_state.get("kind") == "extra" and t_state.get("out"):
        raise RuleViolation(f"{target.name} is already out (BD-9)", code="target_out")
    a_state = state_of(attacker) if attacker is not None else None
    a_choice, a_new = dual_wield_choice(
        attacker, a_state, params.get("attacker_dual_wield"), "attacker_dual_wield"
    )
    t_choice, t_new = dual_wield_choice(
        target, t_state, params.get("target_dual_wield"), "target_dual_wield"
    )

    a_name = attacker.name if attacker is not None else "the attacker"
    dice_rolled = roll_2d6(dice)
    roll = sum(d.value for d in dice_rolled)
    terms: list[dict[str, Any]] = [{"label": "2d6", "value": roll}]
    if direction == "taken":
        terms.append({"label": f"{target.name}'s Steady", "value": -sheets.steady(target.sheet)})
    terms.append({"label": f"{target.name}'s Armour", "value": -sheets.armour(target.sheet)})
    if t_choice == "armour":
        terms.append({"label": f"{target.name}'s two light weapons, +1 Armour (BD-4)", "value": -1})
    if params.get("pierce") is not None:
        pierce, pierce_from = int(params["pierce"]), "given"
    else:
        assert attacker is not None
        pierce, pierce_from = sheets.pierce(attacker.sheet), "sheet"
    terms.append({"label": f"{a_name}'s Pierce", "value": pierce})
    if a_choice == "pierce":
        terms.append({"label": f"{a_name}'s two light weapons, +1 Pierce (BD-4)", "value": 1})
    total = sum(t["value"] for t in terms)
    band = band_for(total)

    reduction = int(params.get("reduction", 0))
    trouble = band.wounds == 0
    instead = trouble and bool(params.get("wound_instead_of_trouble"))
    wounds = 1 if instead else max(0, band.wounds - reduction)

    if t_new:
        t_state["dual_wield"] = t_choice
    if sheets.is_bandit(target.sheet):
        new_target, info = hit_bandit(t_state, wounds)
    else:
        new_target, info = hit_extra(t_state, wounds)

    roller = attacker if direction == "dealt" else target
    roller_name = roller.name if roller is not None else "the attacker"
    steps = []
    faces = ", ".join(str(d.value) for d in dice_rolled)
    built = f"{roll} (2d6 [{faces}])" + "".join(
        f" {'+' if t['value'] >= 0 else '−'} {abs(t['value'])} ({t['label']})" for t in terms[1:]
    )
    steps.append(
        f"{'dealing' if direction == 'dealt' else 'taking'} harm (BD-3), rolled by "
        f"{roller_name}: {built} = {total} (no ±4 clamp on harm)"
    )
    if pierce_from == "given":
        steps.append(f"{a_name}'s Pierce {pierce} given with the request")
    steps.append(f"harm table (BD-5): {band.text}")
    if instead:
        steps.append(f"3−: {target.name} takes 1 wound instead of the trouble (BD-5)")
    elif trouble:
        steps.append(f"3−: trouble for {roller_name}, no wounds (BD-5)")
    elif reduction:
        steps.append(f"GM reduction −{reduction}: {band.wounds} → {wounds} wounds")
    steps.append(info["reason"])

    states: dict[str, Any] = {target.id: new_target}
    if attacker is not None and a_new and a_state is not None:
        a_state["dual_wield"] = a_choice
        states[attacker.id] = a_state

    result = info["result"]
    effect = {
        "unhurt": "no wounds",
        "marked": f"{SLOT_LABELS.get(info.get('slot') or 0, '')} (slot {info.get('slot')})",
        "dying": "dying (slot 4)",
        "dead": "dead",
        "wounded": "wounded",
        "out": "out",
    }[result]
    narration = (
        f"{a_name} harms {target.name} ({direction}, rolled by {roller_name}): {total} "
        f"→ {band.wounds_text}; {target.name}: {effect}"
    )
    if trouble and not instead:
        narration += f"; trouble for {roller_name}"
    outcome: dict[str, Any] = {
        "action": "harm",
        "direction": direction,
        "attacker": attacker.id if attacker is not None else None,
        "target": target.id,
        "roller": roller.id if roller is not None else None,
        "dice": [d.value for d in dice_rolled],
        "terms": terms,
        "pierce_from": pierce_from,
        "dual_wield": {"attacker": a_choice, "target": t_choice},
        "total": total,
        "table": band.to_dict(),
        "table_text": band.text,
        "table_text_ru": band.text_ru,
        "table_wounds": band.wounds,
        "reduction": reduction,
        "trouble": trouble and not instead,
        "trouble_for": (roller.id if roller is not None else None)
        if trouble and not instead
        else None,
        "wound_instead_of_trouble": instead,
        "wounds": wounds,
        "result": result,
        "slot": info.get("slot"),
        "slot_name": info.get("slot_name"),
        "reason": info["reason"],
        "state": new_target,
    }
    group = DiceGroup(
        label=f"{roller_name}: harm {direction}",
        dice=dice_rolled,
        formula="2d6"
        + "".join(signed(t["value"], ascii_minus=True) for t in terms[1:] if t["value"]),
        total=total,
        note=band.text,
    )
    return Resolution(
        narration=narration, outcome=outcome, dice=[group], states=states, steps=steps
    )
