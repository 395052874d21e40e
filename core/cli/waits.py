"""How long ``rollbridge connect`` waits for the server: for the ``welcome`` of each
connection (``ROLLBRIDGE_WELCOME_TIMEOUT``), and for the answers to what it sent once
its input has ended (``--answer-timeout``) — docs/protocol.md, "rollbridge connect
after a close".

Loaded by :mod:`rollbridge.cli.connect` to read its options, so it loads neither
asyncio nor websockets: a value out of range is refused before anything connects.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Mapping
from dataclasses import dataclass

from rollbridge.cli.helps import help_locale
from rollbridge.exceptions import InvalidRequest
from rollbridge.text import Message, Messages

__all__ = [
    "ANSWER_WAIT",
    "MOST_ANSWER_WAIT",
    "MOST_WELCOME_WAIT",
    "WELCOME_ENV",
    "WELCOME_WAIT",
    "Waits",
    "answer_timeout_option",
    "seconds_from",
    "waits_from",
]

say = Messages("rollbridge")
# Translators: after "argument --answer-timeout: "; {given} is its value as given.
BAD_ANSWER_WAIT = say(
    "cli.connect.answer_timeout", "give a number of seconds from 0 to 3600, not {given}"
)
# Translators: {name} is the environment variable's name, {given} its value; the
# welcome is the server's answer to a new connection's hello.
BAD_WELCOME_WAIT = say(
    "cli.connect.welcome_timeout",
    "{name} takes the wait for the server's welcome in seconds, more than 0 and at most "
    "600, not {given}",
)

#: How long a connection waits for its welcome, in seconds, unless
#: :data:`WELCOME_ENV` says otherwise (the bundled client's ping interval and
#: timeout together).
WELCOME_WAIT = 25.0
#: The environment variable that sets :data:`WELCOME_WAIT` (tests set it short).
WELCOME_ENV = "ROLLBRIDGE_WELCOME_TIMEOUT"
MOST_WELCOME_WAIT = 600.0
#: How long the session waits for the answers to what it sent once its input has
#: ended (or ``quit`` was typed), in seconds, unless ``--answer-timeout`` says
#: otherwise; after a reconnect, as long again.
ANSWER_WAIT = 5.0
MOST_ANSWER_WAIT = 3600.0


@dataclass(frozen=True)
class Waits:
    """How long a session waits for a welcome and, once its input has ended, for
    the answers to what it sent (seconds)."""

    welcome: float = WELCOME_WAIT
    answers: float = ANSWER_WAIT


def _seconds(text: str) -> float:
    """``text`` as a number of seconds, or nan (not a number)."""
    try:
        return float(text)
    except ValueError:
        return math.nan


def answer_timeout_option(text: str) -> float:
    """``--answer-timeout``: seconds from 0 (the answers come at once, or they count
    as unanswered) to 3600.

    :raises argparse.ArgumentTypeError: for anything else (nan and inf too), naming
        the value in the language of the command line (a usage error, exit status 2).
    """
    value = _seconds(text)
    if not 0 <= value <= MOST_ANSWER_WAIT:  # nan and inf too
        said = BAD_ANSWER_WAIT(given=repr(text[:64])).render(help_locale())
        raise argparse.ArgumentTypeError(said)
    return value


def seconds_from(
    environ: Mapping[str, str], name: str, most: float, refusal: Message, *, zero: bool
) -> float | None:
    """The seconds the environment variable ``name`` gives (None: unset or blank),
    from 0 (``zero``; else more than 0) to ``most``.

    :raises InvalidRequest: it holds anything else (nan and inf too): ``refusal``
        with the variable's ``name`` and the value ``given``, ``details.field`` naming it.
    """
    given = environ.get(name)
    if given is None or not given.strip():
        return None
    value = _seconds(given)
    above_least = value >= 0 if zero else value > 0
    if not (above_least and value <= most):  # nan and inf too
        raise InvalidRequest(refusal(name=name, given=repr(given[:64])), details={"field": name})
    return value


def waits_from(answers: float, environ: Mapping[str, str]) -> Waits:
    """The waits of a session: ``answers`` (``--answer-timeout``), and the welcome's
    as :data:`WELCOME_ENV` says (seconds, more than 0 and at most 600; default
    :data:`WELCOME_WAIT`).

    :raises InvalidRequest: the variable holds anything else (naming it and its value).
    """
    welcome = seconds_from(environ, WELCOME_ENV, MOST_WELCOME_WAIT, BAD_WELCOME_WAIT, zero=False)
    return Waits(answers=answers) if welcome is None else Waits(welcome, answers)
