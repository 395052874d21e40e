"""Parsing dice notation: normalised text, the tree, errors and limits."""

from __future__ import annotations

import pytest

from rollbridge.dice import Formula, parse
from rollbridge.dice.notation import (
    MAX_DEPTH,
    MAX_FORMULA_LENGTH,
    BinOp,
    Call,
    Dice,
    Group,
    Modifier,
    Neg,
    Num,
)
from rollbridge.exceptions import DiceLimitExceeded, InvalidRequest, NotationError
from tests.dice.counted import counting


@pytest.mark.parametrize(
    ("written", "normalised"),
    [
        ("d6", "1d6"),
        ("D20", "1d20"),
        ("d%", "1d100"),
        ("3d%", "3d100"),
        ("4d6k3", "4d6kh3"),
        ("4d6k", "4d6kh1"),
        ("4D6KH3", "4d6kh3"),
        ("2d20kl", "2d20kl1"),
        ("4d6d", "4d6dl1"),
        ("4d6d2", "4d6dl2"),
        ("4d6dh", "4d6dh1"),
        ("1d6x", "1d6x"),
        ("1d6x=6", "1d6x6"),
        ("1d6x==6", "1d6x6"),
        ("1d10x>=9", "1d10x>=9"),
        ("2d6xo", "2d6xo"),
        ("5d6r", "5d6r"),
        ("5d6r1=1", "5d6r1=1"),
        ("5d6rr<3", "5d6rr<3"),
        ("6d6cs", "6d6cs"),
        ("6d6cs6", "6d6cs6"),
        ("6d6cs>=5", "6d6cs>=5"),
        ("6d6cf<=2", "6d6cf<=2"),
        ("4d6min2max5", "4d6min2max5"),
        ("3d6!!", "3d6!!"),
        ("3d6!!>=6", "3d6!!"),
        ("3d6!!>5", "3d6!!"),
        ("3d6!!>=5", "3d6!!>=5"),
        ("3d6!!>4kh2", "3d6!!>=5kh2"),
        # counting modifiers apply last, and are written last
        ("10d10cs>=8x", "10d10xcs>=8"),
        ("1d20+5", "1d20 + 5"),
        ("  1d20 +   5 ", "1d20 + 5"),
        ("2*(1d6+ 1)", "2 * (1d6 + 1)"),
        ("-1d6", "-1d6"),
        ("+3", "3"),
        ("--3", "--3"),
        ("2 - -3", "2 - -3"),
        ("floor( 7/2 )", "floor(7 / 2)"),
        ("ROUND(1d6/2)", "round(1d6 / 2)"),
    ],
)
def test_normalised_text(written: str, normalised: str) -> None:
    formula = parse(written)
    assert str(formula) == normalised
    assert formula.text == normalised
    assert parse(normalised) == formula


def test_parse_returns_an_immutable_cached_formula() -> None:
    formula = parse("4d6kh3 + 5")
    assert isinstance(formula, Formula)
    assert parse("4d6kh3 + 5") is formula
    with pytest.raises(AttributeError):
        formula.root = Num(1)  # type: ignore[misc]
    assert hash(formula) == hash(parse("4d6k3+5"))


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        ("1+2*3", BinOp("+", Num(1), BinOp("*", Num(2), Num(3)))),
        ("1*2+3", BinOp("+", BinOp("*", Num(1), Num(2)), Num(3))),
        ("1-2-3", BinOp("-", BinOp("-", Num(1), Num(2)), Num(3))),
        ("8/4/2", BinOp("/", BinOp("/", Num(8), Num(4)), Num(2))),
        ("(1+2)*3", BinOp("*", Group(BinOp("+", Num(1), Num(2))), Num(3))),
        ("-2*3", BinOp("*", Neg(Num(2)), Num(3))),
        ("2*-3", BinOp("*", Num(2), Neg(Num(3)))),
        ("-(1d6)", Neg(Group(Dice(1, 6)))),
        ("floor(1d6/2)", Call("floor", BinOp("/", Dice(1, 6), Num(2)))),
        ("4d6kh3", Dice(4, 6, (Modifier("kh", 3),))),
        ("1d10x>=9", Dice(1, 10, (Modifier("x", None, ">=", 9),))),
        ("5d6r1=1", Dice(5, 6, (Modifier("r", 1, "=", 1),))),
        ("1d6x", Dice(1, 6, (Modifier("x"),))),
        ("3d6!!", Dice(3, 6, (), compound=6)),
        ("3d6!!>=5", Dice(3, 6, (), compound=5)),
        ("6d6cs>4", Dice(6, 6, (Modifier("cs", None, ">", 4),))),
        ("4d6min2", Dice(4, 6, (Modifier("min", None, "=", 2),))),
    ],
)
def test_tree(text: str, tree: object) -> None:
    assert parse(text).root == tree


