"""A :class:`~rollbridge.text.Private`'s repr held its value: a list holding one
written into a plain string (``f"{armors}"``), a ``Private`` written with ``!r`` or
``%r``, and anything whose repr shows what it holds — a ruleset's data class given
as a refusal's message, a ``Text`` in a log line — carried an NPC's number to every
audience, players too (review of core17: only ``str()`` of a ``Private`` hid it). Its
repr now hides the value as ``str()`` does; :func:`~rollbridge.text.revealed` shows
it for debugging, and the conformance suite's pytest plugin shows it in a failed
comparison."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass

import pytest

from rollbridge.exceptions import RuleViolation
from rollbridge.protocol.table import error_message
from rollbridge.testing_compare import pytest_assertrepr_compare
from rollbridge.text import Messages, Private, revealed
from tests.engine.test_private_containers import players

say = Messages("test_private_repr")
NOTE = say("note", "armor {armor}")


def armor() -> Private:
    """The guard's armour, 7173: a number that stands nowhere else in a message."""
    return Private(7173, of="guard", aspect="armor")


@dataclass
class Blow:
    """A ruleset's own data class, as a refusal may quote one."""

    armor: Private
    note: str


WRITTEN = {
    "a list in an f-string": lambda: f"too tough: {[armor()]}",
    "a map in an f-string": lambda: "too tough: " + f"{ {'armor': armor()} }",
    "!r": lambda: f"too tough: {armor()!r}",
    "%r": lambda: "too tough: %r" % (armor(),),  # noqa: UP031  # as a ruleset may write it
    "repr of a text": lambda: f"too tough: {NOTE(armor=armor())!r}",
}


@pytest.mark.parametrize("kind", WRITTEN)
def test_a_private_value_in_a_plain_strings_repr_is_hidden(kind):
    written = WRITTEN[kind]()
    assert "7173" not in written
    assert "Private(<hidden>, of='guard', aspect='armor')" in written


@pytest.mark.parametrize("hides", [players, None])
def test_a_data_class_holding_a_private_value_never_shows_it(hides):
    """A refusal whose message is a ruleset's data class is read as ``str()`` of it:
    its repr, the guard's armour in it, to players."""
    refusal = RuleViolation(Blow(armor(), "too tough"), code="too_tough")
    sent = error_message("r1", refusal, "de", hides)
    assert "7173" not in str(sent), sent
    assert "7173" not in refusal.message


def test_revealed_shows_the_value_and_the_repr_comes_back_hidden():
    held = {"blow": Blow(armor(), "x"), "note": NOTE(armor=armor())}
    shown = revealed(held)
    assert shown.count("Private(7173, of='guard', aspect='armor')") == 2, shown
    assert "7173" not in repr(held)  # revealing ends with the call
    with_instead = revealed(Private("x", of="a", instead="?"))
    assert with_instead == "Private('x', of='a', aspect='details', instead='?')"


def test_the_comparison_hook_shows_private_values_and_leaves_others_to_pytest():
    lines = pytest_assertrepr_compare(None, "==", [armor()], [Private(7174, of="guard")])
    assert lines is not None and "7173" in lines[0] and "7174" in lines[0], lines
    assert pytest_assertrepr_compare(None, "==", [1], [2]) is None


def test_a_failed_assertion_in_an_authors_test_shows_the_private_values(tmp_path):
    """pytest, run as an author runs it (the plugin from its entry point), shows the
    two armours that differ, where their reprs alone read the same."""
    test = tmp_path / "test_armor.py"
    test.write_text(
        textwrap.dedent(
            """
            from rollbridge.text import Private

            def test_armor():
                assert {"armor": Private(7173, of="guard")} == {"armor": Private(7174, of="guard")}
            """
        )
    )
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)],
        cwd=tmp_path, capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    for shown in ("Private(7173, of='guard'", "Private(7174, of='guard'"):
        assert shown in done.stdout, done.stdout


class Ticket:
    """An object whose repr numbers each reading (as a clock's or a counter's does)."""

    def __init__(self) -> None:
        self.read = 0

    def __repr__(self) -> str:
        self.read += 1
        return f"Ticket(read {self.read})"


def test_the_comparison_hook_leaves_a_changing_repr_without_a_private_value_to_pytest():
    """The hook took a repr that differs from one reading to the next for one holding
    a private value (review of plugins19): a failed ``assert Ticket() == 1`` in any
    suite where rollbridge is installed lost pytest's explanation for one saying
    private values were shown."""
    assert pytest_assertrepr_compare(None, "==", Ticket(), 1) is None
    assert pytest_assertrepr_compare(None, "==", [Ticket()], [Private(1, of="guard")])


def test_the_comparison_hooks_lines_end_without_a_newline():
    """difflib's guide lines ended with a newline, which pytest printed as a literal
    ``\\n`` after each ``?`` line of the failure (review of plugins19)."""
    lines = pytest_assertrepr_compare(None, "==", [armor()], [Private(7174, of="guard")])
    assert lines is not None and any(line.startswith("?") for line in lines), lines
    assert [line for line in lines if "\n" in line] == [], lines
