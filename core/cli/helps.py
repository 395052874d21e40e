"""``--help`` and argparse's own words in the operator's language.

The help of every command (its ``help=``, ``description=``, and the metavars that are
words) is declared as messages of the ``rollbridge`` domain and handed to argparse
as :class:`Help`: a ``str`` holding the English, which argparse reads as it always
has, that keeps the message it came from. argparse's own words ("usage:",
"options:", "the following arguments are required: %s", …) are messages of the same
domain too (:mod:`rollbridge.cli.argparse_words`), looked up by argparse's English.

Nothing is translated while the parser is built: :func:`speaking` is in force only
while :func:`rollbridge.cli.main` parses the command line, and only what is printed
then — a help, a usage error — is rendered in the operator's language, by
:class:`Formatter` and by the lookups argparse makes through its module's ``_`` and
``ngettext`` (the standard library's gettext functions, which :func:`speaking`
replaces for its duration). A command that parses without error looks up nothing
and reads no catalogue.

The language is the one the command prints in: ``--locale`` as the command line
gives it (read from ``argv`` before parsing: the help is printed while parsing,
before ``--locale`` is read as an option; ``catalogs``' ``--locale`` names
catalogues, not a language to print in), else the environment's
(:func:`rollbridge.i18n.environment_locale`). Outside :func:`speaking` (a test
formatting a parser's help) everything reads in English.

argparse's ``_`` and ``ngettext`` are the module's, one for the whole process: the
language and the command line are kept per thread, so that two threads each parsing
a command line (a test harness, a program calling :func:`rollbridge.cli.main` from
threads) each read their own, and any other thread's argparse meanwhile reads its
words as before; the first :func:`speaking` to begin puts rollbridge's lookups in,
the last to end puts the standard library's back, whatever order they end in.
"""

from __future__ import annotations

import argparse
import copy
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from rollbridge import i18n
from rollbridge.text import Message, Text

__all__ = ["Formatter", "Help", "help_locale", "shown", "speaking"]

#: The commands whose ``--locale`` is no language to print in.
_OTHER_LOCALE = frozenset({"catalogs"})
#: The shortest abbreviation of ``--locale`` taken without the parser to ask
#: (``--lo`` could also be ``serve``'s ``--log-level``).
_SHORTEST = len("--loc")


class Help(str):
    """A help text, a description or a metavar as argparse reads it (its English),
    keeping the declared message that renders it in another language.

    :param message: the declared message (``say("cli.help.…", "…")``).
    :param args: its arguments, if its template names any.
    """

    text: Text

    def __new__(cls, message: Message, **args: Any) -> Help:
        text = message(**args)
        made = super().__new__(cls, text.render())
        made.text = text
        if not any(character.isspace() for character in made):  # a metavar: FILE
            _WORDS[made] = made
        return made


class _Speaking(threading.local):
    """What :func:`speaking` set in this thread: the command line, and the language
    found in it (None outside :func:`speaking`)."""

    argv: list[str] | None = None
    locale: str | None = None
    parser: argparse.ArgumentParser | None = None


_speaking = _Speaking()


class _Installed:
    """argparse's own ``_`` and ``ngettext``, kept while rollbridge's lookups stand in
    for them, and how many :func:`speaking` are in force (in all threads)."""

    lock = threading.Lock()
    depth = 0
    before: tuple[Callable[..., str], Callable[..., str]] | None = None


def _given_locale(argv: Sequence[str], parser: argparse.ArgumentParser | None = None) -> str | None:
    """What ``argv`` gives as ``--locale`` (the last, as argparse keeps it), read as
    argparse reads options: before any ``--``, written out or abbreviated as the
    command's parser (found in ``parser``) takes it (``--lo`` where no other option of
    the command begins so; ``--loc`` when there is no parser to ask), with its value
    after ``=`` or as the next word; None for ``catalogs``."""
    given = None
    words = [token for token in argv if not token.startswith("-")]
    if words and words[0] in _OTHER_LOCALE:
        return None
    options = _command_options(parser, argv) if parser is not None else None
    for index, token in enumerate(argv):
        if token == "--":
            break
        name, equals, value = token.partition("=")
        if not _names_locale(name, options):
            continue
        if equals:
            given = value
        elif index + 1 < len(argv):
            given = argv[index + 1]
    return given


def _command_options(parser: argparse.ArgumentParser, argv: Sequence[str]) -> list[str]:
    """The option strings of the command ``argv`` names (``table create``'s)."""
    for token in argv:
        if token == "--":
            break
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction) and token in action.choices:
                parser = action.choices[token]
    return list(parser._option_string_actions)


def _names_locale(name: str, options: list[str] | None) -> bool:
    """Whether the option ``name`` is ``--locale`` as argparse reads it: written out,
    or a prefix of it that no other of the command's ``options`` begins with (``--loc``
    and longer where the command has no ``--locale``: ``rollbridge table --loc cs``)."""
    if name == "--locale":
        return True
    if len(name) <= len("--") or not "--locale".startswith(name):
        return False
    if options is None or "--locale" not in options:  # no parser, or none of its own
        return len(name) >= _SHORTEST
    return all(option == "--locale" for option in options if option.startswith(name))


