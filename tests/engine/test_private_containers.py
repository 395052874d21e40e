"""A :class:`~rollbridge.text.Private` value inside what a ruleset may give as a
refusal's message other than a text — a tuple or a list, a plain map, an exception of
its own (a nested ``RuleViolation``, a ``ValueError``) — read as Python's repr of it,
``(Private(7, of='guard', aspect='armor'), 'x')``, to every audience in every language:
the NPC's number reached players (af9d2505 made only a ``Private`` standing alone read
as in a text). A refusal given as an argument of a text (``{reason}`` given a
``RuleViolation``) read in full to players as well, and a text whose English rendering
for the GM met no private argument that way was kept on it and read so to players
after. Each now reads as inside a text: the value for whoever may see it, "(hidden)"
in the reader's language for whoever may not."""

from __future__ import annotations

import copy
import pickle
from collections import namedtuple

import pytest

from rollbridge.exceptions import RuleViolation
from rollbridge.protocol.table import error_message
from rollbridge.text import HIDDEN, Messages, Private, render

say = Messages("test_private_containers")
REASON = say("reason", "refused: {reason}")
LOCALES = ["en", "cs", "de", "ru"]


#: A ruleset's own named tuple (what a refusal may quote), and a list of its own: each
#: read as Python's repr of it, the NPC's number in it, to players (review of core17).
Blow = namedtuple("Blow", "armor note")


class Rolls(list):
    """A ruleset's own list."""


def armor() -> Private:
    """The guard's armour, 7: the number players must not read."""
    return Private(7, of="guard", aspect="armor")


def players(actor_id: str, aspect: str) -> bool:
    """Players' hides at a table that reveals nothing of the guard."""
    return actor_id == "guard"


#: (what the ruleset raises with, how the GM reads it)
MESSAGES = {
    "tuple": (lambda: (armor(), "too tough"), "7, too tough"),
    "list": (lambda: [armor(), 2], "7, 2"),
    "map": (lambda: {"armor": armor()}, "armor: 7"),
    "stored private": (lambda: {"private": 7, "of": "guard", "aspect": "armor"}, "7"),
    "nested refusal": (lambda: RuleViolation(armor(), code="inner"), "7"),
    "nested refusal of a list": (lambda: RuleViolation([armor()], code="inner"), "7"),
    "value error": (lambda: ValueError(armor()), "7"),
    "value error of two": (lambda: ValueError(armor(), "x"), "7, x"),
    "private of a private": (lambda: Private(armor(), of="hero"), "7"),
    "private of a tuple": (lambda: Private((armor(), 2), of="hero"), "7, 2"),
    "named tuple": (lambda: Blow(armor(), "too tough"), "7, too tough"),
    "list of its own": (lambda: Rolls([armor(), 2]), "7, 2"),
}


def hidden_as(gm_reads: str, locale: str) -> str:
    """What players read where the GM reads ``gm_reads``: its 7 hidden."""
    return gm_reads.replace("7", HIDDEN().render(locale))


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("kind", MESSAGES)
def test_a_refusal_holding_a_private_value_hides_it_from_players(kind, locale):
    made, gm_reads = MESSAGES[kind]
    refusal = RuleViolation(made(), code="too_tough")
    sent = error_message("r1", refusal, locale, players)
    assert sent["message"] == hidden_as(gm_reads, locale), sent
    assert "7" not in str(sent) and "Private" not in str(sent), sent
    assert error_message("r1", refusal, locale)["message"] == gm_reads  # the GM
    assert refusal.message == gm_reads  # the operator's log, in English, without a repr


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("kind", MESSAGES)
def test_a_refusal_as_an_argument_of_a_text_hides_it_from_players(kind, locale):
    made, gm_reads = MESSAGES[kind]
    text = REASON(reason=RuleViolation(made(), code="too_tough"))
    # the GM first, in English and in the locale: nothing the GM read may be kept on
    # the text for players
    assert render(text) == f"refused: {gm_reads}"
    assert render(text, locale=locale) == f"refused: {gm_reads}"
    shown = render(text, locale=locale, hides=players)
    assert shown == f"refused: {hidden_as(gm_reads, locale)}", shown
    assert render(text, hides=players) == f"refused: {hidden_as(gm_reads, 'en')}"


@pytest.mark.parametrize("locale", LOCALES)
def test_an_exception_as_an_argument_of_a_text_hides_it_from_players(locale):
    text = REASON(reason=ValueError(armor()))
    assert render(text) == "refused: 7"
    assert render(text, locale=locale, hides=players) == f"refused: {HIDDEN().render(locale)}"


def test_a_player_controlled_detail_in_a_container_reads_in_full():
    refusal = RuleViolation((Private(3, of="hero"), armor()), code="too_tough")
    assert error_message("r1", refusal, "en", players)["message"] == "3, (hidden)"


@pytest.mark.parametrize(
    "made",
    [
        lambda: f"too tough: {armor()}",
        lambda: "too tough: %s" % armor(),  # noqa: UP031  # as a ruleset may write it
        lambda: "too tough: {}".format(armor()),  # noqa: UP032
        lambda: "too tough: " + str(armor()),
    ],
)
def test_a_private_value_written_into_a_plain_string_is_never_its_value(made):
    """A plain string is the same for every audience: a Private written into one (an
    f-string, ``%s``) read as its repr, the value in it, to players. It reads as the
    word for a hidden value, for the GM too (give it as a text's argument instead)."""
    refusal = RuleViolation(made(), code="too_tough")
    assert refusal.message == "too tough: (hidden)"
    for hides in (players, None):
        assert error_message("r1", refusal, "de", hides)["message"] == "too tough: (hidden)"
    assert str(Private(7, of="guard", instead="?")) == "?"


def pickled(value):
    """``value`` pickled and read back, as a process other than this one would."""
    return pickle.loads(pickle.dumps(value))


@pytest.mark.parametrize("copied", [pickled, copy.deepcopy])
@pytest.mark.parametrize("locale", LOCALES)
def test_a_copied_refusal_still_reads_hidden_to_players(copied, locale):
    """A private value copied deeply or pickled (a refusal holding one, a text whose
    argument it is) lost what marks its ``instead`` as left out: players read
    "<object object at 0x…>" where "(hidden)" stood (review of core17)."""
    for made in (lambda: [armor(), 2], lambda: REASON(reason=armor())):
        refusal = RuleViolation(made(), code="too_tough")
        again = copied(refusal)
        assert again.render(locale, players) == refusal.render(locale, players)
        assert HIDDEN().render(locale) in again.render(locale, players)
        assert again.render(locale) == refusal.render(locale)  # the GM's, the 7


class OutOfReach(Exception):
    """A ruleset's (or a library's) exception that says itself in words of its own."""

    def __init__(self, reach: int, distance: int) -> None:
        super().__init__(reach, distance)
        self.reach, self.distance = reach, distance

    def __str__(self) -> str:
        return f"a reach of {self.reach} m falls short of {self.distance} m"


@pytest.mark.parametrize("hides", [None, players])
def test_an_exception_with_words_of_its_own_reads_as_it_says(hides):
    """An exception given as a refusal's message read as its arguments joined,
    "2, 5", to the GM and players alike: its own words were lost (review of core17)."""
    refusal = RuleViolation(OutOfReach(2, 5), code="out_of_reach")
    said = "a reach of 2 m falls short of 5 m"
    assert error_message("r1", refusal, "de", hides)["message"] == said
    assert render(REASON(reason=OutOfReach(2, 5)), hides=hides) == f"refused: {said}"
    assert refusal.message == said
