"""Property tests: random formulas parse, round-trip, roll within bounds, and
record every die so that scripted dice replay them exactly."""

from __future__ import annotations

import math

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from rollbridge.dice import RollResult, ScriptedDice, SeededDice, parse, roll_formula
from rollbridge.dice.notation import MAX_FORMULA_LENGTH
from rollbridge.exceptions import DiceLimitExceeded, NotationError

# A formula strategy yields (text, lowest total, highest total); math.inf when unbounded.
Expr = tuple[str, float, float]


@st.composite
def dice_terms(draw: st.DrawFn, bounded: bool) -> Expr:
    number = draw(st.integers(0, 6))
    faces = draw(st.integers(1, 20))
    text = f"{number}d{faces}" if number != 1 or draw(st.booleans()) else f"d{faces}"
    active = number
    unbounded = False
    compounding = not bounded and faces >= 2 and draw(st.integers(0, 5)) == 0
    if compounding:
        text += draw(st.sampled_from(["!!", f"!!>={draw(st.integers(2, faces))}"]))
        unbounded = True
    for _ in range(draw(st.integers(0, 3))):
        choices = ["kh", "kl", "dh", "dl", "k", "d"]
        if not bounded:
            choices += ["min", "max", "r", "rr"] + ([] if compounding else ["x", "xo"]) * (
                faces >= 2
            )
        kind = draw(st.sampled_from(choices))
        if kind in ("kh", "kl", "k"):
            n = draw(st.integers(0, 7))
            text += f"{kind}{n}"
            active = min(active, n)
        elif kind in ("dh", "dl", "d"):
            n = draw(st.integers(0, 7))
            text += f"{kind}{n}"
            active = max(active - n, 0)
        elif kind in ("min", "max"):
            text += f"{kind}{draw(st.integers(1, faces))}"
        elif kind == "r":
            text += draw(st.sampled_from(["r1", f"r<{draw(st.integers(1, 30))}", "r1=1"]))
        elif kind == "rr":
            if faces >= 2:
                text += f"rr<{draw(st.integers(1, faces))}"
        elif kind == "xo":
            text += draw(st.sampled_from(["xo", f"xo>={draw(st.integers(1, faces))}"]))
            unbounded = True
        else:  # x
            text += draw(st.sampled_from(["x", f"x>={draw(st.integers(2, faces))}", "x2>=1"]))
            unbounded = True
    counting = draw(st.sampled_from([None, "cs", "cf"]))
    if counting == "cs":
        text += draw(st.sampled_from(["cs", f"cs>={draw(st.integers(1, faces))}"]))
    elif counting == "cf":
        text += draw(st.sampled_from(["cf", f"cf<={draw(st.integers(1, faces))}"]))
    if counting:
        return text, 0, math.inf if unbounded else active
    if unbounded:
        return text, 0, math.inf
    return text, active, active * faces


def numbers() -> st.SearchStrategy[Expr]:
    return st.integers(0, 50).map(lambda n: (str(n), n, n))


def _floor(value: float) -> float:
    return value if math.isinf(value) else math.floor(value)


def _atomic(text: str) -> str:
    """Parenthesise a sub-expression holding a binary operator, so the text
    means what the bounds assume."""
    return f"({text})" if " " in text else text


def _combine(op: str, a: Expr, b: Expr) -> Expr:
    text = f"{_atomic(a[0])} {op} {_atomic(b[0])}"
    if any(math.isinf(c) for c in (a[1], a[2], b[1], b[2])):
        return text, -math.inf, math.inf
    if op == "+":
        return text, a[1] + b[1], a[2] + b[2]
    if op == "-":
        return text, a[1] - b[2], a[2] - b[1]
    corners = [x * y for x in (a[1], a[2]) for y in (b[1], b[2])]
    return text, min(corners), max(corners)


def expressions(bounded: bool) -> st.SearchStrategy[Expr]:
    leaves = st.one_of(numbers(), dice_terms(bounded))

    def extend(children: st.SearchStrategy[Expr]) -> st.SearchStrategy[Expr]:
        return st.one_of(
            st.tuples(st.sampled_from("+-*"), children, children).map(
                lambda t: _combine(t[0], t[1], t[2])
            ),
            children.map(lambda e: (f"({e[0]})", e[1], e[2])),
            children.map(lambda e: (f"-{_atomic(e[0])}", -e[2], -e[1])),
            st.tuples(children, st.integers(1, 9)).map(
                lambda t: (f"{_atomic(t[0][0])} / {t[1]}", t[0][1] / t[1], t[0][2] / t[1])
            ),
            children.map(lambda e: (f"floor({e[0]})", _floor(e[1]), _floor(e[2]))),
        )

    return st.recursive(leaves, extend, max_leaves=8)


def every_roll(result: RollResult) -> list[int]:
    return [r for die in result.dice for r in die.rolls]


