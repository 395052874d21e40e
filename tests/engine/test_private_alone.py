"""A :class:`~rollbridge.text.Private` value standing alone — a ruleset's refusal whose
whole message is one (``RuleViolation(Private(armor, of=npc))``) — read as its repr,
``Private(7, of='guard', aspect='armor')``, to every audience: the NPC's number reached
players in the refusal's message (walk16p's leftover). It reads as it does inside a
text: the value for whoever may see it, "(hidden)" in the reader's language (or its
``instead``) for whoever may not."""

from __future__ import annotations

import pytest

from rollbridge.exceptions import RuleViolation
from rollbridge.protocol.table import error_message
from rollbridge.text import HIDDEN, Private, render

ARMOR = Private(7, of="guard", aspect="armor")


def players(actor_id: str, aspect: str) -> bool:
    """Players' hides at a table that reveals nothing of the guard."""
    return actor_id == "guard"


@pytest.mark.parametrize("locale", ["en", "cs", "de", "ru"])
def test_a_private_value_alone_is_hidden_from_players_and_shown_to_the_gm(locale):
    assert render(ARMOR, locale=locale) == "7"
    assert render(ARMOR, locale=locale, hides=players) == HIDDEN().render(locale)
    assert render(Private(7, of="guard", instead="?"), locale=locale, hides=players) == "?"


@pytest.mark.parametrize("locale", ["en", "cs", "de", "ru"])
def test_a_refusal_that_is_a_private_value_reaches_players_without_it(locale):
    refusal = RuleViolation(ARMOR, code="too_tough")
    sent = error_message("r1", refusal, locale, players)
    assert sent["message"] == HIDDEN().render(locale) and "7" not in str(sent), sent
    assert error_message("r1", refusal, locale)["message"] == "7"  # the GM
    assert refusal.message == "7"  # the operator's log, in English
