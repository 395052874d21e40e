"""The language the CLI prints in: ``--locale LANG``, else the environment.

``--locale`` takes a language code or locale name (``cs``, ``de_AT.UTF-8``);
without it the environment decides as gettext reads it (``LANGUAGE``, ``LC_ALL``,
``LC_MESSAGES``, ``LANG``: :func:`rollbridge.i18n.environment_locale`), and a
language rollbridge does not speak, or ``C``, means English.
"""

from __future__ import annotations

import argparse

from rollbridge import i18n
from rollbridge.cli.helps import Help
from rollbridge.exceptions import InvalidRequest
from rollbridge.text import Messages

__all__ = ["add_locale_option", "chosen_locale", "default_locale"]

say = Messages("rollbridge")
# Translators: {given} is what was typed after --locale; {known} the language codes.
UNKNOWN_LOCALE = say(
    "cli.unknown_locale", "--locale: {given} is not a known language (known: {known})"
)


def add_locale_option(parser: argparse.ArgumentParser) -> None:
    """Give a sub-command the ``--locale LANG`` option."""

    parser.add_argument(
        "--locale",
        metavar="LANG",
        help=Help(
            # Translators: {locales} are language codes; the variables stay as they are.
            say(
                "cli.help.locale",
                "the language to print in: {locales} (default: from LANGUAGE, LC_ALL, "
                "LC_MESSAGES, LANG)",
            ),
            locales=", ".join(i18n.LOCALES),
        ),
    )


def default_locale() -> str:
    """The environment's language, or English."""
    return i18n.environment_locale() or i18n.DEFAULT_LOCALE


def chosen_locale(given: str | None) -> str:
    """The locale ``--locale`` names (the environment's when None).

    :raises InvalidRequest: for a language rollbridge does not speak.
    """
    if given is None:
        return default_locale()
    chosen = i18n.negotiate(given)
    if chosen is None:
        known = ", ".join(sorted(i18n.known_locales() | set(i18n.LOCALES)))
        raise InvalidRequest(UNKNOWN_LOCALE(given=repr(given), known=known))
    return chosen
