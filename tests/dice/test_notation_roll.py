"""Rolling notation with scripted dice: every modifier against results worked out
by hand from Foundry VTT's ``Die`` semantics, arithmetic, the result record, and
errors that change nothing."""

from __future__ import annotations

import json

import pytest

from rollbridge.dice import (
    DiceGroup,
    DiceSource,
    Formula,
    RollResult,
    ScriptedDice,
    SecureDice,
    SeededDice,
    parse,
    roll_formula,
)
from rollbridge.dice.evaluate import (
    DiceTerm,
    FunctionTerm,
    NumberTerm,
    OperatorTerm,
    ParentheticalTerm,
    prepare,
)
from rollbridge.dice.notation import BinOp, Dice, Num
from rollbridge.exceptions import (
    DiceLimitExceeded,
    DiceScriptError,
    DiceScriptExhausted,
    DiceScriptUnused,
    NotationError,
)
from tests.dice.counted import counting


def roll(formula: str, *results: int) -> RollResult:
    """Roll with exactly these results; fail if any is left over."""
    source = ScriptedDice(results)
    result = roll_formula(formula, source)
    source.finish()
    return result


def values(result: RollResult) -> list[int]:
    return [d.value for d in result.dice]


def kept(result: RollResult) -> list[bool]:
    return [d.kept for d in result.dice]


def tags(result: RollResult) -> list[tuple[str, ...]]:
    return [d.tags for d in result.dice]


# -- plain dice and arithmetic --------------------------------------------------------


@pytest.mark.parametrize(
    ("formula", "results", "total"),
    [
        ("1d20+5", [12], 17),
        ("d20 - 5", [3], -2),
        ("3d6", [1, 2, 6], 9),
        ("d%", [77], 77),
        ("0d6 + 1", [], 1),
        ("2d6+1d4*2", [3, 4, 2], 11),
        ("(2d6+1d4)*2", [3, 4, 2], 18),
        ("2*3+4", [], 10),
        ("2+3*4", [], 14),
        ("10-2-3", [], 5),
        ("-2*3", [], -6),
        ("--3", [], 3),
        ("2 - -3", [], 5),
        ("-(1d6+1)", [4], -5),
        ("8/4/2", [], 1),
        ("6/3", [], 2),
        ("7/2", [], 3.5),
        ("1d6/2", [3], 1.5),
        ("7/2*2", [], 7),
        ("floor(7/2)", [], 3),
        ("ceil(7/2)", [], 4),
        ("round(5/2)", [], 3),
        ("round(-5/2)", [], -2),
        ("round(7/3)", [], 2),
        ("abs(2-5)", [], 3),
        ("floor(1d6/2) + ceil(1d6/2)", [5, 5], 5),
        ("((1d4))", [3], 3),
    ],
)
def test_arithmetic(formula: str, results: list[int], total: float) -> None:
    result = roll(formula, *results)
    assert result.total == total
    assert type(result.total) is type(total)


def test_total_is_int_when_integral() -> None:
    assert isinstance(roll("6/3").total, int)
    assert isinstance(roll("1d4/2", 4).total, int)
    assert isinstance(roll("1d4/2", 3).total, float)


# -- keep and drop --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("formula", "results", "total", "kept_flags"),
    [
        ("4d6kh3", [6, 5, 3, 1], 14, [True, True, True, False]),
        ("4d6k3", [6, 5, 3, 1], 14, [True, True, True, False]),
        ("4d6k", [2, 6, 3, 1], 6, [False, True, False, False]),
        # Foundry drops the earliest of tied dice
        ("4d6kh3", [2, 5, 2, 2], 9, [False, True, True, True]),
        ("2d20kh", [11, 11], 11, [False, True]),
        ("2d20kl", [15, 4], 4, [False, True]),
        ("2d20kl1", [7, 7], 7, [False, True]),
        ("4d6kl2", [5, 1, 6, 1], 2, [False, True, False, True]),
        ("4d6dl", [3, 1, 4, 1], 8, [True, False, True, True]),
        ("4d6d", [3, 1, 4, 1], 8, [True, False, True, True]),
        ("4d6d2", [3, 1, 4, 1], 7, [True, False, True, False]),
        ("4d6dh", [3, 6, 4, 6], 13, [True, False, True, True]),
        ("4d6dh2", [3, 6, 4, 5], 7, [True, False, True, False]),
        ("4d6kh5", [1, 2, 3, 4], 10, [True, True, True, True]),
        ("4d6dl4", [1, 2, 3, 4], 0, [False, False, False, False]),
        ("2d6kh0", [3, 4], 0, [False, False]),
        ("2d6dl0", [3, 4], 7, [True, True]),
        ("4d6kh3kl2", [6, 5, 3, 1], 8, [False, True, True, False]),
    ],
)
def test_keep_and_drop(
    formula: str, results: list[int], total: int, kept_flags: list[bool]
) -> None:
    result = roll(formula, *results)
    assert result.total == total
    assert kept(result) == kept_flags
    assert values(result) == results
    for die in result.dice:
        assert die.tags == (() if die.kept else ("dropped",))


