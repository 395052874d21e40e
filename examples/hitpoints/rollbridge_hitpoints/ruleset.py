"""The ``hitpoints`` ruleset: d20 + bonus against armour class, damage dice, hit points."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction
from functools import lru_cache
from typing import Any

from rollbridge import ActionContext, ActionSpec, Actor, CommonState, Resolution, Ruleset, Track
from rollbridge.contract import Odds, PlayerView
from rollbridge.dice import DiceGroup, DiceSource, roll_die, roll_formula
from rollbridge.dice.notation import BinOp, Call, Group, Neg, Node, Num, parse
from rollbridge.exceptions import RuleViolation
from rollbridge.text import Private

from .messages import (
    AMOUNT,
    AMOUNT_HINT,
    ATTACK,
    ATTACK_DICE,
    ATTACK_STEP,
    ATTACK_SUMMARY,
    CRITICAL,
    DAMAGE_STEP,
    HEAL,
    HEAL_SUMMARY,
    HITS,
    HP_LOST,
    MISSES,
    MODIFIER,
    MODIFIER_HINT,
    NOT_HURT,
    ODDS_CRITICAL,
    ODDS_HIT,
    ODDS_MISS,
    REGAINS,
    SUMMARY,
    UNKNOWN_TRACK,
)

SHEET = {
    "type": "object",
    "properties": {
        "hp": {"type": "integer", "minimum": 1, "maximum": 999},
        "ac": {"type": "integer", "minimum": 0, "maximum": 40, "default": 10},
        "attack_bonus": {"type": "integer", "minimum": -10, "maximum": 30, "default": 0},
        "damage": {"type": "string", "maxLength": 40, "default": "1d4"},
    },
    "required": ["hp"],
}


def hits(d20: int, bonus: int, ac: int) -> bool:
    """Whether a d20 showing ``d20`` hits armour class ``ac`` with ``bonus``: a natural
    20 always hits, a natural 1 always misses. ``resolve`` rolls it, ``odds`` counts it."""
    return d20 == 20 or (d20 != 1 and d20 + bonus >= ac)


def critical_formula(formula: str) -> str:
    """The damage formula of a critical hit: its dice rolled twice, its modifiers
    added once (``1d8-1`` → ``1d8-1 + (1d8)``: two d8, one −1; ``2d6+1d4+3`` →
    ``2d6+1d4+3 + (2d6 + 1d4)``). A number that multiplies or divides the dice
    scales both rolls of them (``(1d6+1)*2`` → ``(1d6+1)*2 + ((1d6) * 2)``)."""
    dice = _dice_only(parse(formula).root)
    return formula if dice is None else f"{formula} + ({dice})"


def _dice_only(node: Node) -> Node | None:
    """``node`` without the numbers it adds or subtracts (None: no dice are left);
    a number, or a sum of numbers, that multiplies or divides dice is kept."""
    if isinstance(node, Num):
        return None
    if isinstance(node, BinOp) and node.op in "*/":
        left, right = _dice_only(node.left), _dice_only(node.right)
        if left is None and right is None:
            return None
        # a side without dice is a factor, kept whole: 1d8*(2+1), 1d6*-1
        return BinOp(node.op, node.left if left is None else left,
                     node.right if right is None else right)  # fmt: skip
    if isinstance(node, BinOp):
        left, right = _dice_only(node.left), _dice_only(node.right)
        if left is None or right is None:
            return left if right is None else right if node.op == "+" else Neg(right)
        return BinOp(node.op, left, right)
    if isinstance(node, Neg):
        inner = _dice_only(node.operand)
        return None if inner is None else Neg(inner)
    if isinstance(node, Group):
        inner = _dice_only(node.inner)
        return None if inner is None else Group(inner)
    if isinstance(node, Call):
        inner = _dice_only(node.arg)
        return None if inner is None else Call(node.name, inner)
    return node  # dice


# one schema object per hit-point total (validators compile once per schema), at most
# 1,024 of them: a total is a sheet's value, a GM's choice, so an unbounded cache could
# grow for as long as the server runs
@lru_cache(maxsize=1024)
def lost_schema(hp: int) -> dict[str, Any]:
    """A supplied state (``actor.create`` with ``state``): hit points lost so far, at
    most the sheet's ``hp``; a missing field takes the fresh value (rollbridge
    completes it)."""
    return {
        "type": "object",
        "properties": {"lost": {"type": "integer", "minimum": 0, "maximum": hp}},
    }


class HitPoints(Ruleset):
    """d20 attacks against armour class; damage comes off hit points.

    Every text it shows — its summary, narration, steps, refusals, the track's label
    and the actions' words for forms (``summary``, ``label``, the parameters' ``labels`` and
    ``hints``) — is a text of its domain, read in each client's language from the
    catalogues it ships (docs/plugins.md, "Languages")."""

    id = "hitpoints"
    name = "Hit points (example plugin)"
    version = "1.0.0"
    summary = SUMMARY()
    sheet_schema = SHEET
    state_schema = lost_schema(999)
    example_sheets = {
        "Fighter": {"hp": 12, "ac": 16, "attack_bonus": 5, "damage": "1d8+3"},
        "Goblin": {"hp": 7, "ac": 13, "attack_bonus": 4, "damage": "1d6+2"},
    }
    actions = {
        "attack": ActionSpec(
            "attack",
            ATTACK_SUMMARY(),
            params={
                "type": "object",
                "properties": {
                    "modifier": {"type": "integer", "minimum": -20, "maximum": 20, "default": 0}
                },
            },
            min_targets=1,
            max_targets=1,
            example={"modifier": 0},
            label=ATTACK(),
            labels={"modifier": MODIFIER()},
            hints={"modifier": MODIFIER_HINT()},
        ),
        "heal": ActionSpec(
            "heal",
            HEAL_SUMMARY(),
            params={
                "type": "object",
                "properties": {"amount": {"type": "integer", "minimum": 1, "maximum": 999}},
                "required": ["amount"],
            },
            actor="none",
            min_targets=1,
            max_targets=1,
            gm_only=True,
            example={"amount": 3},
            label=HEAL(),
            labels={"amount": AMOUNT()},
            hints={"amount": AMOUNT_HINT()},
        ),
    }

    def initial_state(self, sheet: Mapping[str, Any]) -> dict[str, Any]:
        return {"lost": 0}

    def state_schema_for(self, sheet: Mapping[str, Any]) -> Mapping[str, Any]:
        """No more hit points lost than the sheet has."""
        return lost_schema(sheet["hp"])

    def reveals(self, aspect: str, settings: Mapping[str, Any]) -> bool:
        """An NPC's armour class and hit points ("sheet") are the GM's; the dice
        and the damage rolled are in the open."""
        return False

    def resolve(self, context: ActionContext, dice: DiceSource) -> Resolution:
        target = context.targets[0]
        if context.action == "heal":
            return self._heal(target, context.params["amount"])
        attacker = context.actor
        assert attacker is not None  # the engine enforces actor="required"
        d20 = roll_die(dice, 20)
        bonus = attacker.sheet["attack_bonus"] + context.params["modifier"]
        total = d20.value + bonus
        # The target's armour class is its sheet's: hidden from players for an NPC.
        ac = Private(target.sheet["ac"], of=target.id, aspect="sheet")
        critical = d20.value == 20
        hit = hits(d20.value, bonus, ac.value)
        attack = DiceGroup(ATTACK_DICE(), (d20,), formula=f"1d20{bonus:+d}", total=total, target=ac)
        steps = [ATTACK_STEP(d20=d20.value, bonus=bonus, total=total, ac=ac)]
        if not hit:
            return Resolution(
                MISSES(attacker=attacker.name, target=target.name),
                {"hit": False, "total": total},
                dice=[attack],
                steps=steps,
            )
        formula = attacker.sheet["damage"]
        if critical:
            formula = critical_formula(formula)
            steps.append(CRITICAL())
        damage = roll_formula(formula, dice)
        amount = max(0, int(damage.total))
        lost = min(target.sheet["hp"], target.state["lost"] + amount)
        steps.append(DAMAGE_STEP(roll=damage.describe()))
        return Resolution(
            HITS(attacker=attacker.name, target=target.name, amount=amount),
            {
                "hit": True,
                "critical": critical,
                "total": total,
                "damage": amount,
                "lost": Private(lost, of=target.id, aspect="sheet"),
            },
            dice=[attack, *damage.groups],
            states={target.id: {**target.state, "lost": lost}},
            steps=steps,
        )

    def odds(self, context: ActionContext) -> Odds | None:
        """An attack's chance to hit, counted over the d20's faces with the rule
        ``resolve`` applies (:func:`hits`); healing rolls no dice: no odds. A player
        asking against an NPC states its sheet and its state, both hidden from them
        (``assume``: the AC is theirs to guess; stating the AC alone is refused,
        ``odds_hidden``, for the state, and the sheet's ``hp`` is required)."""
        if context.action != "attack" or context.actor is None:
            return None
        bonus = context.actor.sheet["attack_bonus"] + context.params["modifier"]
        ac = context.targets[0].sheet["ac"]
        hitting = sum(hits(face, bonus, ac) for face in range(2, 20))
        return Odds(
            {"critical hit": Fraction(1, 20), "hit": Fraction(hitting, 20),
             "miss": Fraction(19 - hitting, 20)},
            labels={"critical hit": ODDS_CRITICAL(), "hit": ODDS_HIT(), "miss": ODDS_MISS()},
        )  # fmt: skip

    def _heal(self, target: Actor, amount: int) -> Resolution:
        lost = target.state["lost"]
        if lost == 0:
            raise RuleViolation(NOT_HURT(target=target.name), code="not_hurt")
        now = max(0, lost - amount)
        return Resolution(
            REGAINS(target=target.name, count=lost - now),
            {"healed": lost - now, "lost": Private(now, of=target.id, aspect="sheet")},
            states={target.id: {**target.state, "lost": now}},
        )

    def common_state(self, actor: Actor) -> CommonState:
        hp, lost = actor.sheet["hp"], actor.state["lost"]
        status = "down" if lost >= hp else "impaired" if lost * 2 >= hp else "ok"
        return CommonState(status, (Track("hp", HP_LOST(), lost, hp),))

    def player_view(self, actor: Actor, settings: Mapping[str, Any]) -> PlayerView:
        """An NPC's hit points are the GM's (its results mark them ``Private``): the
        default view would show them as its track, so players get its status only."""
        return PlayerView(common=replace(self.common_state(actor), tracks=()))

    def adjust(self, actor: Actor, track: str, delta: int) -> dict[str, Any]:
        if track != "hp":
            raise RuleViolation(UNKNOWN_TRACK(track=track), code="unknown_track")
        lost = max(0, min(actor.sheet["hp"], actor.state["lost"] + delta))
        return {**actor.state, "lost": lost}
