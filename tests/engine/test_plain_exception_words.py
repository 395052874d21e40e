"""A refusal made of a plain exception — a ruleset's ``RuleViolation(error)`` after
catching a ``KeyError`` — read in words Python never gives it since core17: its
arguments joined, ``hp`` where Python reads ``'hp'``, ``2, No such file`` where it
reads ``[Errno 2] No such file``, and an empty message for an exception of no
arguments. A built-in exception that says its arguments in words of its own reads
in those words (unless it holds a private value or a text, read per audience), and
one of no arguments reads as its class's name.

And an error of a ruleset's subclass whose ``__init__`` does not call
``RollbridgeError.__init__`` (``class NoAmmo(RuleViolation)`` keeping its weapon
itself) had no ``text``, ``message`` or ``hides``: rendering its refusal for the
asker raised ``AttributeError``. It reads its arguments as its message, a private
value among them hidden from players."""

from __future__ import annotations

import pytest

from rollbridge.exceptions import RuleViolation
from rollbridge.protocol.table import error_message
from rollbridge.text import HIDDEN, Messages, render
from tests.engine.test_private_containers import armor, players

say = Messages("test_plain_exception_words")
REASON = say("reason", "refused: {reason}")


#: (the exception, how it reads: Python's own words, or its class's name)
PLAIN = {
    "key error": (lambda: KeyError("hp"), "'hp'"),
    "os error": (lambda: OSError(2, "No such file"), "[Errno 2] No such file"),
    "unicode": (
        lambda: UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"),
        "'utf-8' codec can't decode byte 0xff in position 0: invalid start byte",
    ),
    "no arguments": (lambda: ValueError(), "ValueError"),
    "two arguments": (lambda: ValueError("no hp", 2), "no hp, 2"),
}


@pytest.mark.parametrize("hides", [None, players])
@pytest.mark.parametrize("kind", PLAIN)
def test_a_plain_exception_reads_in_pythons_words(kind, hides):
    made, reads = PLAIN[kind]
    refusal = RuleViolation(made(), code="no_hp")
    assert error_message("r1", refusal, "de", hides)["message"] == reads
    assert refusal.message == reads
    assert render(REASON(reason=made()), locale="cs", hides=hides) == f"refused: {reads}"


def test_a_built_in_exception_holding_a_private_value_still_hides_it():
    refusal = RuleViolation(KeyError(armor()), code="no_hp")
    assert error_message("r1", refusal, "de", players)["message"] == HIDDEN().render("de")
    assert error_message("r1", refusal, "de")["message"] == "7"


class NoAmmo(RuleViolation):
    """A ruleset's refusal that keeps its arguments itself, never calling
    ``RuleViolation.__init__``."""

    code = "no_ammo"

    def __init__(self, weapon: object, left: object) -> None:
        self.weapon, self.left = weapon, left


class Refused(RuleViolation):
    """A ruleset's refusal of no arguments, never calling ``RuleViolation.__init__``."""

    code = "refused_here"

    def __init__(self) -> None:
        pass


@pytest.mark.parametrize("locale", ["en", "cs", "de", "ru"])
def test_a_subclass_that_never_called_init_reads_its_arguments(locale):
    refusal = NoAmmo("bow", armor())
    sent = error_message("r1", refusal, locale, players)
    assert sent == {
        "type": "error",
        "id": "r1",
        "code": "no_ammo",
        "message": f"bow, {HIDDEN().render(locale)}",
    }
    assert error_message("r1", refusal, locale)["message"] == "bow, 7"
    # str() is the players' reading (review plugins-22); message the GM's
    assert str(refusal) == "bow, (hidden)" and refusal.message == "bow, 7"
    assert refusal.details == {}
    assert error_message("r1", Refused(), locale)["message"] == "Refused"


class Unarmed(RuleViolation):
    """A ruleset's refusal keeping its weapon itself, raised with no weapon (None)."""

    code = "unarmed"

    def __init__(self, weapon: object) -> None:
        self.weapon = weapon