# -- explosions -----------------------------------------------------------------------


def test_explode_adds_dice_at_the_end() -> None:
    result = roll("2d6x", 6, 3, 2)
    assert result.total == 11
    assert values(result) == [6, 3, 2]
    assert tags(result) == [("exploded",), (), ("explosion",)]


def test_explosions_chain_in_foundry_order() -> None:
    # the mechanics docstring's example: 2d6x rolling 6, 6, 2, 3 gives [6x, 6x, 2, 3]
    result = roll("2d6x", 6, 6, 2, 3)
    assert values(result) == [6, 6, 2, 3]
    assert tags(result) == [("exploded",), ("exploded",), ("explosion",), ("explosion",)]
    assert result.total == 17
    chain = roll("1d6x", 6, 6, 6, 1)
    assert chain.total == 19
    assert tags(chain) == [
        ("exploded",),
        ("explosion", "exploded"),
        ("explosion", "exploded"),
        ("explosion",),
    ]


def test_explode_once_checks_only_the_dice_first_rolled() -> None:
    result = roll("2d6xo", 6, 6, 6, 6)
    assert result.total == 24
    assert tags(result) == [("exploded",), ("exploded",), ("explosion",), ("explosion",)]


@pytest.mark.parametrize(
    ("formula", "results", "total"),
    [
        ("1d10x>=9", [9, 10, 3], 22),
        ("1d10x>8", [9, 10, 3], 22),
        ("1d10x9", [9, 10], 19),  # x9 is "= 9", as in Foundry
        ("1d10x=9", [9, 10], 19),
        ("1d6x<2", [1, 1, 4], 6),
        ("3d6x1=6", [6, 6, 2, 5], 19),  # at most one explosion
        ("2d6xo>=5", [5, 2, 5], 12),
        ("1d6x", [5], 5),
    ],
)
def test_explode_conditions(formula: str, results: list[int], total: int) -> None:
    assert roll(formula, *results).total == total


def test_explode_then_keep() -> None:
    # 3d6x: 6, 2, 4 then the explosion 5; kh2 keeps 6 and 5
    result = roll("3d6xkh2", 6, 2, 4, 5)
    assert result.total == 11
    assert kept(result) == [True, False, False, True]


# -- rerolls --------------------------------------------------------------------------


def test_reroll_once() -> None:
    # r: reroll each 1 among the dice first rolled, once; new dice go at the end
    result = roll("4d6r", 1, 3, 1, 5, 1, 6)
    assert values(result) == [1, 3, 1, 5, 1, 6]
    assert kept(result) == [False, True, False, True, True, True]
    assert tags(result) == [("rerolled",), (), ("rerolled",), (), ("reroll",), ("reroll",)]
    assert result.total == 15


def test_reroll_recursively() -> None:
    result = roll("4d6rr", 1, 3, 1, 5, 1, 6, 2)
    assert values(result) == [1, 3, 1, 5, 1, 6, 2]
    assert kept(result) == [False, True, False, True, False, True, True]
    assert tags(result)[4] == ("reroll", "rerolled")
    assert result.total == 16


