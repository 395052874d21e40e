"""The walk over the parse tree: arithmetic on exact laws, as the roller does it.

Each node's law comes from its children's: dice terms from
:func:`~rollbridge.odds.terms.term_law`, constants are certain, ``+ - * /`` combine
independent laws (sub-trees roll different dice), ``/`` is exact rational
division where the roller divides floats (the two agree but for a float's last
bit), ``floor``/``ceil``/``round``/``abs`` map outcomes, ``round`` rounding halves
up as JavaScript's ``Math.round`` does. A division by zero of positive
probability raises the roller's :class:`~rollbridge.exceptions.NotationError`;
an outcome beyond the 64-bit range, its :class:`DiceLimitExceeded`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

from rollbridge.dice.evaluate import BEYOND_64_BITS, ZERO_DIVISION
from rollbridge.dice.notation import BinOp, Call, Dice, Group, Neg, Node, Num
from rollbridge.exceptions import DiceLimitExceeded, NotationError
from rollbridge.odds.law import Law, Value, as_key, combine, convolve, point
from rollbridge.odds.terms import term_law

__all__ = ["checked", "node_law"]

_LIMIT = 2**63


def _js_round(value: Value) -> int:
    return math.floor(value + Fraction(1, 2))


_FUNCTIONS: dict[str, Callable[[Value], Value]] = {
    "floor": math.floor,
    "ceil": math.ceil,
    "round": _js_round,
    "abs": abs,
}


def checked(law: Law, text: str) -> Law:
    """``law``, unless an outcome is beyond the 64-bit range a table can store."""
    for value in law.weights:
        if not -_LIMIT <= value < _LIMIT:
            raise DiceLimitExceeded(BEYOND_64_BITS(formula=repr(text)), details={"formula": text})
    return law


def _negate(law: Law) -> Law:
    return Law({-v: w for v, w in law.weights.items()}, law.denominator)


def node_law(node: Node, depth: int, text: str) -> Law:
    """The exact law of ``node``'s value; ``text`` names the formula in errors."""
    if isinstance(node, Num):
        return point(node.value)
    if isinstance(node, Dice):
        return term_law(node, depth, text)
    if isinstance(node, Neg):
        return _negate(node_law(node.operand, depth, text))
    if isinstance(node, Group):
        return checked(node_law(node.inner, depth, text), text)
    if isinstance(node, Call):
        function = _FUNCTIONS[node.name]
        inner = node_law(node.arg, depth, text)
        return checked(inner.map(lambda v: as_key(function(v))), text)
    assert isinstance(node, BinOp)
    left = node_law(node.left, depth, text)
    right = node_law(node.right, depth, text)
    if node.op == "+":
        return convolve(left, right, text)
    if node.op == "-":
        return convolve(left, _negate(right), text)
    if node.op == "*":
        return combine(left, right, lambda x, y: x * y, text)
    if right.weights.get(0):
        raise NotationError(ZERO_DIVISION(formula=repr(text)), details={"formula": text})
    return combine(left, right, lambda x, y: as_key(Fraction(x) / y), text)
