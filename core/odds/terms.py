"""The exact law of one dice term, following :mod:`rollbridge.dice.evaluate`.

Three shapes, chosen from the modifiers:

* no modifier, no ``!!``: :func:`~rollbridge.odds.plain.plain_law`;
* keep/drop (``kh kl dh dl``), optionally after per-die ``r``/``rr``/``min``/``max``
  and before ``min``/``max`` (monotone, so they commute with keeping), then an
  optional ``cs``/``cf``: one law per die, then
  :func:`~rollbridge.odds.order.order_law`;
* anything else without keep/drop: every modifier but keep/drop acts on each die
  first rolled and on the dice it adds (its explosions and rerolls) and on no
  other, so the term is N independent *units*. A unit's state is the multiset of
  its active results; each modifier maps every die of it to a law of multisets;
  the last one maps straight to the unit's score (sum, or count for
  ``cs``/``cf``), and the term is the N-fold convolution of that score.

Explosions are cut at ``depth``: a line of explosions from one die adds at most
``depth`` dice, and a compounding die rolls again at most ``depth`` times; the
probability of going further stays in the law as missing mass (``truncated``).
A recursive reroll (``rr``) needs no cut: a die it leaves has the law of a fresh
die given that it does not meet the condition, exactly.

A limit on how many times something happens couples the dice (the roller spends
it in list order). For a counted reroll (``5d6r1=1``) that comes last (before a
``cs``/``cf``, after nothing but ``min``/``max``) the dice are still
exchangeable (an earlier reroll would put its new dice last in the list, where
the count reaches them last), and :func:`_counted_reroll` mixes over how many meet the condition;
any other counted explosion or reroll (``4d6x2=6``), and keep/drop after an
explosion, are refused with :class:`~rollbridge.exceptions.DiceLimitExceeded`
rather than approximated.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from math import comb
from typing import Any

from rollbridge.dice.notation import Dice, Modifier
from rollbridge.exceptions import DiceLimitExceeded
from rollbridge.odds.bounds import DEFAULT_BOUNDS, current
from rollbridge.odds.law import Law, convolve, from_fractions, power
from rollbridge.odds.order import kept_block, order_law
from rollbridge.odds.plain import plain_law
from rollbridge.text import Messages

__all__ = ["MAX_UNIT_STATES", "term_law"]

#: The most multisets one unit's law may hold between two modifiers, by default
#: (:mod:`rollbridge.odds.bounds`).
MAX_UNIT_STATES = DEFAULT_BOUNDS.unit_states

say = Messages("rollbridge")
# Translators: {term} is a dice term, quoted ('4d6x2=6'), {why} one of the odds.why.* texts.
UNSUPPORTED = say("odds.unsupported", "the exact distribution of {term} is not computed: {why}")
COUPLED_COUNT = say(
    "odds.why.count",
    "a limited number of explosions or rerolls ({modifier}) couples the dice",
)
AFTER_KEEP = say(
    "odds.why.after_keep",
    "{modifier} after keeping or dropping dice is not supported",
)
KEEP_AFTER_EXPLODE = say(
    "odds.why.keep_explode",
    "keeping or dropping dice after an explosion ({modifier}) is not supported",
)
# Translators: {limit} is a number of states.
TOO_MANY_STATES = say("odds.why.states", "a die and what it adds take more than {limit:,} states")

Fractions = dict[Any, Fraction]
_KEEP = ("kh", "kl", "dh", "dl")
_PER_DIE = ("r", "rr", "min", "max")


def _condition(comparison: str, target: int) -> Callable[[int], bool]:
    return {
        "=": lambda v: v == target,
        ">=": lambda v: v >= target,
        ">": lambda v: v > target,
        "<=": lambda v: v <= target,
        "<": lambda v: v < target,
    }[comparison]


def _test(modifier: Modifier, faces: int) -> Callable[[int], bool]:
    default = faces if modifier.kind in ("x", "xo", "cs") else 1
    return _condition(modifier.comparison, default if modifier.target is None else modifier.target)


def fresh_law(node: Dice, depth: int) -> Fractions:
    """The law of one drawn die: a plain face, or a compounding die's sum."""
    if node.faces > current().unit_states:
        raise _unsupported(node, TOO_MANY_STATES(limit=current().unit_states))
    face = Fraction(1, node.faces)
    threshold = node.compound
    if threshold is None:
        return dict.fromkeys(range(1, node.faces + 1), face)
    # first a die allowed no second roll (what would roll again is cut off); each
    # pass allows one more
    law: Fractions = {v: face for v in range(1, min(threshold, node.faces + 1))}
    for _ in range(depth):
        deeper: Fractions = {v: face for v in range(1, min(threshold, node.faces + 1))}
        for v in range(threshold, node.faces + 1):
            for total, p in law.items():
                deeper[v + total] = deeper.get(v + total, 0) + face * p
        law = deeper
        if len(law) > current().unit_states:
            raise _unsupported(node, TOO_MANY_STATES(limit=current().unit_states))
    return law