@pytest.mark.parametrize(
    ("formula", "results", "total"),
    [
        ("4d6r1", [1, 3, 1, 5, 1, 6], 15),
        ("4d6r=1", [1, 3, 1, 5, 1, 6], 15),
        ("4d6r<3", [2, 1, 3, 6, 4, 5], 18),
        ("4d6r<=2", [2, 1, 3, 6, 4, 5], 18),
        ("5d6r1=1", [1, 1, 3, 4, 5, 6], 19),  # reroll a single 1
        ("2d6rr<3", [1, 2, 1, 4, 2, 3], 7),
        ("1d20r>19", [20, 20], 20),
    ],
)
def test_reroll_conditions(formula: str, results: list[int], total: int) -> None:
    assert roll(formula, *results).total == total


def test_modifiers_apply_in_the_order_written() -> None:
    # reroll, then keep: the 1 becomes a 6, then the 2 is dropped
    assert roll("4d6r1kh3", 1, 2, 3, 4, 6).total == 13
    # keep, then reroll: the 1 is already dropped, so nothing is rerolled
    assert roll("4d6kh3r1", 1, 2, 3, 4).total == 9


# -- counting -------------------------------------------------------------------------


def test_count_successes() -> None:
    result = roll("6d6cs>=5", 6, 5, 4, 1, 5, 2)
    assert result.total == 3
    (group,) = result.groups
    assert group.successes == 3
    assert group.target == 5
    assert group.total == 3
    assert tags(result) == [
        ("success",),
        ("success",),
        ("failure",),
        ("failure",),
        ("success",),
        ("failure",),
    ]


@pytest.mark.parametrize(
    ("formula", "results", "total"),
    [
        ("6d6cs", [6, 5, 6, 1, 2, 3], 2),  # default: the maximum
        ("6d6cs6", [6, 5, 6, 1, 2, 3], 2),
        ("6d6cs>4", [6, 5, 4, 1, 5, 2], 3),
        ("6d6cs<3", [6, 5, 4, 1, 5, 2], 2),
        ("6d6cs<=4", [6, 5, 4, 1, 5, 2], 3),
        ("6d6cf", [1, 2, 1, 6, 5, 4], 2),  # default: 1
        ("6d6cf<3", [1, 2, 3, 6, 5, 4], 2),
        ("6d6cs>=5 + 1", [6, 5, 4, 1, 5, 2], 4),
        ("4d6kh2cs>=4", [6, 1, 4, 5], 2),  # dropped dice do not count
    ],
)
def test_counting(formula: str, results: list[int], total: int) -> None:
    assert roll(formula, *results).total == total


def test_count_failures() -> None:
    result = roll("6d6cf", 1, 2, 1, 6, 5, 4)
    assert tags(result) == [("failure",), (), ("failure",), (), (), ()]
    (group,) = result.groups
    assert group.total == 2
    assert group.successes is None
    assert group.note == "failures"


def test_counting_applies_after_explosions_wherever_written() -> None:
    # 3d10: 10, 7, 8, then the explosion 9; successes ≥ 8: 10, 8, 9
    assert roll("3d10xcs>=8", 10, 7, 8, 9).total == 3
    written_first = roll("3d10cs>=8x", 10, 7, 8, 9)
    assert written_first.total == 3
    assert written_first.formula == "3d10xcs>=8"


# -- min / max ------------------------------------------------------------------------


def test_min_and_max_clamp_each_result() -> None:
    result = roll("4d6min3", 1, 2, 3, 6)
    assert values(result) == [3, 3, 3, 6]
    assert [d.rolls for d in result.dice] == [(1,), (2,), (3,), (6,)]
    assert tags(result) == [("min",), ("min",), (), ()]
    assert result.total == 15
    assert roll("4d6max4", 1, 5, 6, 4).total == 13
    assert roll("2d6min2max5", 1, 6).total == 7


# -- compounding ----------------------------------------------------------------------


def test_compounding_one_die_totals_6_6_3() -> None:
    result = roll("3d6!!", 6, 6, 3, 2, 5)
    assert result.total == 22
    first, second, third = result.dice
    assert (first.rolls, first.value, first.tags) == ((6, 6, 3), 15, ("compounded",))
    assert (second.rolls, second.value, second.tags) == ((2,), 2, ())
    assert third.value == 5
    assert len(result.dice) == 3


