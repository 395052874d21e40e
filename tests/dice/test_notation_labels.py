"""A Foundry label (flavour text: ``1d8x[Fighting]``) is refused with the formula to type.

Savage Worlds systems write a wild die test as ``{1d8x[Fighting], 1d6x[Wild]}kh``,
and a player who copied ``1d8x[Fighting]`` into ``rollbridge roll`` was told only
``unexpected '['``. A label names a die and does not change the roll: the refusal
now gives the formula without its labels, or, for a pool, the pool's own refusal."""

from __future__ import annotations

import pytest

from rollbridge.cli import main
from rollbridge.dice import parse
from rollbridge.exceptions import NotationError

pytestmark = pytest.mark.usefixtures("english_without_stores")

NOT_SUPPORTED = "are not supported (a label names a die, it does not change the roll)"


def _refusal(written: str) -> NotationError:
    with pytest.raises(NotationError) as refused:
        parse(written)
    assert refused.value.code == "invalid_notation"
    return refused.value


@pytest.mark.parametrize(
    ("written", "label", "instead", "index"),
    [
        ("1d8x[Fighting]", "[Fighting]", "1d8x", 4),
        ("2d6[fire] + 1d4[cold]+3", "[fire]", "2d6 + 1d4 + 3", 3),
        ("d20[attack]kh", "[attack]", "1d20kh1", 3),
        ("1d6!![]", "[]", "1d6!!", 5),
    ],
)
def test_a_labelled_formula_names_the_formula_to_type(written, label, instead, index):
    refused = _refusal(written)
    assert refused.details == {"formula": written, "index": index}
    assert refused.message == (
        f"invalid dice formula {written!r}: labels such as {label!r} {NOT_SUPPORTED}; "
        f"the same roll is written {instead!r} (at character {index + 1})"
    )
    assert str(parse(instead)) == instead


def test_a_labelled_pool_gives_the_pools_own_refusal():
    """The wild die test as Savage Worlds systems write it, with a d6 trait die: the
    labels go, and the pool of one kind of die is the term to type."""
    refused = _refusal("{1d6x[Fighting], 1d6x[Wild]}kh-2")
    assert refused.message == (
        "invalid dice formula '{1d6x[Fighting], 1d6x[Wild]}kh-2': labels such as "
        f"'[Fighting]' {NOT_SUPPORTED}, and without them: dice pools such as "
        "'{1d6x, 1d6x}kh' are not supported; the same roll is written '2d6!!kh1 - 2' "
        "(at character 6)"
    )
    other = _refusal("{1d8x[Fighting], 1d6x[Wild]}kh").message
    assert "this one has no formula here" in other and "('1d8x', …)" in other


def test_labels_round_a_formula_that_is_wrong_without_them_are_to_leave_out():
    refused = _refusal("2d6[a]]")
    assert refused.message == (
        f"invalid dice formula '2d6[a]]': labels such as '[a]' {NOT_SUPPORTED}: "
        "leave them out (at character 4)"
    )
    assert "unexpected '['" in _refusal("2d6[fire").message  # no label: no bracket pair


def test_the_refusal_reads_in_every_language(capsys):
    for locale in ("cs", "de", "ru"):
        assert main(["roll", "1d8x[Fighting]", "--locale", locale]) == 1
        err = capsys.readouterr().err
        assert "'[Fighting]'" in err and "'1d8x'" in err
        assert "labels such as" not in err, (locale, err)


@pytest.mark.parametrize(
    ("written", "label", "problem", "index"),
    [
        ("1d1x[a]", "[a]", "x would explode every result of a d1 and never stop", 4),
        ("1000d6[dmg]", "[dmg]", "1000 dice in one term; at most 999 are allowed", 6),
        ("2d6[fire] @ 3", "[fire]", "unexpected '@'", 3),
    ],
)
def test_a_labelled_formula_wrong_without_its_labels_says_what_is_wrong(
    written, label, problem, index
):
    """A formula that is no formula without its labels either was told only to leave
    them out: the player who did was then refused again, for what the first refusal
    could have said (a d1 exploding for ever, 1000 dice). The parser's refusal of the
    text without its labels now follows the label's, as a pool's did."""
    refused = _refusal(written)
    assert refused.details == {"formula": written, "index": index}
    assert refused.message == (
        f"invalid dice formula {written!r}: labels such as {label!r} {NOT_SUPPORTED}, "
        f"and without them: {problem} (at character {index + 1})"
    )


def test_what_is_wrong_without_the_labels_reads_in_the_refusals_language(capsys):
    assert main(["roll", "1d1x[a]", "--locale", "de"]) == 1
    err = capsys.readouterr().err
    assert "Beschriftungen wie '[a]' werden nicht unterstützt" in err, err
    assert "und ohne sie: x würde jedes Ergebnis eines d1 explodieren lassen" in err, err