def test_dice_terms_and_min_dice() -> None:
    formula = parse("2d6 + (1d4 * 3d8kh1) - floor(2d10/2)")
    assert [d.text for d in formula.dice_terms()] == ["2d6", "1d4", "3d8kh1", "2d10"]
    assert formula.min_dice == 8


# -- errors ---------------------------------------------------------------------------

NOTATION_ERRORS = [
    # (formula, words the message must contain, index of the problem)
    ("", "empty", 0),
    ("   ", "empty", 0),
    ("3d", "number of faces", 2),
    ("d", "number of faces", 1),
    ("3dF", "number of faces", 2),
    ("2d6+d", "number of faces", 5),
    ("1d0", "at least one face", 2),
    ("4d6q", "unknown dice modifier 'q'", 3),
    ("4d6kh3z", "unknown dice modifier 'z'", 6),
    ("2d6df", "'df'", 3),
    ("2d6ms>5", "not supported", 3),
    ("4d6 kh3", "without a space", 4),
    ("foo(3)", "unknown word 'foo'", 0),
    ("x", "unknown word 'x'", 0),
    ("1 + ", "ends where a number or dice", 4),
    ("4d6kh3 +", "ends where a number or dice", 8),
    ("*2", "expected a number or dice, not '*'", 0),
    ("2 3", "expected an operator before '3'", 2),
    ("1d6 1d6", "expected an operator before '1d6'", 4),
    ("((1)", "never closed", 4),
    ("1)", "unmatched ')'", 1),
    ("()", "expected a number or dice, not ')'", 1),
    ("floor 3", "expected '(' after 'floor'", 5),
    ("1 % 2", "unexpected '%'", 2),
    ("1d6x>=", "expected a number after x>=", 4),
    ("1d6cs>", "expected a number after cs>", 5),
    ("1d6min", "expected a number after 'min'", 6),
    ("3d6!", "unexpected '!'", 3),
    ("3d6x!!", "unexpected '!'", 4),
    ("4d6cs>=3cf", "only one of cs and cf", 8),
    ("3d6!!x", "cannot also explode", 5),
    # rolls that could never stop
    ("1d6x>=1", "never stop", 3),
    ("1d6x>0", "never stop", 3),
    ("1d1x", "never stop", 3),
    ("1d1x1", "never stop", 3),
    ("1d6x<=6", "never stop", 3),
    ("1d6x<7", "never stop", 3),
    ("1d6rr<7", "never stop", 3),
    ("1d6rr>=1", "never stop", 3),
    ("1d1rr", "never stop", 3),
    ("3d6!!>=1", "never stop", 3),
    ("3d1!!", "never stop", 3),
]


@pytest.mark.parametrize(("text", "words", "index"), NOTATION_ERRORS)
def test_notation_errors(text: str, words: str, index: int) -> None:
    with pytest.raises(NotationError) as caught:
        parse(text)
    error = caught.value
    assert error.code == "invalid_notation"
    assert isinstance(error, InvalidRequest)
    assert words in error.message
    assert error.details["index"] == index
    assert f"at character {index + 1}" in error.message
    assert repr(text) in error.message
    assert error.to_dict()["code"] == "invalid_notation"


