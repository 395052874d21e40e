"""A refusal written into a log line or a traceback reads as players read it (review
plugins-22): ``str()`` of a ``RuleViolation`` gave the GM's reading, so an NPC's hidden
number a ``Private`` argument holds reached a log an operator ships elsewhere (and a
player, through any path that makes a string of the refusal). ``str()`` now gives the
players' reading; ``ROLLBRIDGE_LOG_PRIVATE=1`` (a debugging setting) makes the log read
refusals as the GM does. ``error.message`` stays the GM's reading."""

from __future__ import annotations

import asyncio
import io
import logging
import sys

import pytest

from rollbridge.exceptions import RuleViolation
from rollbridge.server.logs import PRIVATE_SETTING, SafeLog, TextFormatter
from rollbridge.text import Messages, Private

say = Messages("rollbridge_test_log_reading")
TOUGH = say("tough", "the guard's armour {armor} turns the blow")


def refusal() -> RuleViolation:
    return RuleViolation(TOUGH(armor=Private(7173, of="guard", aspect="sheet")), code="too_tough")


def test_str_of_a_refusal_holding_a_private_value_is_the_players_reading():
    error = refusal()
    assert str(error) == "the guard's armour (hidden) turns the blow"
    assert f"{error}" == str(error)
    assert error.message == "the guard's armour 7173 turns the blow"  # the GM's
    assert error.render() == error.message
    whole = RuleViolation(Private(7173, of="guard", instead="?"), code="too_tough")
    assert str(whole) == "?" and whole.message == "7173"
    held = RuleViolation([Private(7173, of="guard"), "plate"], code="too_tough")
    assert "7173" not in str(held) and str(held) == "(hidden), plate"


def test_a_refusal_without_private_values_reads_as_before():
    assert str(RuleViolation("no ammo", code="no_ammo")) == "no ammo"
    assert str(RuleViolation(TOUGH(armor=3), code="x")) == "the guard's armour 3 turns the blow"


def logged(monkeypatch: pytest.MonkeyPatch, debug: bool) -> str:
    """What the server's text log (its handler, formatter and filter, as ``rollbridge
    serve`` makes them) writes of a refusal in a line and in a traceback. The records
    go to that handler alone: another handler's filter of an earlier test would format
    them first."""
    if debug:
        monkeypatch.setenv(PRIVATE_SETTING, "1")
    else:
        monkeypatch.delenv(PRIVATE_SETTING, raising=False)
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(TextFormatter())
    handler.addFilter(SafeLog())
    name = "rollbridge.test.refusal_reading"
    line = "a change forwarded for table t1 failed: %s"
    handler.handle(logging.LogRecord(name, logging.WARNING, __file__, 1, line, (refusal(),), None))
    try:
        raise refusal()
    except RuleViolation:
        failed = sys.exc_info()
    handler.handle(
        logging.LogRecord(name, logging.ERROR, __file__, 2, "ruleset failed", (), failed)
    )
    return out.getvalue()


def test_the_log_reads_a_refusal_as_players_do(monkeypatch):
    text = logged(monkeypatch, debug=False)
    assert "7173" not in text, text
    assert text.count("the guard's armour (hidden) turns the blow") == 2, text


def test_the_debugging_setting_makes_the_log_read_it_as_the_gm(monkeypatch):
    text = logged(monkeypatch, debug=True)
    assert "(hidden)" not in text, text
    assert "failed: the guard's armour 7173 turns the blow" in text, text
    assert "RuleViolation: the guard's armour 7173 turns the blow" in text, text


class KeepsItsOwn(RuleViolation):
    """A ruleset's refusal that keeps its arguments itself (never calling ``__init__``)."""

    def __init__(self, hp) -> None:
        self.hp = hp


def test_repr_and_args_of_a_refusal_are_the_players_reading_too():
    """Review rev-22p: ``str()`` read as players did, but ``repr()`` and ``args`` held the
    GM's reading: ``%r`` in a log line, a list of refusals in one (``%s`` of a list is its
    items' reprs), an asyncio task's repr ("Task exception was never retrieved") showed
    the NPC's number. A refusal given another refusal as its message read its English
    (the GM's) too; a subclass keeping its own arguments showed a stored form's number."""
    error = refusal()
    assert repr(error) == 'RuleViolation("the guard\'s armour (hidden) turns the blow")'
    assert error.args == ("the guard's armour (hidden) turns the blow",)
    assert "7173" not in f"{[error]!s} {error!r} {(error,)}"
    wrapped = RuleViolation(refusal(), code="too_tough")
    assert "7173" not in repr(wrapped) + str(wrapped.args), repr(wrapped)
    assert wrapped.message == error.message  # the GM's reading stays
    own = KeepsItsOwn({"private": 7173, "of": "guard", "aspect": "sheet"})
    assert repr(own) == "KeepsItsOwn('(hidden)')" and own.message == "7173"
    plain = RuleViolation(TOUGH(armor=3), code="x")  # nothing private: as Python has it
    assert repr(plain) == 'RuleViolation("the guard\'s armour 3 turns the blow")'


async def test_a_failed_tasks_repr_and_a_log_line_with_r_hide_the_number():
    async def refused():
        raise refusal()

    task = asyncio.ensure_future(refused())
    await asyncio.sleep(0)
    assert "(hidden)" in repr(task) and "7173" not in repr(task), repr(task)
    task.exception()
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(TextFormatter())
    handler.addFilter(SafeLog())
    record = logging.LogRecord(
        "rollbridge.test.refusal_reading", logging.WARNING, __file__, 1,
        "failed: %r; all: %s", (refusal(), [refusal()]), None,
    )  # fmt: skip
    handler.handle(record)
    assert "7173" not in out.getvalue() and "(hidden)" in out.getvalue(), out.getvalue()


def test_with_the_debugging_setting_a_private_newline_starts_no_line(monkeypatch):
    """Review rev-22p: with ``ROLLBRIDGE_LOG_PRIVATE=1`` a traceback's refusal reads as the
    GM does, but the text log escaped the control characters of the players' reading
    alone: a private value holding a newline (a sheet's text) started a line of its own
    in the traceback, one that could read as the server's (docs/operations.md, "Logs")."""
    monkeypatch.setenv(PRIVATE_SETTING, "1")
    forged = "7\n2026-12-07 00:00:00,000 ERROR rollbridge.server: forged"
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(TextFormatter())
    handler.addFilter(SafeLog())
    try:
        raise RuleViolation(TOUGH(armor=Private(forged, of="guard")), code="too_tough")
    except RuleViolation:
        failed = sys.exc_info()
    handler.handle(
        logging.LogRecord("rollbridge.test", logging.ERROR, __file__, 1, "failed", (), failed)
    )
    lines = out.getvalue().splitlines()
    assert not any(line.startswith("2026-12-07 00:00:00,000") for line in lines), lines
    assert "RuleViolation: the guard's armour 7\\n2026-12-07" in lines[-1], lines