@pytest.mark.parametrize(
    ("formula", "results", "total"),
    [
        ("2d6!!>=5", [5, 6, 1, 4], 16),
        ("2d6!!>5", [6, 5, 4], 15),
        ("1d6!!kh1", [6, 2], 8),
        ("3d6!!kh2", [6, 1, 1, 4], 11),
        ("2d6!!cs>=8", [6, 3, 5], 1),
        ("1d6!!max10", [6, 6, 3], 10),
    ],
)
def test_compounding_forms(formula: str, results: list[int], total: int) -> None:
    assert roll(formula, *results).total == total


def test_compounding_reroll_rolls_a_compounding_die() -> None:
    result = roll("1d6!!r1", 1, 6, 2)
    assert result.total == 8
    old, new = result.dice
    assert (old.kept, old.tags) == (False, ("rerolled",))
    assert (new.rolls, new.value, new.tags) == ((6, 2), 8, ("compounded", "reroll"))


# -- the record -----------------------------------------------------------------------


def test_groups_one_per_dice_term() -> None:
    result = roll("4d6kh3 + 1d8 + 2", 6, 5, 3, 1, 7)
    assert [g.label for g in result.groups] == ["4d6kh3", "1d8"]
    first, second = result.groups
    assert isinstance(first, DiceGroup)
    assert first.formula == "4d6kh3"
    assert first.total == 14
    assert len(first.dice) == 4
    assert first.dice[3].kept is False
    assert second.total == 7
    assert result.total == 23


def test_terms_mirror_the_formula() -> None:
    result = roll("2 * (1d6 + 3) - floor(1d4 / 2)", 4, 3)
    two, times, paren, minus, floor = result.terms
    assert two == NumberTerm(2)
    assert times == OperatorTerm("*")
    assert minus == OperatorTerm("-")
    assert isinstance(paren, ParentheticalTerm)
    assert paren.total == 7
    dice, plus, three = paren.terms
    assert isinstance(dice, DiceTerm)
    assert (dice.number, dice.faces, dice.modifiers, dice.total) == (1, 6, (), 4)
    assert plus == OperatorTerm("+")
    assert three == NumberTerm(3)
    assert isinstance(floor, FunctionTerm)
    assert (floor.name, floor.total) == ("floor", 1)
    assert result.total == 13
    assert [t.formula for t in result.dice_terms] == ["1d6", "1d4"]


def test_unary_minus_is_a_leading_operator() -> None:
    result = roll("-1d6", 4)
    assert result.terms[0] == OperatorTerm("-", unary=True)
    assert result.total == -4


def test_dice_term_fields() -> None:
    # compounding on 5+: 5+1 = 6, 2, 6+1 = 7; keep 6 and 7; both are 4 or more
    term = roll("3d6!!>=5kh2cs>=4", 5, 1, 2, 6, 1)
    (dice,) = term.dice_terms
    assert dice.formula == "3d6!!>=5kh2cs>=4"
    assert (dice.number, dice.faces, dice.compound) == (3, 6, 5)
    assert dice.modifiers == ("kh2", "cs>=4")
    assert dice.counting == "cs"
    assert dice.successes == 2
    assert [d.value for d in dice.dice] == [6, 2, 7]
    assert repr(dice) == "DiceTerm('3d6!!>=5kh2cs>=4', total=2)"


def test_to_dict_is_plain_json() -> None:
    result = roll("4d6kh3 + (1d6x) * 2", 6, 5, 3, 1, 6, 2)
    data = result.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["formula"] == "4d6kh3 + (1d6x) * 2"
    assert data["total"] == 14 + 16
    assert data["terms"][0] == {
        "type": "dice",
        "formula": "4d6kh3",
        "number": 4,
        "faces": 6,
        "modifiers": ["kh3"],
        "total": 14,
        "group": 0,
    }
    assert data["terms"][2]["type"] == "parenthetical"
    assert data["terms"][2]["terms"][0]["group"] == 1
    assert [DiceGroup.from_dict(g) for g in data["groups"]] == result.groups
    assert data["groups"][0]["dice"][3] == {
        "faces": 6,
        "rolls": [1],
        "value": 1,
        "kept": False,
        "tags": ["dropped"],
    }
    standalone = result.dice_terms[1].to_dict()
    assert standalone["dice"][0] == {"faces": 6, "rolls": [6], "value": 6, "tags": ["exploded"]}


