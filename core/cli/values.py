"""Option values the commands share: a whole number of at least 1 (``--retain``,
``--max-pending``), refused as a usage error in the language of the command line."""

from __future__ import annotations

import argparse

from rollbridge.cli.helps import help_locale
from rollbridge.text import Message, Messages

__all__ = ["NOT_POSITIVE", "positive", "said_of"]

say = Messages("rollbridge")
# Translators: a usage error of an option's value; {given} is the value as typed, quoted.
NOT_POSITIVE = say("cli.option.not_positive", "expected a whole number of at least 1, not {given}")


def said_of(message: Message, given: str, **args: str) -> str:
    """A usage error of an option's value (``given``, as typed), in the language of
    the command line."""
    return message(given=repr(given), **args).render(help_locale())


def positive(text: str) -> int:
    """``text`` as a whole number of at least 1 (an option's ``type``).

    :raises argparse.ArgumentTypeError: anything else, :data:`NOT_POSITIVE`.
    """
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(said_of(NOT_POSITIVE, text))
    return value