class _Monoid:
    """How a unit is kept: as a sorted tuple of results, or as its score."""

    def __init__(self, score: Callable[[int], int] | None) -> None:
        self.score = score

    def unit(self, value: int) -> Any:
        return (value,) if self.score is None else self.score(value)

    def join(self, a: Any, b: Any) -> Any:
        return tuple(sorted(a + b)) if self.score is None else a + b

    def product(self, a: Fractions, b: Fractions) -> Fractions:
        out: Fractions = {}
        for x, px in a.items():
            for y, py in b.items():
                key = self.join(x, y)
                out[key] = out.get(key, 0) + px * py
        return out

    def lift(self, law: Fractions) -> Fractions:
        out: Fractions = {}
        for v, p in law.items():
            key = self.unit(v)
            out[key] = out.get(key, 0) + p
        return out


def _per_die(
    modifier: Modifier, node: Dice, fresh: Fractions, depth: int, monoid: _Monoid
) -> Callable[[int], Fractions]:
    """What ``modifier`` makes of one active die showing a value."""
    kind = modifier.kind
    if kind in ("min", "max"):
        bound = modifier.target
        assert bound is not None
        pick = max if kind == "min" else min
        return lambda v: {monoid.unit(pick(v, bound)): Fraction(1)}
    test = _test(modifier, node.faces)
    if kind == "r":
        lifted = monoid.lift(fresh)
    elif kind == "rr":
        passing = {v: p for v, p in fresh.items() if not test(v)}
        stay = sum(passing.values(), Fraction(0)) + (1 - sum(fresh.values(), Fraction(0)))
        lifted = monoid.lift({v: p / stay for v, p in passing.items()})
    elif kind == "xo":
        lifted = monoid.lift(fresh)
    else:  # x: a line of explosions, at most depth dice
        line: Fractions = {}
        for _ in range(depth):
            deeper: Fractions = {}
            for v, p in fresh.items():
                if not test(v):
                    key = monoid.unit(v)
                    deeper[key] = deeper.get(key, 0) + p
                else:
                    for rest, q in line.items():
                        key = monoid.join(monoid.unit(v), rest)
                        deeper[key] = deeper.get(key, 0) + p * q
                    if len(deeper) > current().unit_states:
                        raise _unsupported(node, TOO_MANY_STATES(limit=current().unit_states))
            line = deeper
            if len(line) > current().unit_states:
                raise _unsupported(node, TOO_MANY_STATES(limit=current().unit_states))
        lifted = line
    cache: dict[int, Fractions] = {}

    def apply(v: int) -> Fractions:
        if not test(v):
            return {monoid.unit(v): Fraction(1)}
        law = cache.get(v)
        if law is None:
            if kind in ("r", "rr"):
                law = lifted
            else:
                law = {monoid.join(monoid.unit(v), k): p for k, p in lifted.items()}
            cache[v] = law
        return law

    return apply


def _unit_score(
    node: Dice,
    modifiers: tuple[Modifier, ...],
    score: Callable[[int], int] | None,
    depth: int,
) -> Fractions:
    """One unit's law: of its score, or (``score`` None) of its multiset."""
    fresh = fresh_law(node, depth)
    if not modifiers:
        return _Monoid(score).lift(fresh)
    states: Fractions = _Monoid(None).lift(fresh)
    for index, modifier in enumerate(modifiers):
        monoid = _Monoid(score if index == len(modifiers) - 1 else None)
        apply = _per_die(modifier, node, fresh, depth, monoid)
        following: Fractions = {}
        for state, p in states.items():
            law: Fractions = {() if monoid.score is None else 0: Fraction(1)}
            for value in state:
                law = monoid.product(law, apply(value))
                if len(law) > current().unit_states:
                    raise _unsupported(node, TOO_MANY_STATES(limit=current().unit_states))
            for key, q in law.items():
                following[key] = following.get(key, 0) + p * q
        if len(following) > current().unit_states:
            raise _unsupported(node, TOO_MANY_STATES(limit=current().unit_states))
        states = following
    return states


def _unsupported(node: Dice, why: Any) -> DiceLimitExceeded:
    return DiceLimitExceeded(
        UNSUPPORTED(term=repr(node.text), why=why), details={"term": node.text}
    )


def _score(node: Dice) -> tuple[tuple[Modifier, ...], Callable[[int], int]]:
    mods = node.modifiers
    if mods and mods[-1].kind in ("cs", "cf"):
        test = _test(mods[-1], node.faces)
        return mods[:-1], lambda v: 1 if test(v) else 0
    return mods, lambda v: v


