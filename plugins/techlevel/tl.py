"""TL-4: the tech-level table that turns a damage roll into boxes.

``w`` is the weapon's TL, ``l`` the TL of the layer hit. When the weapon's TL
is at least the layer's, the roll is multiplied by ``w - l + 1``; otherwise
it is divided by ``l - w + 1`` and rounded down::

               armour TL1  TL2  TL3  TL4  TL5
    weapon TL1     ×1      /2   /3   /4   /5
    weapon TL2     ×2      ×1   /2   /3   /4
    weapon TL3     ×3      ×2   ×1   /2   /3
    weapon TL4     ×4      ×3   ×2   ×1   /2
    weapon TL5     ×5      ×4   ×3   ×2   ×1
"""

from __future__ import annotations

from typing import Literal

__all__ = ["TL_MAX", "TL_MIN", "TlFactor", "apply_tl", "tl_factor"]

TL_MIN = 1
TL_MAX = 5

Op = Literal["×", "/"]


class TlFactor(tuple[Op, int]):
    """``("×", n)`` or ``("/", n)``; ``str()`` gives ``×2`` or ``/4``."""

    __slots__ = ()

    def __new__(cls, op: Op, n: int) -> TlFactor:
        return super().__new__(cls, (op, n))

    @property
    def op(self) -> Op:
        return self[0]

    @property
    def n(self) -> int:
        return self[1]

    def apply(self, roll: int) -> int:
        """The boxes ``roll`` becomes: ``roll × n`` or ``⌊roll / n⌋`` (never below 0)."""
        roll = max(0, roll)
        return roll * self.n if self.op == "×" else roll // self.n

    def __str__(self) -> str:
        return f"{self.op}{self.n}"


def _check(tl: int, what: str) -> None:
    if isinstance(tl, bool) or not isinstance(tl, int) or not TL_MIN <= tl <= TL_MAX:
        raise ValueError(f"{what} TL must be {TL_MIN} to {TL_MAX}, not {tl!r}")


def tl_factor(weapon_tl: int, layer_tl: int) -> TlFactor:
    """The table cell for a weapon of ``weapon_tl`` against a layer of ``layer_tl``."""
    _check(weapon_tl, "weapon")
    _check(layer_tl, "layer")
    if weapon_tl >= layer_tl:
        return TlFactor("×", weapon_tl - layer_tl + 1)
    return TlFactor("/", layer_tl - weapon_tl + 1)


def apply_tl(roll: int, weapon_tl: int, layer_tl: int) -> int:
    """Boxes crossed by a damage roll of ``roll`` (TL-4)."""
    return tl_factor(weapon_tl, layer_tl).apply(roll)
