"""Resolving a move roll (BD-1, BD-2, BD-7)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rollbridge.contract import ActionContext, Resolution
from rollbridge.dice import DiceGroup, DiceSource
from rollbridge.exceptions import InvalidParams

from . import sheet as sheets
from .actors import require_able, state_of
from .rolls import band_of, clamp_modifier, dice_mode, roll_move, signed
from .state import is_heavily_wounded

__all__ = ["BAND_TEXT", "move_terms", "resolve_move"]

BAND_TEXT = {
    "miss": "miss (6−)",
    "partial": "partial success (7–9)",
    "full": "full success (10+)",
}


def move_terms(actor_sheet: Mapping[str, Any], params: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The modifiers of a move, each ``{"label", "value"}``: the stat, then the situational ones."""
    terms: list[dict[str, Any]] = []
    stat_name = params.get("stat")
    if stat_name is not None:
        value = sheets.stat(actor_sheet, stat_name)
        if value is None:
            known = ", ".join(sorted(sheets.stats(actor_sheet))) or "none"
            raise InvalidParams(
                f"params.stat: the sheet has no stat {stat_name!r} (known: {known})",
                details={"field": "params.stat"},
            )
        terms.append({"label": f"stat {stat_name}", "value": value})
    for index, item in enumerate(params.get("modifiers") or [], start=1):
        if isinstance(item, Mapping):
            label = str(item.get("label") or f"modifier {index}")
            terms.append({"label": label, "value": int(item["value"])})
        else:
            terms.append({"label": f"modifier {index}", "value": int(item)})
    return terms


def resolve_move(context: ActionContext, dice: DiceSource) -> Resolution:
    actor = context.actor
    assert actor is not None  # the spec requires an actor
    params = context.params
    terms = move_terms(actor.sheet, params)
    require_able(actor, context.settings, "make a move")
    state = state_of(actor)

    raw = sum(t["value"] for t in terms)
    modifier = clamp_modifier(raw)
    heavy = is_heavily_wounded(state)
    advantage = bool(params.get("advantage", False))
    requested_dis = bool(params.get("disadvantage", False))
    disadvantage_from = (["requested"] if requested_dis else []) + (
        ["heavily wounded (BD-7)"] if heavy else []
    )
    mode = dice_mode(advantage, bool(disadvantage_from))
    roll = roll_move(dice, "normal" if mode == "cancelled" else mode, modifier)
    band = band_of(roll.total)
    extra = roll.total >= 12

    steps: list[str] = []
    built = ", ".join(f"{t['label']} {signed(t['value'])}" for t in terms) or "no modifiers"
    if raw != modifier:
        steps.append(f"modifier: {built} = {signed(raw)}, clamped to {signed(modifier)} (BD-1)")
    else:
        steps.append(f"modifier: {built} = {signed(modifier)} (within ±4, BD-1)")
    faces = ", ".join(str(d.value) for d in roll.dice)
    if mode == "advantage":
        steps.append(
            f"advantage (BD-2): 3d6 [{faces}], the lowest ({roll.dropped}) dropped "
            f"→ {roll.dice_total}"
        )
    elif mode == "disadvantage":
        steps.append(
            f"disadvantage, {', '.join(disadvantage_from)} (BD-2): 3d6 [{faces}], the highest "
            f"({roll.dropped}) dropped → {roll.dice_total}"
        )
    elif mode == "cancelled":
        steps.append(
            f"advantage and disadvantage ({', '.join(disadvantage_from)}) cancel (BD-2): "
            f"2d6 [{faces}] → {roll.dice_total}"
        )
    else:
        steps.append(f"2d6 [{faces}] → {roll.dice_total}")
    result = BAND_TEXT[band] + (", 12+: the extra result" if extra else "")
    steps.append(f"total {roll.dice_total} {signed(modifier)} = {roll.total}: {result} (BD-1)")

    what = params.get("move") or "a move"
    with_stat = f" with {params['stat']}" if params.get("stat") else ""
    narration = f"{actor.name} rolls {what}{with_stat}: {roll.total}, {result}"
    outcome = {
        "action": "move",
        "move": params.get("move") or "",
        "stat": params.get("stat"),
        "terms": terms,
        "modifier_raw": raw,
        "modifier": modifier,
        "clamped": raw != modifier,
        "advantage": advantage,
        "disadvantage": bool(disadvantage_from),
        "disadvantage_from": disadvantage_from,
        "dice_mode": mode,
        "dice": [d.value for d in roll.dice],
        "kept": roll.kept,
        "dropped": roll.dropped,
        "dice_total": roll.dice_total,
        "total": roll.total,
        "band": band,
        "extra_result": extra,
    }
    group = DiceGroup(
        label=f"{actor.name}: {what}",
        dice=roll.dice,
        formula=roll.formula,
        total=roll.total,
        note=BAND_TEXT[band],
    )
    return Resolution(narration=narration, outcome=outcome, dice=[group], states={}, steps=steps)