@pytest.mark.parametrize(
    "text",
    ["1d6xo>=1", "1d6x2>=1", "1d6r>=1", "1d6r1<7", "1d1r", "1d6rr1<7", "1d6x>=2", "1d6rr<6"],
)
def test_rolls_that_stop_are_accepted(text: str) -> None:
    parse(text)


@pytest.mark.parametrize("value", [None, 3, 3.5, b"1d6", ["1d6"]])
def test_a_formula_must_be_text(value: object) -> None:
    with pytest.raises(NotationError, match="must be text"):
        parse(value)  # type: ignore[arg-type]


# -- limits ---------------------------------------------------------------------------

LIMIT_ERRORS = [
    ("1000d6", "1000 dice in one term; at most 999"),
    ("1d1000001", "at most 1,000,000"),
    ("1d99999999999", "at most 1,000,000"),
    ("10000000000", "larger than 1,000,000,000"),
    ("1d6kh10000000000", "larger than 1,000,000,000"),
    ("+".join(["999d6"] * 11), "at least 10989 dice; at most 10000"),
    ("(" * (MAX_DEPTH + 1) + "1" + ")" * (MAX_DEPTH + 1), "nest deeper than 32"),
    ("1+" * 128 + "1", "257 characters; at most 256"),
]


@pytest.mark.parametrize(("text", "words"), LIMIT_ERRORS)
def test_limits(text: str, words: str) -> None:
    with pytest.raises(DiceLimitExceeded) as caught, counting() as work:
        parse(text)
    assert work.calls < 3_000  # 26–622: refused as soon as a limit is passed
    assert caught.value.code == "dice_limit"
    assert words in caught.value.message


@pytest.mark.parametrize(
    "text",
    [
        "999d6",
        "1d1000000",
        "1000000000",
        "+".join(["999d6"] * 10),
        "(" * MAX_DEPTH + "1" + ")" * MAX_DEPTH,
        "1+" * 127 + "11",
    ],
)
def test_just_within_the_limits(text: str) -> None:
    assert len(text) <= MAX_FORMULA_LENGTH
    parse(text)


def test_a_die_s_size_is_its_value_not_its_zeros() -> None:
    """The faces as a number (dice.faces_limit agrees with it): zeros written before
    the digits are not in the number the refusal says (1d0000001000001 is a die of
    1000001 faces, not of 100000), and make no small die too large (1d00000000006)."""
    with pytest.raises(DiceLimitExceeded) as caught:
        parse("1d0000001000001")
    assert "a die of 1000001 faces; at most 1,000,000" in caught.value.message
    with pytest.raises(DiceLimitExceeded) as caught:
        parse("1d0009999999999999")
    assert "a die of 999999999999 faces" in caught.value.message  # its first 12 digits
    assert parse("1d00000000006").dice_terms()[0].faces == 6


def test_a_huge_formula_is_refused_before_any_work() -> None:
    text = "1d6+" * 1_000_000 + "1"
    with pytest.raises(DiceLimitExceeded, match="4000001 characters"), counting() as work:
        parse(text)
    assert work.calls < 100  # 26, as for a formula of 257 characters: nothing per term


def test_a_formula_built_by_hand_rolls() -> None:
    from rollbridge.dice import ScriptedDice, roll_formula

    formula = Formula(BinOp("+", Dice(2, 6, (Modifier("kh", 1),)), Num(3)))
    assert str(formula) == "2d6kh1 + 3"
    assert formula == parse("2d6k + 3")
    assert roll_formula(formula, ScriptedDice([2, 5])).total == 8
    assert roll_formula(formula, ScriptedDice([4, 1])).total == 7  # compiled once, rolled again
