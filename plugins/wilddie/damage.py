"""WD-7 damage: the damage roll (aces, no wild die) and its effect against Toughness.

A damage expression is weapon dice with optional constants, in the shared dice
notation (:mod:`rollbridge.dice.notation`, Foundry's syntax): ``"2d6"``,
``"d8"``, ``"2d6+1"``, ``"d10+d6-1"``. Every die of it aces (WD-2) whatever the
writer typed, so ``2d6``, ``2d6x`` (Foundry's Savage Worlds habit) and
``2d6!!`` are the same; other modifiers (``kh``, ``r``, …), products and
parentheses are refused. The expression is rewritten with compounding dice
(``2d6!!``) and rolled by the shared notation; for a melee attack the
attacker's Strength die is added in front (WD-7 Decision).

The effect's ``why`` is a text whose Toughness is the target's private value
(:mod:`rollbridge.plugins.wilddie.privacy`): players read "10 meets Toughness
without a raise" for an NPC, the GM "10 meets Toughness 9 without a raise".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from rollbridge.dice import DiceGroup, DiceSource, roll_formula
from rollbridge.dice.notation import BinOp, Dice, Neg, Node, Num, parse
from rollbridge.exceptions import InvalidParams, NotationError
from rollbridge.plugins.wilddie.messages import (
    BAD_DAMAGE,
    BAD_NOTATION,
    DICE_SUBTRACTED,
    MORE_THAN_ACES,
    NO_DICE,
    NOT_A_DAMAGE_DIE,
    ONLY_SUMS,
    STRENGTH_DICE,
    TOO_MANY_DICE,
    TOUGHNESS,
    TOUGHNESS_WORD,
    WEAPON_DICE,
    WHY_BEATS,
    WHY_BEATS_HIDDEN,
    WHY_BELOW,
    WHY_MEETS,
    WHY_MEETS_SHAKEN,
    WHY_PER_RAISE,
    WHY_PER_RAISE_HIDDEN,
)
from rollbridge.plugins.wilddie.privacy import from_sheet
from rollbridge.text import Private, Text

__all__ = [
    "MAX_DICE",
    "MAX_FACES",
    "damage_effect",
    "describe_terms",
    "parse_damage",
    "roll_damage",
    "shown_toughness",
]

#: At most this many dice in one damage expression.
MAX_DICE = 20
#: Damage dice have 2 to this many faces.
MAX_FACES = 100


def _acing(node: Dice) -> bool:
    """Whether a dice term asks for nothing but WD-2's aces: none, ``x`` or ``!!``."""
    if node.compound is not None and node.compound != node.faces:
        return False
    mods = node.modifiers
    if not mods:
        return True
    if node.compound is not None or len(mods) != 1:
        return False
    mod = mods[0]
    if mod.kind != "x" or mod.count is not None:
        return False
    return mod.target is None or (mod.target == node.faces and mod.comparison in ("=", ">="))


def parse_damage(expression: str, where: str = "params.dice") -> list[dict[str, int]]:
    """Parse ``"2d6+1"`` into terms: ``[{"count": 2, "faces": 6}, {"constant": 1}]``.

    :raises InvalidParams: naming ``where`` and the problem.
    """
    return [dict(term) for term in _parse_terms(expression, where)]


@lru_cache(maxsize=512)
def _parse_terms(expression: str, where: str) -> tuple[tuple[tuple[str, int], ...], ...]:
    """:func:`parse_damage`, remembered per expression (a table rolls the same
    weapons again and again); terms as tuples, so that no caller can change them."""
    try:
        formula = parse(expression)
    except NotationError as exc:
        problem = exc.message if exc.text is None else exc.text  # a text, where the core has one
        raise InvalidParams(
            BAD_NOTATION(where=where, problem=problem), details={"field": where}
        ) from None
    terms: list[dict[str, int]] = []

    def fail(problem: Text) -> InvalidParams:
        return InvalidParams(
            BAD_DAMAGE(where=where, problem=problem, expression=repr(expression)),
            details={"field": where},
        )

    def walk(node: Node, sign: int) -> None:
        if isinstance(node, BinOp) and node.op in "+-":
            walk(node.left, sign)
            walk(node.right, sign if node.op == "+" else -sign)
        elif isinstance(node, Neg):
            walk(node.operand, -sign)
        elif isinstance(node, Num):
            terms.append({"constant": sign * node.value})
        elif isinstance(node, Dice):
            if sign < 0:
                raise fail(DICE_SUBTRACTED())
            if not _acing(node):
                raise fail(MORE_THAN_ACES(term=node.text))
            if not 2 <= node.faces <= MAX_FACES:
                raise fail(NOT_A_DAMAGE_DIE(faces=node.faces, most=MAX_FACES))
            terms.append({"count": node.number, "faces": node.faces})
        else:
            raise fail(ONLY_SUMS())

    walk(formula.root, 1)
    dice = sum(t.get("count", 0) for t in terms)
    if dice == 0:
        raise fail(NO_DICE())
    if dice > MAX_DICE:
        raise fail(TOO_MANY_DICE(count=dice, most=MAX_DICE))
    return tuple(tuple(term.items()) for term in terms)