@settings(max_examples=300, deadline=None)
@given(expressions(bounded=True), st.integers(0, 2**32))
def test_totals_stay_within_bounds(expr: Expr, seed: int) -> None:
    text, low, high = expr
    assume(len(text) <= MAX_FORMULA_LENGTH)
    result = roll_formula(text, SeededDice(seed))
    assert low - 1e-9 <= result.total <= high + 1e-9, (text, result.describe())


@settings(max_examples=300, deadline=None)
@given(expressions(bounded=False), st.integers(0, 2**32))
def test_random_formulas_roll_record_and_replay(expr: Expr, seed: int) -> None:
    text = expr[0]
    assume(len(text) <= MAX_FORMULA_LENGTH)
    formula = parse(text)
    # the normalised text parses back to the same formula
    assert parse(str(formula)) == formula
    assert str(parse(str(formula))) == str(formula)

    source = SeededDice(seed)
    result = roll_formula(formula, source)
    assert isinstance(result.total, int | float)
    # every draw is recorded, in the order drawn
    rolls = every_roll(result)
    assert source.drawn == len(rolls)
    for term in result.dice_terms:
        assert len(term.dice) >= term.number
        assert all(1 <= r <= term.faces for d in term.dice for r in d.rolls)
        live = [d for d in term.dice if d.kept]
        if term.counting == "cs":
            assert term.total == sum("success" in d.tags for d in live)
        elif term.counting == "cf":
            assert term.total == sum("failure" in d.tags for d in live)
        else:
            assert term.total == sum(d.value for d in live)
    # scripted dice replay the roll exactly, and every supplied result is used
    replay_source = ScriptedDice(rolls)
    replay = roll_formula(text, replay_source)
    replay_source.finish()
    assert replay.total == result.total
    assert replay.describe() == result.describe()
    assert replay.to_dict() == result.to_dict()


ALPHABET = "0123456789dDkhlxrocsfmina<>=!+-*/() %"


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=40), st.integers(0, 2**32))
def test_any_text_parses_or_fails_with_a_typed_error(text: str, seed: int) -> None:
    try:
        formula = parse(text)
    except (NotationError, DiceLimitExceeded) as error:
        assert error.code in ("invalid_notation", "dice_limit")
        assert repr(text) in error.message or "characters" in error.message
        return
    assert parse(str(formula)) == formula
    try:
        roll_formula(formula, SeededDice(seed))
    except DiceLimitExceeded:
        pass  # explosions past the per-request limit
    except NotationError as error:
        assert "divides by zero" in error.message


# -- the fast evaluation paths agree with the general one ---------------------------------

fast_terms = st.builds(
    lambda number, faces, mods: f"{number}d{faces}{''.join(mods)}",
    st.integers(0, 8),
    st.integers(2, 12),
    st.one_of(
        st.lists(
            st.builds(
                lambda kind, n: f"{kind}{n}",
                st.sampled_from(["kh", "kl", "dh", "dl"]),
                st.integers(0, 9),
            ),
            min_size=1,
            max_size=3,
        ),
        st.sampled_from(["x", "xo", "x>=5", "xo<3", "x1", "xo=2"]).map(lambda m: [m]),
    ),
)


@settings(max_examples=300, deadline=None)
@given(fast_terms, st.integers(0, 2**32))
def test_fast_paths_match_the_general_path(term: str, seed: int) -> None:
    # "min1" changes nothing, but sends the term down the general path
    fast = roll_formula(term, SeededDice(seed))
    general = roll_formula(term + "min1", SeededDice(seed))
    assert fast.total == general.total
    assert fast.dice == general.dice
    # the same dice shown the same way, after the term's text
    assert fast.describe().split(" [", 1)[1] == general.describe().split(" [", 1)[1]


def foundry_keep_or_drop(values: list[int], number: int, keep: bool, highest: bool) -> list[bool]:
    """``DiceTerm._keepOrDrop`` of Foundry VTT, step by step (on all-active results)."""
    ascending = keep == highest
    ordered = sorted(values, reverse=not ascending)
    cut_index = min(max(len(values) - number if keep else number, 0), len(values))
    cut = ordered[cut_index] if cut_index < len(values) else None
    active = [True] * len(values)
    discarded = 0
    ties = []
    for index, value in enumerate(values):
        if cut is None:
            break
        if (value < cut) if ascending else (value > cut):
            active[index] = False
            discarded += 1
        elif value == cut:
            ties.append(index)
    for index in ties:
        if discarded < cut_index:
            active[index] = False
            discarded += 1
    if cut is None and cut_index:  # dropping all: Foundry keeps all here; we drop all
        active = [False] * len(values)
    return active


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(1, 6), min_size=1, max_size=8),
    st.sampled_from(["kh", "kl", "dh", "dl"]),
    st.integers(0, 9),
)
def test_keep_and_drop_follow_foundry(values: list[int], kind: str, number: int) -> None:
    keep, highest = kind[0] == "k", kind[1] == "h"
    expected = foundry_keep_or_drop(values, number, keep, highest)
    for suffix in ("", "min1"):  # the fast path and the general path
        result = roll_formula(f"{len(values)}d6{kind}{number}{suffix}", ScriptedDice(values))
        assert [d.kept for d in result.dice] == expected
