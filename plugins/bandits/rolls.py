"""The dice: BD-1 move rolls with BD-2 advantage, and BD-3 harm rolls."""

from __future__ import annotations

from dataclasses import dataclass

from rollbridge.dice import DiceSource, Die, keep, roll_pool

__all__ = [
    "EXTRA_RESULT",
    "MOD_MAX",
    "MOD_MIN",
    "MoveRoll",
    "band_of",
    "base_formula",
    "clamp_modifier",
    "dice_mode",
    "move_formula",
    "roll_2d6",
    "roll_move",
    "signed",
]

MOD_MIN, MOD_MAX = -4, 4
#: BD-1: a move total from which the extra result (12+) is flagged.
EXTRA_RESULT = 12


def clamp_modifier(raw: int) -> int:
    """BD-1: the sum of all modifiers is clamped to [−4, +4]."""
    return max(MOD_MIN, min(MOD_MAX, raw))


def dice_mode(advantage: bool, disadvantage: bool) -> str:
    """BD-2: any number of either counts as one; both cancel (``cancelled``: plain 2d6)."""
    if advantage and disadvantage:
        return "cancelled"
    if advantage:
        return "advantage"
    if disadvantage:
        return "disadvantage"
    return "normal"


def band_of(total: int) -> str:
    """BD-1: 10+ full, 7–9 partial, 6− miss."""
    if total >= 10:
        return "full"
    if total >= 7:
        return "partial"
    return "miss"


def signed(value: int, zero: str = "+0", *, ascii_minus: bool = False) -> str:
    """``+3``, ``−2`` (``-2`` with ``ascii_minus``, as dice formulas write it)."""
    if value == 0:
        return zero
    minus = "-" if ascii_minus else "−"
    return f"+{value}" if value > 0 else f"{minus}{-value}"


@dataclass(frozen=True, slots=True)
class MoveRoll:
    """The dice of a move roll: every die (a dropped one tagged), the kept sum, the total."""

    dice: tuple[Die, ...]
    mode: str
    dice_total: int
    modifier: int
    total: int

    @property
    def kept(self) -> list[int]:
        return [d.value for d in self.dice if d.kept]

    @property
    def dropped(self) -> int | None:
        gone = [d.value for d in self.dice if not d.kept]
        return gone[0] if gone else None

    @property
    def base_formula(self) -> str:
        """The dice alone: ``2d6``, ``3d6kh2`` (advantage), ``3d6kl2`` (disadvantage)."""
        return base_formula(self.mode)

    @property
    def formula(self) -> str:
        """The dice and the modifier: ``2d6+3``, ``3d6kl2-1``."""
        return move_formula(self.mode, self.modifier)


def base_formula(mode: str) -> str:
    """A move's dice in ``mode``: ``2d6``, ``3d6kh2`` (advantage), ``3d6kl2`` (disadvantage)."""
    return {"advantage": "3d6kh2", "disadvantage": "3d6kl2"}.get(mode, "2d6")


def move_formula(mode: str, modifier: int) -> str:
    """A move's dice and modifier as notation: ``2d6+3``, ``3d6kl2-1``."""
    return base_formula(mode) + signed(modifier, zero="", ascii_minus=True)


def roll_move(source: DiceSource, mode: str, modifier: int) -> MoveRoll:
    """2d6, or 3d6 keeping the highest (advantage) or lowest (disadvantage) two (BD-2)."""
    if mode in ("advantage", "disadvantage"):
        dice = keep(roll_pool(source, 3, 6), 2, highest=mode == "advantage")
    else:
        dice = roll_pool(source, 2, 6)
    dice_total = sum(d.value for d in dice if d.kept)
    return MoveRoll(dice, mode, dice_total, modifier, dice_total + modifier)


def roll_2d6(source: DiceSource) -> tuple[Die, ...]:
    """The two dice of a harm roll (BD-3)."""
    return roll_pool(source, 2, 6)
