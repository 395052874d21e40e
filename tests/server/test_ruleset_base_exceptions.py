"""A ruleset that raises an exception derived from ``BaseException`` only — a
``GeneratorExit`` (a generator of its own closed while it was read), a class of its
own — got past the engine's guard (``except Exception``): the server's connection
handler failed and the player's connection closed with 1011, its request unanswered.
It is answered ``internal`` now, as any other failure of a ruleset, logged once with
its traceback, and the connection and the table go on as they were. (So is a
refusal whose ``__str__`` raises one: it reads as its class's name.) Over a real
WebSocket, on a real SQLite file. ``KeyboardInterrupt`` and ``SystemExit`` stay the
operator's: they still pass (tests/engine level)."""

from __future__ import annotations

import logging

import pytest

from rollbridge.engine import Principal
from rollbridge.exceptions import RuleViolation

RESOLVE = {"type": "resolve", "action": "hit", "actor": "ana", "targets": ["guard"]}


class Stopped(BaseException):
    """A ruleset's own exception derived from BaseException only."""


class Unsayable(RuleViolation):
    """A refusal that keeps its words itself (no ``super().__init__``), and whose
    words raise GeneratorExit."""

    code = "unsayable"

    def __init__(self, words: str) -> None:
        self.words = words

    def __str__(self) -> str:
        raise GeneratorExit


@pytest.mark.parametrize("raised", [GeneratorExit, Stopped], ids=["GeneratorExit", "own"])
async def test_a_base_exception_from_resolve_is_answered_internal(
    tables, tally, monkeypatch, caplog, raised
):
    def resolve(self, context, dice):
        raise raised("the ruleset's words")

    monkeypatch.setattr(type(tally), "resolve", resolve)
    caplog.set_level(logging.ERROR)
    gm, _ = await tables.join("tally", "gm")
    player, _ = await tables.join("tally", "player")
    before = await gm.request({"type": "state"})
    reply = await player.request(RESOLVE)
    assert (reply["type"], reply["code"]) == ("error", "internal"), reply
    assert reply["message"] == "ruleset 'tally' failed"  # not what the exception said
    logged = [r for r in caplog.records if r.exc_info and r.exc_info[0] is raised]
    assert len(logged) == 1, caplog.text
    assert "ruleset 'tally' failed at table 'tally'" in logged[0].getMessage()
    # the same connections go on, and the table is as it was
    assert player.close_code is None and gm.close_code is None
    assert (await gm.request({"type": "state"}))["table"] == before["table"]
    assert (await player.request({"type": "roll", "formula": "1d6"}))["status"] == "done"


async def test_a_refusal_whose_words_raise_generator_exit_reads_its_class_name(
    tables, tally, monkeypatch
):
    def resolve(self, context, dice):
        raise Unsayable("the words")

    monkeypatch.setattr(type(tally), "resolve", resolve)
    player, _ = await tables.join("tally", "player")
    reply = await player.request(RESOLVE)
    assert (reply["code"], reply["message"]) == ("unsayable", "Unsayable"), reply
    assert (await player.request({"type": "roll", "formula": "1d6"}))["status"] == "done"


@pytest.mark.parametrize("raised", [KeyboardInterrupt, SystemExit])
def test_the_operators_stops_still_pass(seated, tally, monkeypatch, raised):
    def resolve(context, dice):
        raise raised

    monkeypatch.setattr(tally, "resolve", resolve)
    with pytest.raises(raised):
        seated.handle("t", {**RESOLVE, "id": "x"}, Principal("gm", "gm", "t"))


@pytest.mark.parametrize("raised", [GeneratorExit, Stopped, ValueError])
async def test_a_describe_that_raises_answers_the_join_internal(tables, tally, monkeypatch, raised):
    """A ruleset's ``describe`` (which a welcome reads) ran unguarded: one raising an
    exception derived from ``BaseException`` only left the player's ``hello``
    unanswered, the connection open and waiting for good; one raising a ``ValueError``
    was answered "the server failed" without naming the ruleset. Each is the
    ruleset's failure now, answered ``internal`` naming it; the next join works."""

    def describe(self, locale="en"):
        raise raised("the ruleset's words")

    monkeypatch.setattr(type(tally), "describe", describe)
    _, refused = await tables.join("tally", "player")
    assert (refused["type"], refused["code"]) == ("error", "internal"), refused
    assert refused["message"] == "ruleset 'tally' failed"
    monkeypatch.undo()
    _, welcome = await tables.join("tally", "player")
    assert welcome["type"] == "welcome", welcome