def damage_formula(terms: Sequence[Mapping[str, int]], strength: int | None) -> str:
    """The acing formula to roll: ``1d8!! + 2d6!! + 1`` (Strength first when given)."""
    parts = [] if strength is None else [f"1d{strength}!!"]
    constant = sum(t.get("constant", 0) for t in terms)
    parts.extend(f"{t['count']}d{t['faces']}!!" for t in terms if "count" in t)
    text = " + ".join(parts)
    if constant:
        text += f" + {constant}" if constant > 0 else f" - {-constant}"
    return text


def roll_damage(
    dice: DiceSource, terms: Sequence[Mapping[str, int]], strength: int | None
) -> tuple[int, list[DiceGroup], str]:
    """Roll the damage (WD-2, WD-7): returns the total, the labelled dice groups, the formula."""
    formula = damage_formula(terms, strength)
    result = roll_formula(formula, dice)
    labels = [] if strength is None else [_strength_label(strength)]
    labels.extend(_weapon_label(t["count"], t["faces"]) for t in terms if "count" in t)
    groups = [
        DiceGroup(label, g.dice, g.formula, g.total, g.target, g.successes, g.note, g.tags)
        for g, label in zip(result.groups, labels, strict=True)
    ]
    return int(result.total), groups, formula


# Texts are immutable values: those made from a few numbers are made once.
_TOUGHNESS = TOUGHNESS_WORD()


@lru_cache(maxsize=64)
def _strength_label(faces: int) -> Text:
    return STRENGTH_DICE(faces=faces)


@lru_cache(maxsize=256)
def _weapon_label(count: int, faces: int) -> Text:
    return WEAPON_DICE(count=count, faces=faces)


@lru_cache(maxsize=1024)
def shown_toughness(toughness: int, of: str) -> Private:
    """``Toughness 9``, the Toughness of ``of``: players read ``Toughness`` for an NPC."""
    return from_sheet(TOUGHNESS(toughness=toughness), of, instead=_TOUGHNESS)


def damage_effect(
    total: int,
    toughness: int,
    *,
    shaken: bool,
    per_raise: bool,
    of: str,
    shown: Private | None = None,
) -> dict[str, Any]:
    """WD-7: what a damage total does against Toughness.

    ``total ≥ T + 4`` → a wound (with ``per_raise``, one per full 4 above T);
    ``T ≤ total < T + 4`` → Shaken, or a wound if already Shaken;
    ``total < T`` → nothing. ``of`` is the target's id: the Toughness and the
    margin in ``why`` are its private values (``shown``: the Toughness as
    :func:`shown_toughness` gives it, if already made).
    """
    margin = total - toughness
    if shown is None:
        shown = shown_toughness(toughness, of)
    if margin < 0:
        return {
            "result": "none",
            "wounds": 0,
            "margin": margin,
            "why": WHY_BELOW(total=total, toughness=shown),
        }
    if margin < 4:
        if shaken:
            return {
                "result": "wound",
                "wounds": 1,
                "margin": margin,
                "why": WHY_MEETS_SHAKEN(total=total, toughness=shown),
            }
        return {
            "result": "shaken",
            "wounds": 0,
            "margin": margin,
            "why": WHY_MEETS(total=total, toughness=shown),
        }
    raise_count = margin // 4
    wounds = raise_count if per_raise else 1
    if per_raise:
        why = from_sheet(
            WHY_PER_RAISE(total=total, toughness=toughness, margin=margin, count=raise_count),
            of,
            instead=WHY_PER_RAISE_HIDDEN(total=total, count=raise_count),
        )
    else:
        why = from_sheet(
            WHY_BEATS(total=total, toughness=toughness, margin=margin),
            of,
            instead=WHY_BEATS_HIDDEN(total=total),
        )
    return {"result": "wound", "wounds": wounds, "margin": margin, "why": why}


def describe_terms(terms: list[Mapping[str, int]]) -> str:
    """The expression rewritten in normal form: ``2d6+1``."""
    out = ""
    for term in terms:
        if "constant" in term:
            out += f"{term['constant']:+d}"
        else:
            out += ("+" if out else "") + f"{term['count']}d{term['faces']}"
    return out
