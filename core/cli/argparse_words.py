"""argparse's own words ("usage:", "options:", its usage errors) as messages of the
``rollbridge`` domain, so that they are translated where the CLI's are.

argparse asks gettext for each of them by its English (the ``msgid``:
``_('the following arguments are required: %s')``), then fills in its ``%``
placeholders; :func:`gettext` and :func:`ngettext` answer such a lookup with the
message declared for that English, rendered in a locale, its placeholders kept for
argparse to fill. English no message is declared for (a text of another Python
version, or one only a programming error shows) reads as argparse wrote it.

The texts are those of Python 3.11 to 3.14 a user can meet: each version's that
differ are declared each (3.13's deprecation warnings, 3.14's section heads and
suggestions); the tests list the lookups a help and the usage errors make on the
Python they run on and check that each has its message.
"""

from __future__ import annotations

from rollbridge.text import Message, Messages

__all__ = ["PLURALS", "WORDS", "gettext", "ngettext"]

say = Messages("rollbridge")

#: argparse's English → the message that translates it.
WORDS: dict[str, Message] = {
    message.template: message
    for message in (
        # Translators: argparse's words keep their %-placeholders (%s, %r, %(name)s) as
        # they are: argparse fills them in. The head of a help's first line; keep the
        # space after the colon.
        say("argparse.usage", "usage: "),
        # Translators: a help's section of the arguments given by position.
        say("argparse.positionals", "positional arguments"),
        # Translators: a help's section of the options (--name).
        say("argparse.options", "options"),
        say("argparse.help", "show this help message and exit"),
        say("argparse.version", "show program's version number and exit"),
        # Translators: %(argument_name)s is an option (--port) or an argument's name.
        say("argparse.argument", "argument %(argument_name)s: %(message)s"),
        # Translators: %s lists the arguments, as they are written.
        say("argparse.unrecognized", "unrecognized arguments: %s"),
        say("argparse.required", "the following arguments are required: %s"),
        say("argparse.one_of_required", "one of the arguments %s is required"),
        say("argparse.not_allowed_with", "not allowed with argument %s"),
        say("argparse.ignored_explicit", "ignored explicit argument %r"),
        say("argparse.expected_one", "expected one argument"),
        say("argparse.expected_at_most_one", "expected at most one argument"),
        say("argparse.expected_at_least_one", "expected at least one argument"),
        # Translators: %(matches)s lists the options it could be.
        say("argparse.ambiguous", "ambiguous option: %(option)s could match %(matches)s"),
        say("argparse.unexpected_option", "unexpected option string: %s"),
        # Translators: %(type)s is the name of the expected type as Python writes it
        # (int, float): keep it.
        say("argparse.invalid_type", "invalid %(type)s value: %(value)r"),
        say("argparse.invalid_choice", "invalid choice: %(value)r (choose from %(choices)s)"),
        # Translators: Python 3.14's, with the closest choice it found.
        say(
            "argparse.invalid_choice_closest",
            "invalid choice: %(value)r, maybe you meant %(closest)r? (choose from %(choices)s)",
        ),
        # Translators: a help's section head, as Python 3.14 writes it (options:).
        say("argparse.heading", "%(heading)s:"),
        say("argparse.subcommands", "subcommands"),
        # Translators: %(parser_name)r is the command as given; %(choices)s the commands.
        say("argparse.unknown_parser", "unknown parser %(parser_name)r (choices: %(choices)s)"),
        say("argparse.deprecated_option", "option '%(option)s' is deprecated"),
        say("argparse.deprecated_argument", "argument '%(argument_name)s' is deprecated"),
        say("argparse.deprecated_command", "command '%(parser_name)s' is deprecated"),
    )
}
#: argparse's English singular → the plural message that translates it (its count is
#: the number argparse fills in).
PLURALS: dict[str, Message] = {
    "expected %s argument": say.plural(
        "argparse.expected_n", "expected {count} argument", "expected {count} arguments"
    ),
}


class _Filled(str):
    """A plural message rendered with its count already in: argparse's ``% count``
    after :func:`ngettext` leaves it as it is."""

    __slots__ = ()

    def __mod__(self, values: object) -> str:
        return str(self)


def gettext(msgid: str, locale: str) -> str:
    """argparse's ``msgid`` in ``locale`` (as it is if no message declares it)."""
    message = WORDS.get(msgid)
    return msgid if message is None else message().render(locale)


def ngettext(singular: str, plural: str, count: int, locale: str) -> str:
    """argparse's ``singular``/``plural`` for ``count`` in ``locale``; a plural
    message declared for it comes back with its count filled in."""
    message = PLURALS.get(singular)
    if message is None:
        return singular if count == 1 else plural
    return _Filled(message(count=count).render(locale))
