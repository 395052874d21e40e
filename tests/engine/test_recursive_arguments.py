"""A refusal holding a list or map that holds itself, or one nested thousands of
levels deep (a ruleset's ``RuleViolation(path)`` where the path it walked links back
to itself), failed with RecursionError while its words were read: the player's
request answered ``internal`` and a traceback logged, where Python's own ``str``
reads ``[...]``. Such a list or map reads as an ellipsis there, past
:data:`~rollbridge.text.MAX_NESTING` levels too, and the rest of the refusal as it
is, a private value in it hidden from players."""

from __future__ import annotations

import pytest

from rollbridge.engine import Principal
from rollbridge.exceptions import RuleViolation
from rollbridge.protocol.table import error_message
from rollbridge.text import ELIDED, MAX_NESTING, Messages, Private, render
from tests.engine.test_private_containers import armor, players
from tests.engine.test_table_engine import frozen

say = Messages("test_recursive_arguments")
REASON = say("reason", "refused: {reason}")


def holding_itself() -> list:
    """A list whose second item is the list."""
    path = ["cave"]
    path.append(path)
    return path


def map_holding_itself() -> dict:
    """A map whose ``back`` entry is the map."""
    room = {"room": "cave"}
    room["back"] = room
    return room


def nested(levels: int) -> list:
    """``["cave", ["cave", [...]]]``, ``levels`` deep."""
    path: list = []
    for _ in range(levels):
        path = ["cave", path]
    return path


#: (a refusal's message, how the GM reads it)
RECURSIVE = {
    "a list holding itself": (holding_itself, f"cave, {ELIDED}"),
    "a map holding itself": (map_holding_itself, f"room: cave, back: {ELIDED}"),
    "an exception's list holding itself": (lambda: ValueError(holding_itself()), f"cave, {ELIDED}"),
    "a text's list holding itself": (
        lambda: REASON(reason=holding_itself()),
        f"refused: cave, {ELIDED}",
    ),
    "nested 100,000 deep": (
        lambda: nested(100_000),
        ", ".join(["cave"] * MAX_NESTING + [ELIDED]),
    ),
}


@pytest.mark.parametrize("locale", ["en", "de"])
@pytest.mark.parametrize("kind", RECURSIVE)
def test_a_refusal_holding_itself_reads_with_an_ellipsis(kind, locale):
    made, reads = RECURSIVE[kind]
    refusal = RuleViolation(made(), code="lost")
    sent = error_message("r1", refusal, locale)
    assert (sent["code"], sent["message"]) == ("lost", reads)
    assert error_message("r1", refusal, locale, players)["message"] == reads


def test_a_private_value_beside_it_is_still_hidden():
    path = holding_itself()
    path.append(armor())
    refusal = RuleViolation(path, code="lost")
    assert error_message("r1", refusal, "en")["message"] == f"cave, {ELIDED}, 7"
    hidden = error_message("r1", refusal, "en", players)["message"]
    assert hidden.startswith(f"cave, {ELIDED}, ") and "7" not in hidden


def test_a_private_value_holding_itself_reads_with_an_ellipsis():
    inside: list = ["cave"]
    secret = Private(inside, "guard", "armor")
    inside.append(secret)
    assert render(REASON(reason=secret)) == f"refused: cave, {ELIDED}"


def test_a_players_request_is_refused_in_the_rulesets_words_not_failed(seated, tally, monkeypatch):
    """Through the table: the ruleset's refusal reaches the player with its code, not
    as the ruleset's failure (``internal``, its traceback logged), marked as the
    ruleset's own (``details.origin``, docs/protocol.md "Error codes"), and the table is
    as it was."""

    def lost(context, dice):
        raise RuleViolation(holding_itself(), code="lost")

    monkeypatch.setattr(tally, "resolve", lost)
    before = frozen(seated)
    alice = Principal("player", "alice", "tok-alice")
    with pytest.raises(RuleViolation) as raised:
        seated.handle("t", {"type": "resolve", "id": "x", "action": "boom"}, alice)
    assert raised.value.to_dict("en", players) == {
        "code": "lost",
        "message": f"cave, {ELIDED}",
        "details": {"origin": "ruleset"},
    }
    assert frozen(seated) == before