def help_locale() -> str:
    """The language help and usage errors are printed in (English outside
    :func:`speaking`): the command line's ``--locale`` where it names a language
    rollbridge speaks, else the environment's."""
    if _speaking.argv is None:
        return i18n.DEFAULT_LOCALE
    if _speaking.locale is None:
        given = _given_locale(_speaking.argv, _speaking.parser)
        chosen = i18n.negotiate(given) if given is not None else None
        _speaking.locale = chosen or i18n.environment_locale() or i18n.DEFAULT_LOCALE
    return _speaking.locale


def shown(text: str | None) -> str | None:
    """``text`` as the operator reads it: a :class:`Help` in their language, one of
    argparse's words in their language, anything else as it is."""
    if text is None:
        return None
    locale = help_locale()
    if locale == i18n.DEFAULT_LOCALE:
        return text
    if isinstance(text, Help):
        return text.text.render(locale)
    return _gettext(text)


#: argparse's words whose ``%s`` lists arguments by their names (metavars among them).
_NAMING = frozenset(
    {
        "the following arguments are required: %s",
        "one of the arguments %s is required",
        "not allowed with argument %s",
    }
)
#: The metavars that are words, by their English (``COMMAND``): what an argument's
#: name in a list of names (:data:`_NAMING`) is looked up in.
_WORDS: dict[str, Help] = {}
_SEPARATORS = re.compile(r"(, | )")


class _Filling(str):
    """One of argparse's words in the operator's language, whose ``%`` puts the names
    of arguments in that language too: a :class:`Help` among its values (the metavar
    in "argument COMMAND: …"), or, in a list of names (:data:`_NAMING`), a metavar
    that is a word."""

    names: bool = False

    def __mod__(self, values: Any) -> str:
        if isinstance(values, dict):
            values = {name: _value(value) for name, value in values.items()}
        elif isinstance(values, tuple):
            values = tuple(_value(value) for value in values)
        elif self.names and isinstance(values, str) and not isinstance(values, Help):
            values = "".join(_value(_WORDS.get(part, part)) for part in _SEPARATORS.split(values))
        else:
            values = _value(values)
        return str(self) % values


def _value(value: Any) -> Any:
    return shown(value) if isinstance(value, Help) else value


# argparse's words are declared only when a help or an error is printed: a command
# that parses without error does not pay for it.
def _gettext(msgid: str) -> str:
    if _speaking.argv is None and _Installed.before is not None:  # another thread's
        return _Installed.before[0](msgid)
    locale = help_locale()
    if locale == i18n.DEFAULT_LOCALE:
        return msgid
    from rollbridge.cli import argparse_words

    filling = _Filling(argparse_words.gettext(msgid, locale))
    filling.names = msgid in _NAMING
    return filling


def _ngettext(singular: str, plural: str, count: int) -> str:
    if _speaking.argv is None and _Installed.before is not None:  # another thread's
        return _Installed.before[1](singular, plural, count)
    locale = help_locale()
    if locale == i18n.DEFAULT_LOCALE:
        return singular if count == 1 else plural
    from rollbridge.cli import argparse_words

    return argparse_words.ngettext(singular, plural, count, locale)


@contextmanager
def speaking(argv: Sequence[str], parser: argparse.ArgumentParser | None = None) -> Iterator[None]:
    """For its duration, help and argparse's words read in the language ``argv``
    asks for (:func:`help_locale`; ``--locale`` abbreviated as ``parser``, the parser
    that reads ``argv``, takes it): argparse's module-level ``_`` and ``ngettext``
    are this module's lookups, and :class:`Formatter` renders the help's messages.
    In this thread only: another thread's lookups meanwhile are argparse's own, and
    argparse has its own back once the last :func:`speaking` of any thread ends."""
    module: Any = argparse
    outer = (_speaking.argv, _speaking.locale, _speaking.parser)  # one inside another
    with _Installed.lock:
        if _Installed.depth == 0:
            _Installed.before = (module._, module.ngettext)
            module._, module.ngettext = _gettext, _ngettext
        _Installed.depth += 1
    _speaking.argv, _speaking.locale, _speaking.parser = list(argv), None, parser
    try:
        yield
    finally:
        _speaking.argv, _speaking.locale, _speaking.parser = outer
        with _Installed.lock:
            _Installed.depth -= 1
            if _Installed.depth == 0 and _Installed.before is not None:
                module._, module.ngettext = _Installed.before
                _Installed.before = None


class Formatter(argparse.HelpFormatter):
    """argparse's help formatter, rendering help texts, descriptions, section titles
    and metavars in :func:`help_locale`'s language."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        return shown(action.help)

    def start_section(self, heading: str | None) -> None:
        super().start_section(shown(heading))

    def add_text(self, text: str | None) -> None:
        super().add_text(shown(text))

    def _metavar_formatter(
        self, action: argparse.Action, default_metavar: str
    ) -> Callable[[int], tuple[str, ...]]:
        metavar = action.metavar
        if isinstance(metavar, Help) and help_locale() != i18n.DEFAULT_LOCALE:
            action = copy.copy(action)
            action.metavar = shown(metavar)
        return super()._metavar_formatter(action, default_metavar)
