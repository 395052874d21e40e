"""A refusal written into a log line or a traceback reads as players read it (review
plugins-22): ``str()`` of a ``RuleViolation`` gave the GM's reading, so an NPC's hidden
number a ``Private`` argument holds reached a log an operator ships elsewhere (and a
player, through any path that makes a string of the refusal). ``str()`` now gives the
players' reading; ``ROLLBRIDGE_LOG_PRIVATE=1`` (a debugging setting) makes the log read
refusals as the GM does. ``error.message`` stays the GM's reading."""

from __future__ import annotations

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
