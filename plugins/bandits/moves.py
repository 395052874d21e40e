"""Resolving a move roll (BD-1, BD-2, BD-7); :mod:`.move_texts` says what happened.

:func:`plan_move` is the part before the dice, shared with :mod:`.odds`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rollbridge.contract import ActionContext, Resolution
from rollbridge.dice import DiceGroup, DiceSource
from rollbridge.exceptions import InvalidParams

from . import move_texts as texts
from . import sheet as sheets
from .actors import require_able, state_of
from .messages import NO_STAT, NO_STATS
from .rolls import EXTRA_RESULT, band_of, clamp_modifier, dice_mode, roll_move
from .state import is_heavily_wounded

__all__ = ["MovePlan", "plan_move", "resolve_move", "situational"]


def _stat_value(actor_sheet: Mapping[str, Any], stat: str | None) -> int:
    """The stat's modifier (0 for none). :raises InvalidParams: the sheet lacks it."""
    if stat is None:
        return 0
    value = sheets.stat(actor_sheet, stat)
    if value is None:
        known: Any = ", ".join(sorted(sheets.stats(actor_sheet))) or NO_STATS()
        raise InvalidParams(
            NO_STAT(stat=repr(stat), known=known),
            details={"field": "params.stat"},
        )
    return value


def situational(params: Mapping[str, Any]) -> tuple[tuple[str, int], ...]:
    """The situational modifiers of a move, each ``(label, value)``; the label is empty
    when the request gave none."""
    return tuple(
        (str(item.get("label") or ""), int(item["value"]))
        if isinstance(item, Mapping)
        else ("", int(item))
        for item in params.get("modifiers") or ()
    )


@dataclass(frozen=True, slots=True)
class MovePlan:
    """What a move rolls, before any die: the modifiers (BD-1) and the dice mode
    (BD-2, BD-7). :func:`resolve_move` rolls it; :mod:`.odds` computes its odds."""

    stat: str | None
    stat_value: int
    others: tuple[tuple[str, int], ...]
    raw: int
    modifier: int
    advantage: bool
    #: Why it has disadvantage: (asked, heavily wounded).
    why: tuple[bool, bool]
    #: ``normal``, ``advantage``, ``disadvantage`` or ``cancelled`` (plain 2d6).
    mode: str

    @property
    def rolled_mode(self) -> str:
        """The mode the dice are rolled in (``cancelled`` rolls as ``normal``)."""
        return "normal" if self.mode == "cancelled" else self.mode


def plan_move(context: ActionContext) -> MovePlan:
    """The move's modifiers and dice mode; refuses an actor who may not act."""
    actor = context.actor
    assert actor is not None  # the spec requires an actor
    params = context.params
    stat = params.get("stat")
    stat_value = _stat_value(actor.sheet, stat)
    others = situational(params)
    state = state_of(actor)
    require_able(actor, context.settings, "move", state)
    raw = stat_value + sum(value for _, value in others)
    advantage = bool(params.get("advantage", False))
    why = (bool(params.get("disadvantage", False)), is_heavily_wounded(state))
    mode = dice_mode(advantage, any(why))
    return MovePlan(stat, stat_value, others, raw, clamp_modifier(raw), advantage, why, mode)


def resolve_move(context: ActionContext, dice: DiceSource) -> Resolution:
    """BD-1: 2d6 + the modifiers clamped to ±4; BD-2 advantage; BD-7 heavily wounded."""
    actor = context.actor
    assert actor is not None  # the spec requires an actor
    params = context.params
    plan = plan_move(context)
    stat, stat_value, others, raw = plan.stat, plan.stat_value, plan.others, plan.raw
    modifier, advantage, why, mode = plan.modifier, plan.advantage, plan.why, plan.mode
    roll = roll_move(dice, plan.rolled_mode, modifier)
    band = band_of(roll.total)
    extra = roll.total >= EXTRA_RESULT
    # With a stat, the modifier and the total are built from the actor's sheet.
    owner = actor.id if stat else None
    mods = texts.modifiers(stat, stat_value, others, raw, modifier, owner)
    score = texts.score(roll.dice_total, modifier, roll.total, band, extra, owner)

    move = params.get("move") or ""
    outcome = {
        "action": "move",
        "move": move,
        "stat": stat,
        "terms": [
            {"label": label, "value": v} for label, v in zip(mods.labels, mods.values, strict=True)
        ],
        "modifier_raw": mods.raw,
        "modifier": mods.modifier,
        "clamped": mods.clamped,
        "advantage": advantage,
        "disadvantage": any(why),
        "disadvantage_from": texts.disadvantage(why),
        "dice_mode": mode,
        "dice": [d.value for d in roll.dice],
        "kept": roll.kept,
        "dropped": roll.dropped,
        "dice_total": roll.dice_total,
        "total": score.total,
        "band": band,
        "extra_result": extra,
    }
    group = DiceGroup(
        label=texts.dice_label(actor.name, move),
        dice=roll.dice,
        formula=texts.formula(roll.formula, roll.base_formula, owner),
        total=score.total,
        note=score.band,
    )
    return Resolution(
        narration=texts.narration(
            actor.name, move, stat, roll.dice_total, modifier, roll.total, band, extra, owner
        ),
        outcome=outcome,
        dice=[group],
        states={},
        steps=[mods.step, texts.dice_step(roll, why), score.step],
    )