@pytest.mark.parametrize(
    ("formula", "results", "line"),
    [
        ("4d6kh3+5", [6, 5, 3, 1], "4d6kh3 [6, 5, 3, (1)] + 5 = 19"),
        ("2d6x", [6, 3, 2], "2d6x [6!, 3, 2] = 11"),
        ("3d6!!", [6, 6, 3, 2, 5], "3d6!! [6+6+3, 2, 5] = 22"),
        ("6d6cs>=5", [6, 5, 4, 1, 5, 2], "6d6cs>=5 [6*, 5*, 4, 1, 5*, 2] = 3"),
        ("3d6cf", [1, 2, 1], "3d6cf [1*, 2, 1*] = 2"),
        ("4d6min3", [1, 2, 3, 6], "4d6min3 [1->3, 2->3, 3, 6] = 15"),
        ("2d6r1", [1, 4, 3], "2d6r1 [(1), 4, 3] = 7"),
        ("-1d6", [4], "-1d6 [4] = -4"),
        ("7/2", [], "7 / 2 = 3.5"),
        ("10/3", [], "10 / 3 = 3.33333"),
        ("floor((1d6+1)/2)", [4], "floor((1d6 [4] + 1) / 2) = 2"),
        ("0d6", [], "0d6 [] = 0"),
    ],
)
def test_describe(formula: str, results: list[int], line: str) -> None:
    result = roll(formula, *results)
    assert result.describe() == line
    assert str(result) == line


def test_a_parsed_formula_rolls_as_its_text() -> None:
    formula = parse("4d6kh3 + 2")
    assert isinstance(formula, Formula)
    a = roll_formula(formula, SeededDice(42))
    b = roll_formula(formula, SeededDice(42))
    c = roll_formula("4d6kh3+2", SeededDice(42))
    assert a.total == b.total == c.total
    assert a.groups == b.groups == c.groups
    assert repr(a) == f"RollResult('4d6kh3 + 2', total={a.total})"


def test_seeded_rolls_replay_and_secure_rolls_stay_in_range() -> None:
    first = [roll_formula("10d6x", SeededDice("table-1")).total for _ in range(3)]
    assert len(set(first)) == 1
    for _ in range(50):
        total = roll_formula("4d6kh3", SecureDice()).total
        assert 3 <= total <= 18


# -- scripted dice that do not fit, and limits: nothing changes --------------------------


def test_a_scripted_die_the_die_cannot_show() -> None:
    source = ScriptedDice([3, 7])
    with pytest.raises(DiceScriptError) as caught:
        roll_formula("2d6", source)
    assert caught.value.code == "dice_mismatch"
    assert "7" in caught.value.message and "d6" in caught.value.message
    assert (source.position, source.drawn) == (0, 0)


def test_too_few_scripted_dice() -> None:
    source = ScriptedDice([6, 6])
    with pytest.raises(DiceScriptExhausted) as caught:
        roll_formula("2d6x", source)
    assert caught.value.code == "dice_exhausted"
    assert "2 supplied" in caught.value.message
    assert (source.position, source.drawn) == (0, 0)
    # the source is as it was: a fitting roll still works
    assert roll_formula("2d6", source).total == 12


def test_unused_scripted_dice() -> None:
    source = ScriptedDice([3, 4, 5])
    roll_formula("2d6", source)
    with pytest.raises(DiceScriptUnused) as caught:
        source.finish()
    assert caught.value.code == "dice_unused"
    assert "1 of the 3" in caught.value.message


def test_division_by_zero_rewinds_scripted_dice() -> None:
    source = ScriptedDice([1])
    with pytest.raises(NotationError) as caught:
        roll_formula("1/(1d2-1)", source)
    assert caught.value.code == "invalid_notation"
    assert "divides by zero" in caught.value.message
    assert (source.position, source.drawn) == (0, 0)


