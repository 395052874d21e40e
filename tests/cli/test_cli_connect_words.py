"""``rollbridge connect``'s ``do`` and ``odds`` words a player can mistype: each is
refused in the terminal's own words, naming the command typed, and nothing is sent.
Before (review of 6 December, night): ``supply=1,x`` printed Python's ``invalid
literal for int() with base 10: 'x'``, ``secret=yes`` quietly meant false (the roll
went out open), and ``odds attack x`` was refused as ``do: 'x' is not key=value``."""

from __future__ import annotations

import pytest

from rollbridge.cli.terminal import parse_command
from rollbridge.exceptions import InvalidRequest


@pytest.mark.parametrize("typed", ["1,x", "6,,2.5", "", "1" * 21, "½"])
def test_supplied_dice_that_are_no_whole_numbers_are_refused_by_name(typed):
    with pytest.raises(InvalidRequest) as refused:
        parse_command(f"do attack actor=ana supply={typed}", "r1")
    assert refused.value.message == (
        f"supply: {typed!r} is not whole numbers split by commas, e.g. supply=6,2,5"
    )


def test_supplied_dice_that_are_numbers_are_sent():
    message = parse_command("do attack actor=ana supply=6,2,5", "r1")
    assert message["dice"] == [6, 2, 5]


@pytest.mark.parametrize("typed", ["yes", "1", "no", "True", "maybe"])
def test_secret_takes_true_or_false_only(typed):
    with pytest.raises(InvalidRequest) as refused:
        parse_command(f"do attack actor=ana secret={typed}", "r1")
    assert refused.value.message == f"secret: give true or false, not {typed!r}"


@pytest.mark.parametrize("typed", [True, False])
def test_secret_true_or_false_is_sent_as_typed(typed):
    message = parse_command(f"do attack actor=ana secret={str(typed).lower()}", "r1")
    assert message["secret"] is typed


@pytest.mark.parametrize("command", ["do", "odds"])
def test_a_word_that_is_no_key_value_names_the_command_typed(command):
    with pytest.raises(InvalidRequest) as refused:
        parse_command(f"{command} attack actor=ana x", "r1")
    assert refused.value.message == f"{command}: 'x' is not key=value"


def test_approve_sends_the_gms_own_dice():
    """``approve p12 supply=9`` (what the GM is told to do for a held request whose
    player's dice an always-secret action refuses, docs/plugins.md "Secret requests"):
    the GM's dice go with the approval; they were dropped without a word."""
    assert parse_command("approve p12 supply=9,2", "r1") == {
        "id": "r1",
        "type": "approve",
        "request": "p12",
        "dice": [9, 2],
    }
    assert parse_command("approve p12", "r1") == {"id": "r1", "type": "approve", "request": "p12"}


@pytest.mark.parametrize("typed", ["dice=9", "9", "supply=9 supply=2", "reason"])
def test_approve_refuses_any_other_word_and_sends_nothing(typed):
    """A word after the request that is not one ``supply=`` was dropped: the request was
    approved as if the GM had given no dice (with the player's own)."""
    with pytest.raises(InvalidRequest) as refused:
        parse_command(f"approve p12 {typed}", "r1")
    last = typed.split()[-1]
    assert refused.value.message == (
        f"approve: {last!r} is not supply=…; approve PENDING, or approve PENDING "
        "supply=6,2,.. with your own dice"
    )