class HoldsItself(RuleViolation):
    """A ruleset's refusal that gives itself as its own argument."""

    code = "holds_itself"

    def __init__(self) -> None:
        Exception.__init__(self, self)


@pytest.mark.parametrize("hides", [None, players])
@pytest.mark.parametrize("locale", ["en", "de"])
def test_a_subclass_holding_no_words_reads_its_class_name(locale, hides):
    """``Unarmed(None)`` read its None as its message (review of plugins19): ``str()``
    raised TypeError and rendering it AttributeError, and at a table the player got
    ``internal`` for the ruleset's typed refusal; one holding itself recursed without
    end."""
    for refusal, name in ((Unarmed(None), "Unarmed"), (HoldsItself(), "HoldsItself")):
        sent = error_message("r1", refusal, locale, hides)
        assert (sent["code"], sent["message"]) == (refusal.code, name)
        assert str(refusal) == name


class Unsayable(Exception):
    """An exception whose own words fail."""

    def __str__(self) -> str:
        raise RuntimeError("no words")


class Unprintable:
    """A key whose repr fails."""

    def __repr__(self) -> str:
        raise RuntimeError("no repr")


class Endless:
    """A key whose repr recurses without end."""

    def __repr__(self) -> str:
        return repr(self)


def holding_itself() -> ValueError:
    """A ValueError among its own arguments."""
    error = ValueError("no hp")
    error.args = ("no hp", error)
    return error


#: (an exception whose words fail or never end, how a refusal holding it reads)
UNREADABLE = {
    "its own __str__ raises": (Unsayable, "Unsayable"),
    "its key's repr raises": (lambda: KeyError(Unprintable()), "KeyError"),
    "its key's repr recurses": (lambda: KeyError(Endless()), "KeyError"),
    "it holds itself": (holding_itself, "no hp, ValueError"),
}


@pytest.mark.parametrize("hides", [None, players])
@pytest.mark.parametrize("kind", UNREADABLE)
def test_an_exception_whose_words_fail_reads_as_its_class_name(kind, hides):
    """A refusal made of such an exception raised while it was made (a ruleset's
    ``internal`` failure, its traceback logged) or read (RecursionError)."""
    made, reads = UNREADABLE[kind]
    refusal = RuleViolation(made(), code="no_hp")
    assert error_message("r1", refusal, "de", hides)["message"] == reads
    assert refusal.message == reads


class OutOfAmmo(RuleViolation):
    """The common Python idiom: a refusal keeping its weapon, saying itself."""

    code = "out_of_ammo"

    def __init__(self, weapon: object) -> None:
        self.weapon = weapon

    def __str__(self) -> str:
        return f"the {self.weapon} is out of ammunition"


class SaysItsMessage(RuleViolation):
    """A refusal whose ``__str__`` reads the message ``RollbridgeError`` would set."""

    code = "says_its_message"

    def __init__(self, weapon: object) -> None:
        Exception.__init__(self, weapon)

    def __str__(self) -> str:
        return f"refused: {self.message}"


@pytest.mark.parametrize("hides", [None, players])
@pytest.mark.parametrize("locale", ["en", "de"])
def test_a_subclass_that_never_called_init_says_its_own_words(locale, hides):
    """A subclass's own ``__str__`` was passed over for its arguments (review of
    plugins19): players read "bow" where its author wrote "the bow is out of
    ammunition". Its words read as an exception's own words do; one that reads
    ``self.message`` there gets its arguments."""
    sent = error_message("r1", OutOfAmmo("bow"), locale, hides)
    assert (sent["code"], sent["message"]) == ("out_of_ammo", "the bow is out of ammunition")
    assert error_message("r1", SaysItsMessage("bow"), locale, hides)["message"] == "refused: bow"
    hidden = error_message("r1", OutOfAmmo(armor()), locale, players)["message"]
    assert hidden == "the (hidden) is out of ammunition"