@pytest.mark.parametrize(
    "formula", ["2d6/0", "2d6 / -0", "1d6/(2-2)", "3/(1/3*3-1)", "1d6/floor(1/2)", "1d6/abs(0)"]
)
def test_a_divisor_without_dice_that_is_zero_is_refused_when_compiled(formula: str) -> None:
    """It could never be rolled: refused with the roll's message before any die, by
    ``prepare`` (which a roll, an approval's check and techlevel's dice call first);
    ``parse`` alone checks the notation."""
    parse(formula)
    with pytest.raises(NotationError) as caught:
        prepare(formula)
    assert caught.value.code == "invalid_notation"
    text = str(caught.value.details["formula"])
    assert caught.value.message == f"{text!r} divides by zero"
    source = ScriptedDice([1, 1, 1])
    with pytest.raises(NotationError):
        roll_formula(formula, source)
    assert (source.position, source.drawn) == (0, 0)


def test_a_formula_built_without_parsing_is_checked_before_any_die() -> None:
    source = ScriptedDice([4])
    with pytest.raises(NotationError, match="divides by zero"):
        roll_formula(Formula(BinOp("/", Dice(1, 6), Num(0)), 1), source)
    assert (source.position, source.drawn) == (0, 0)


@pytest.mark.parametrize("formula", ["1/(1d2-1)", "1d6/(0*1d6)", "2d6/2", "1d6/(3-2)"])
def test_a_divisor_with_dice_or_not_zero_parses(formula: str) -> None:
    """A divisor with dice may roll 0 (``0*1d6`` always does): that fails when rolled."""
    prepare(formula)


class MaxDice(DiceSource):
    """Always the highest face: every explosion explodes again."""

    def _draw(self, faces: int) -> int:
        return faces


def test_an_endless_explosion_stops_at_the_result_limit() -> None:
    source = MaxDice()
    with pytest.raises(DiceLimitExceeded) as caught, counting() as work:
        roll_formula("1d6x", source)
    assert source.drawn <= 10_000
    assert work.calls < 90_000  # ~30,000: a few calls a die, nothing per die drawn before
    assert caught.value.code == "dice_limit"
    assert "10000" in caught.value.message


def test_a_likely_endless_explosion_fails_fast() -> None:
    source = SeededDice(1)
    with pytest.raises(DiceLimitExceeded), counting() as work:
        roll_formula("999d100x>=2", source)
    assert source.drawn <= 10_000
    assert work.calls < 120_000  # ~40,000


def test_long_explosion_chains_are_answered_fast() -> None:
    # 999d6x>=2 rolls about 6,000 dice (each die explodes 5 times in 6): within the limit
    source = SeededDice(3)
    with counting() as work:
        result = roll_formula("999d6x>=2", source)
    assert 4_000 < source.drawn < 10_000
    assert len(result.dice) == source.drawn
    assert work.calls < 6 * 2 * source.drawn  # ~4 calls a die: linear in the dice
    # twice that passes the 10,000 results of a request: refused, still linear
    twice = SeededDice(3)
    with pytest.raises(DiceLimitExceeded), counting() as work:
        roll_formula("999d6x>=2 + 999d6x>=2", twice)
    assert twice.drawn <= 10_000
    assert work.calls < 120_000  # ~38,000


def test_a_formula_larger_than_the_remaining_budget_draws_nothing() -> None:
    first_draw = SeededDice(1)._random()  # the generator's first value
    source = SeededDice(1)
    source.drawn = 9_000  # this request already rolled 9,000 dice
    with pytest.raises(DiceLimitExceeded) as caught, counting() as work:
        roll_formula("999d1000 + 999d1000", source)
    assert work.calls < 2_000  # refused before a die: no call per die
    assert "1998" in caught.value.message
    assert source.drawn == 9_000
    assert source._random() == first_draw  # nothing was drawn


def test_a_small_source_limit() -> None:
    with pytest.raises(DiceLimitExceeded):
        roll_formula("6d6", SeededDice(1, limit=5))
    assert roll_formula("5d6", SeededDice(1, limit=5)).total >= 5
