"""A stored private form — ``{"private": 7, "of": "guard", "aspect": "armor"}``, what
an event keeps a :class:`~rollbridge.text.Private` as — that a ruleset builds itself,
or reads back from data it kept (a follow-up's parameters must be plain data), read as
a private value inside a text or as a refusal's whole message, but elsewhere as Python
writes a map: a refusal's ``details`` sent the NPC's number to every player, a
:class:`~rollbridge.text.Text`'s repr and a data class's (a refusal's message, a
text's argument) carried it into log lines and players' replies. Each now hides it
as it hides a ``Private``: ``"<Private>"`` in details, ``Private(<hidden>, …)`` in a
repr; :func:`~rollbridge.text.revealed` and the GM's reading of a text still show it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from rollbridge.exceptions import RuleViolation
from rollbridge.protocol.table import error_message
from rollbridge.text import HIDDEN, Messages, Private, privatized, render, revealed, stored

say = Messages("test_stored_private_forms")
REASON = say("reason", "refused: {reason}")
LOCALES = ["en", "cs", "de", "ru"]


def armor() -> dict[str, Any]:
    """The guard's armour, 7, in its stored form."""
    return stored(Private(7, of="guard", aspect="armor"))


def players(actor_id: str, aspect: str) -> bool:
    """Players' hides at a table that reveals nothing of the guard."""
    return actor_id == "guard"


@dataclass(frozen=True, slots=True)
class Blow:
    """A ruleset's own record, quoted by a refusal."""

    weapon: str
    armor: Any


@pytest.mark.parametrize("gm", [True, False], ids=["gm", "player"])
def test_a_stored_form_in_a_refusals_details_is_sent_as_a_private_is(gm):
    refusal = RuleViolation(
        "too tough", code="too_tough", details={"armor": armor(), "left": [armor(), 3]}
    )
    sent = error_message("r1", refusal, "en", None if gm else players)
    assert sent["details"] == {"armor": "<Private>", "left": ["<Private>", 3]}, sent
    assert refusal.details["armor"] == armor()  # the refusal itself is left as it was


def test_a_texts_repr_hides_a_stored_form_revealed_shows_it():
    text = REASON(reason=[armor(), "bow"])
    assert "7" not in repr(text), repr(text)
    assert "Private(<hidden>, of='guard', aspect='armor')" in repr(text)
    assert "Private(7, of='guard', aspect='armor')" in revealed(text)
    assert render(text) == "refused: 7, bow"  # the GM's reading
    assert render(text, hides=players) == "refused: (hidden), bow"


@pytest.mark.parametrize("locale", LOCALES)
def test_a_data_class_holding_a_stored_form_hides_it_as_a_private(locale):
    for message in (Blow("bow", armor()), REASON(reason=Blow("bow", armor()))):
        refusal = RuleViolation(message, code="too_tough")
        for hides in (None, players):  # as a Private in it reads: hidden to all
            said = error_message("r1", refusal, locale, hides)["message"]
            assert "7" not in said and "Private(<hidden>" in said, said
        assert "7" not in str(refusal)
    private = RuleViolation(Blow("bow", Private(7, of="guard", aspect="armor")), code="x")
    assert str(RuleViolation(Blow("bow", armor()), code="x")) == str(private)


@pytest.mark.parametrize("locale", LOCALES)
def test_the_stored_form_alone_still_reads_per_audience(locale):
    refusal = RuleViolation([armor(), "bow"], code="too_tough")
    assert error_message("r1", refusal, locale)["message"] == "7, bow"
    hidden = error_message("r1", refusal, locale, players)["message"]
    assert hidden == f"{HIDDEN().render(locale)}, bow"


def test_privatized_leaves_what_holds_none_and_copies_what_does():
    plain = {"weapon": "bow", "rolls": [1, 2]}
    assert privatized(plain) is plain
    kept = {"armor": armor()}
    made = privatized(kept)
    assert made == {"armor": Private(7, of="guard", aspect="armor")}
    assert kept == {"armor": armor()}  # never changed in place
    loop: list = ["cave"]
    loop.append(loop)
    assert privatized([loop, armor()])[0] == ["cave", "…"]