def term_law(node: Dice, depth: int, text: str) -> Law:
    """The exact law of a dice term's total (see the module docstring)."""
    mods, score = _score(node)
    if (
        mods
        and mods[-1].kind == "r"
        and mods[-1].count is not None
        and all(m.kind in ("min", "max") for m in mods[:-1])
    ):
        return _counted_reroll(node, mods, score, depth, text)
    for modifier in mods:
        if modifier.kind in ("x", "xo", "r", "rr") and modifier.count is not None:
            raise _unsupported(node, COUPLED_COUNT(modifier=str(modifier)))
    if not mods and node.compound is None and len(node.modifiers) == len(mods):
        return plain_law(node.number, node.faces, text)
    keeps = [i for i, m in enumerate(mods) if m.kind in _KEEP]
    if (
        len(mods) == 1 == len(node.modifiers)
        and mods[0].kind == "x"
        and node.compound is None
        and node.faces <= current().unit_states
    ):
        return power(_exploding_law(node, _test(mods[0], node.faces), depth), node.number, text)
    if not keeps:
        unit = from_fractions(_unit_score(node, mods, score, depth))
        return power(unit, node.number, text)
    first = keeps[0]
    for modifier in mods[:first]:
        if modifier.kind not in _PER_DIE:
            raise _unsupported(node, KEEP_AFTER_EXPLODE(modifier=str(modifier)))
    for modifier in mods[first:]:
        if modifier.kind not in _KEEP and modifier.kind not in ("min", "max"):
            raise _unsupported(node, AFTER_KEEP(modifier=str(modifier)))
    per_die = mods[:first] + tuple(m for m in mods[first:] if m.kind in ("min", "max"))
    values = from_fractions(_unit_score(node, per_die, None, depth))
    single = Law({k[0]: w for k, w in values.weights.items()}, values.denominator)
    block = kept_block(node.number, tuple(m for m in mods if m.kind in _KEEP))
    return order_law(single, node.number, block, score, text)


def _exploding_law(node: Dice, test: Callable[[int], bool], depth: int) -> Law:
    """One exploding die's total (``x``, alone), in integers: the die and the line of
    at most ``depth`` dice it adds, as :func:`_per_die` builds them with fractions (a
    line whose last die would explode again is cut off), weights over
    ``faces ** (depth + 1)``."""
    faces = node.faces
    triggers = [v for v in range(1, faces + 1) if test(v)]
    stops = [v for v in range(1, faces + 1) if not test(v)]
    line: dict[int, int] = {}
    for passes in range(depth + 1):
        weight = faces**passes  # a stopping face, over faces ** (passes + 1)
        deeper = dict.fromkeys(stops, weight)
        for v in triggers:
            for total, w in line.items():
                deeper[v + total] = deeper.get(v + total, 0) + w
        line = deeper
        if len(line) > current().unit_states:
            raise _unsupported(node, TOO_MANY_STATES(limit=current().unit_states))
    return Law(line, faces ** (depth + 1))


def _counted_reroll(
    node: Dice,
    mods: tuple[Modifier, ...],
    score: Callable[[int], int],
    depth: int,
    text: str,
) -> Law:
    """``rN<cmp>T`` last (before a count, after ``min``/``max`` only): the first N
    dice meeting the condition,
    in list order, are rolled again. The dice are exchangeable, so with k of the n
    meeting it, ``min(k, N)`` of them are replaced by fresh dice whichever they are:
    the term is a mixture over k of (n - k passing dice) + (the other meeting
    ones) + (min(k, N) fresh dice)."""
    reroll = mods[-1]
    assert reroll.count is not None
    test = _test(reroll, node.faces)
    single = from_fractions(_unit_score(node, mods[:-1], None, depth))
    values = {k[0]: w for k, w in single.weights.items()}
    passing = _scored({v: w for v, w in values.items() if not test(v)}, score, single.denominator)
    meeting = _scored({v: w for v, w in values.items() if test(v)}, score, single.denominator)
    meeting_mass = sum(w for v, w in values.items() if test(v))
    fresh = from_fractions(_Monoid(score).lift(fresh_law(node, depth)))
    number = node.number
    most = min(reroll.count, number)
    out: dict[Any, int] = {}
    for k in range(number + 1):
        m = min(k, most)
        if (k and not meeting.weights) or (k < number and not passing.weights):
            continue
        law = convolve(power(passing, number - k, text), power(meeting, k - m, text), text)
        law = convolve(law, power(fresh, m, text), text)
        factor = comb(number, k) * meeting_mass**m * fresh.denominator ** (most - m)
        for value, weight in law.weights.items():
            out[value] = out.get(value, 0) + weight * factor
    return Law(out, single.denominator**number * fresh.denominator**most)


def _scored(weights: dict[int, int], score: Callable[[int], int], denominator: int) -> Law:
    out: dict[Any, int] = {}
    for value, weight in weights.items():
        key = score(value)
        out[key] = out.get(key, 0) + weight
    return Law(out, denominator)
