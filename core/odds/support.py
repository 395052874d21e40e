"""How many totals a formula has at least, from its notation alone.

:func:`fewest_totals` walks the parse tree in microseconds and never computes a
law, so a caller can refuse an answer that could not fit where it must go (a
server's reply) before paying for the distribution. It is a lower bound: the
distribution has at least that many totals of positive probability.

* ``NdF`` alone: every total from N to N·F, so ``N·(F − 1) + 1``; with keep/drop
  modifiers only, the same for the dice kept (the others can always be placed
  around the kept ones);
* ``A + B``, ``A − B``: at least ``|A| + |B| − 1`` (the smallest of A plus every
  total of B, then every total of A plus the largest of B);
* ``A * c``, ``A / c`` for a constant ``c`` ≠ 0, ``-A``, ``(A)``: ``|A|``;
  ``abs(A)``: half of it; anything else (other modifiers, ``floor``, a product of
  two rolls): 1.

A formula that divides by anything but a constant other than 0 gets 1: its
computation may end in a division by zero (``NotationError``), and that must
stay its answer.
"""

from __future__ import annotations

from rollbridge.dice.notation import BinOp, Call, Dice, Formula, Group, Neg, Node, Num
from rollbridge.odds.order import kept_block

__all__ = ["fewest_totals"]

_KEEP = ("kh", "kl", "dh", "dl")


def fewest_totals(formula: Formula) -> int:
    """At least how many totals ``formula``'s distribution has (see the module
    docstring)."""
    if _may_divide_by_zero(formula.root):
        return 1
    return _fewest(formula.root)


def _may_divide_by_zero(node: Node) -> bool:
    if isinstance(node, BinOp):
        if node.op == "/" and not (isinstance(node.right, Num) and node.right.value != 0):
            return True
        return _may_divide_by_zero(node.left) or _may_divide_by_zero(node.right)
    if isinstance(node, Neg):
        return _may_divide_by_zero(node.operand)
    if isinstance(node, Group):
        return _may_divide_by_zero(node.inner)
    if isinstance(node, Call):
        return _may_divide_by_zero(node.arg)
    return False


def _dice(node: Dice) -> int:
    if node.compound is not None or any(m.kind not in _KEEP for m in node.modifiers):
        return 1
    low, high = kept_block(node.number, node.modifiers)
    kept = max(high - low, 0)
    return kept * (node.faces - 1) + 1


def _fewest(node: Node) -> int:
    if isinstance(node, Dice):
        return _dice(node)
    if isinstance(node, Neg):
        return _fewest(node.operand)
    if isinstance(node, Group):
        return _fewest(node.inner)
    if isinstance(node, Call):
        return (_fewest(node.arg) + 1) // 2 if node.name == "abs" else 1
    if isinstance(node, BinOp):
        if node.op in ("+", "-"):
            return _fewest(node.left) + _fewest(node.right) - 1
        if isinstance(node.right, Num) and node.right.value != 0:  # * c, / c: one to one
            return _fewest(node.left)
        if node.op == "*" and isinstance(node.left, Num) and node.left.value != 0:
            return _fewest(node.right)
    return 1  # a constant, or nothing cheap to say
