"""Keep and drop (``kh`` ``kl`` ``dh`` ``dl``): the law of a sum of order statistics.

N independent dice share one law. Sorting them, a run of keep/drop modifiers keeps
one block of positions, which :func:`kept_block` works out with the roller's own
counting rule. :func:`order_law` then goes through the faces in order (from the
side where fewer dice are dropped before the block), choosing how many of the
remaining dice show each face, with the multinomial weight of that choice; the
state is (dice placed, score of the kept ones so far). Once the block is filled,
the remaining dice may be anything beyond the current face, a single power, so
the state space is (block size) × (block score), not the Fᴺ outcomes. Ties do
not matter to the total, so Foundry's tie rule needs no modelling here.
"""

from __future__ import annotations

from collections.abc import Callable
from math import comb

from rollbridge.dice.notation import Modifier
from rollbridge.odds.bounds import DEFAULT_BOUNDS, current
from rollbridge.odds.law import Law, too_many_kept

__all__ = ["MAX_ORDER_STEPS", "kept_block", "order_law"]

#: The most steps the order-statistics walk may take for one term, by default
#: (:mod:`rollbridge.odds.bounds`).
MAX_ORDER_STEPS = DEFAULT_BOUNDS.order_steps


def _discards(number: int, keep: bool, count: int) -> int:
    discard = count - number if keep else number
    return 0 if discard < 0 else count if discard > count else discard


def kept_block(number: int, modifiers: tuple[Modifier, ...]) -> tuple[int, int]:
    """The positions ``[low, high)``, in ascending order of value, that the keep
    and drop ``modifiers`` leave of ``number`` dice."""
    low, high = 0, number
    for modifier in modifiers:
        kind, active = modifier.kind, high - low
        discard = _discards(modifier.count or 0, kind[0] == "k", active)
        if kind in ("kh", "dl"):
            low += discard
        else:
            high -= discard
    return low, high


def order_law(
    law: Law, number: int, block: tuple[int, int], score: Callable[[int], int], text: str
) -> Law:
    """The law of the summed ``score`` of the dice in ``block`` (ascending
    positions) among ``number`` independent dice of ``law`` (integer outcomes)."""
    low, high = block
    denominator = law.denominator**number
    faces = sorted(law.weights)  # type: ignore[type-var]
    if high <= low:
        return Law({0: law.mass**number}, denominator)
    # walk from the side with fewer dropped dice before the block
    if number - high < low:
        faces.reverse()
        start, stop = number - high, number - low
    else:
        start, stop = low, high
    scores = [score(v) for v in faces]
    spread = max(scores) - min(scores) + 1
    estimate = len(faces) * (start + (stop - start) * (stop - start) * spread) * (stop - start + 1)
    limit = current().order_steps
    if estimate > limit:
        raise too_many_kept(text, limit)
    weights = [law.weights[v] for v in faces]
    rest = [0] * len(faces)  # weight of the faces after each one
    for i in range(len(faces) - 2, -1, -1):
        rest[i] = rest[i + 1] + weights[i + 1]
    out: dict[int, int] = {}
    states: dict[tuple[int, int], int] = {(0, 0): 1}
    for i, (w, g) in enumerate(zip(weights, scores, strict=True)):
        after = rest[i]
        following: dict[tuple[int, int], int] = {}
        for (placed, total), ways in states.items():
            left = number - placed
            need = stop - placed  # dice still to place to fill the block
            partial = 0
            for m in range(min(left, need - 1) + 1):  # the block is not yet full
                term = comb(left, m) * w**m * after ** (left - m)
                partial += term
                if after or m == left:
                    kept = max(0, min(placed + m, stop) - max(placed, start))
                    key = (placed + m, total + kept * g)
                    following[key] = following.get(key, 0) + ways * comb(left, m) * w**m
            # the block fills here: the other dice show later faces, any of them
            fill = (w + after) ** left - partial
            if fill:
                kept = stop - max(placed, start)
                key_total = total + kept * g
                out[key_total] = out.get(key_total, 0) + ways * fill
        states = {k: v for k, v in following.items() if k[0] < number}
    return Law(out, denominator)
