"""Option values the commands share: a whole number from 1 to :data:`MOST`
(``--retain``, ``--max-pending``, ``--lease-ms``), refused as a usage error in the
language of the command line."""

from __future__ import annotations

import argparse

from rollbridge.cli.helps import help_locale
from rollbridge.text import Message, Messages

__all__ = ["MOST", "NOT_POSITIVE", "TOO_LARGE", "positive", "said_of"]

say = Messages("rollbridge")
# Translators: a usage error of an option's value; {given} is the value as typed, quoted.
NOT_POSITIVE = say("cli.option.not_positive", "expected a whole number of at least 1, not {given}")
# Translators: a usage error of an option's value; {most} is a number, {given} the
# value as typed, quoted.
TOO_LARGE = say("cli.option.too_large", "expected a whole number of at most {most}, not {given}")
#: The largest such value: a store subtracts ten times ``--retain`` (the reply window)
#: from a seq, which SQLite holds in 64 bits; ``99999999999999999999999`` started a
#: ``serve`` whose every table then failed to load (``OverflowError``).
MOST = 1_000_000_000


def said_of(message: Message, given: str, **args: str) -> str:
    """A usage error of an option's value (``given``, as typed), in the language of
    the command line."""
    return message(given=repr(given), **args).render(help_locale())


def positive(text: str) -> int:
    """``text`` as a whole number from 1 to :data:`MOST` (an option's ``type``).

    :raises argparse.ArgumentTypeError: anything else, :data:`NOT_POSITIVE`; a larger
        number, :data:`TOO_LARGE`.
    """
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(said_of(NOT_POSITIVE, text))
    if value > MOST:
        raise argparse.ArgumentTypeError(said_of(TOO_LARGE, text, most=str(MOST)))
    return value
