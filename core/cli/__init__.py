"""The ``rollbridge`` command line.

Each sub-command lives in its own module and adds itself to the parser with
``add_parser(subparsers)``; the handler it sets returns the exit status.
Errors are one line on stderr and a non-zero exit, never a traceback; the
message is in the command's ``--locale`` (else the environment's language), after
the fixed ``rollbridge: error: CODE:`` head that scripts may read. With ``--json``
an error is JSON on stdout instead, in place of the answer, as the admin API and the
protocol send one (``{"code", "message", "details"?}``, :func:`rollbridge.cli.render.
print_error`), with the same exit status; a usage error too (``invalid_request``,
exit status 2), and Ctrl-C (``interrupted``, exit status 130). A command may
set a ``hint`` (``hint(args, error) -> Text | None``): words on what would help, in
parentheses at the line's end (``rollbridge resolve``: where its ruleset's
parameters are listed).

``--help`` and the usage errors are in the same language, argparse's own words with
them (:mod:`rollbridge.cli.helps`): each command declares its help texts as messages
and hands them to argparse as :class:`~rollbridge.cli.helps.Help`.
"""

from __future__ import annotations

import argparse
import logging
import sys
import threading
from collections.abc import Sequence

from rollbridge import __version__
from rollbridge.cli import (
    admin,
    backup,
    catalogs,
    check,
    connect,
    migrate,
    new_plugin,
    odds,
    offline,
    release,
    serve,
    tables,
    verify,
)
from rollbridge.cli.helps import Formatter, Help, help_locale, speaking
from rollbridge.cli.locales import chosen_locale, default_locale
from rollbridge.cli.render import error_words, print_error, print_error_json
from rollbridge.exceptions import InvalidRequest, RollbridgeError
from rollbridge.text import Messages
from rollbridge.visible import visible

__all__ = ["build_parser", "main"]

say = Messages("rollbridge")
INTERRUPTED = say("cli.interrupted", "interrupted")
# Translators: after a usage error, in parentheses; {prog} is the command (rollbridge
# table create), --help stays as it is.
SEE_HELP = say("cli.usage.see_help", "see {prog} --help")
#: The code of Ctrl-C's JSON with ``--json`` (exit status 130): no request's error,
#: so none of :mod:`rollbridge.exceptions`'; stable like theirs.
INTERRUPTED_CODE = "interrupted"

#: Modules that contribute sub-commands, in help order.
COMMAND_MODULES = (
    serve, tables, admin, backup, check, migrate, connect, offline, odds, verify, release, catalogs,
    new_plugin,
)  # fmt: skip


class _EngineLine(logging.Handler):
    """A ruleset's failure, as the engine logs it, in one line on stderr (its
    exception's type and text, no traceback), for the offline commands; ``serve``'s
    configured log has it in full."""

    def emit(self, record: logging.LogRecord) -> None:
        exc = record.exc_info[1] if record.exc_info else None
        cause = f": {type(exc).__name__}: {exc}" if exc is not None else ""
        sys.stderr.write(f"rollbridge: {visible(record.getMessage() + cause)}\n")


class _WarningLine(logging.Handler):
    """A warning of the store or the dice key (a new dice key made beside a database
    that holds tables, a table a restore could not move) in the CLI's own form,
    ``rollbridge: warning: …``, for every command but ``serve`` (whose log has it)."""

    def emit(self, record: logging.LogRecord) -> None:
        # a warning is one line: a line break in it is a path's (a folder's name)
        sys.stderr.write(f"rollbridge: warning: {visible(record.getMessage())}\n")


#: The loggers whose warnings the commands other than ``serve`` print (:class:`_WarningLine`).
WARNING_LOGGERS = ("rollbridge.dice", "rollbridge.store")


class _JsonErrors(threading.local):
    """Whether this thread's usage errors are JSON (:attr:`_Parser.json_errors`)."""

    on: bool = False


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line plus a hint, exit status 2; JSON on
    stdout (``invalid_request``) while :attr:`json_errors` is set (``--json`` given).
    Its help and its usage errors read in the operator's language
    (:mod:`rollbridge.cli.helps`); the head ``rollbridge: error:`` stays as it is,
    for scripts that read it."""

    #: Whether usage errors are JSON: :func:`main` sets it while it parses ``--json``,
    #: for its own thread (another thread's command line may have no ``--json``).
    json_errors = _JsonErrors()

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("formatter_class", Formatter)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def error(self, message: str) -> None:  # type: ignore[override]
        hint = SEE_HELP(prog=self.prog).render(help_locale())
        if _Parser.json_errors.on:
            print_error(InvalidRequest(message), hint=hint)
        else:
            # argparse quotes what was given (an invalid choice): escaped, one line
            sys.stderr.write(f"{self.prog}: error: {visible(message)} ({hint})\n")
        raise SystemExit(2)


def _asks_json(argv: Sequence[str]) -> bool:
    """Whether ``argv`` gives ``--json`` as argparse reads it: an option before any
    ``--`` (after it, ``--json`` is an argument: a formula, a file's name), written
    out, abbreviated as argparse takes it (``--js``), or with a value (``--json=1``,
    which argparse refuses: a usage error, then in JSON)."""
    for token in argv:
        if token == "--":
            return False
        name = token.split("=", 1)[0]
        if len(name) > 2 and "--json".startswith(name):
            return True
    return False


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser."""
    parser = _Parser(
        prog="rollbridge",
        description=Help(
            say("cli.help.description", "A bridge between virtual tabletops and game rules.")
        ),
    )
    parser.add_argument("--version", action="version", version=f"rollbridge {__version__}")
    commands = parser.add_subparsers(
        dest="command", metavar=Help(say("cli.help.command", "COMMAND")), parser_class=_Parser
    )
    commands.required = True
    for module in COMMAND_MODULES:
        module.add_parsers(commands)
    return parser


def _printable(*streams: object) -> None:
    """Let ``streams`` write what their encoding lacks, as ``\\u0441`` escapes: a
    terminal in Latin-1 (``PYTHONIOENCODING``, a legacy locale) given ``--locale ru``
    or a table's name in Cyrillic. Before, such a line ended the command with a
    traceback — ``table create`` after the table was made, its tokens never shown.
    A stream that writes with ``surrogateescape`` (Python's UTF-8 mode, on by itself in
    the C locale) is changed too: a lone surrogate a log's JSON holds as an escape
    (``"\\ud800"``, named in ``verify``'s report) is written as its escape, where it
    ended ``verify`` with a traceback."""
    for stream in streams:
        reconfigure = getattr(stream, "reconfigure", None)
        errors = getattr(stream, "errors", None)
        if reconfigure is not None and errors in ("strict", "surrogateescape"):
            reconfigure(errors="backslashreplace")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status."""
    _printable(sys.stdout)  # stderr escapes already
    parser = build_parser()
    given = sys.argv[1:] if argv is None else argv
    _Parser.json_errors.on = _asks_json(given)
    try:
        with speaking(given, parser):  # a help, a usage error: in the operator's language
            args = parser.parse_args(given)
    finally:
        _Parser.json_errors.on = False
    locale = default_locale()
    engine_line = _EngineLine(logging.ERROR)
    warning_line = _WarningLine(logging.WARNING)
    shown = [logging.getLogger(name) for name in ("rollbridge.engine", *WARNING_LOGGERS)]
    propagated = [logger.propagate for logger in shown]
    if args.command != "serve":  # the command prints these lines itself, and only so
        shown[0].addHandler(engine_line)
        for logger in shown[1:]:
            logger.addHandler(warning_line)
        for logger in shown:
            logger.propagate = False
    try:
        if hasattr(args, "locale"):  # the commands that print for players and GMs
            args.locale = locale = chosen_locale(args.locale)
        return int(args.handler(args) or 0)
    except RollbridgeError as exc:
        # the fixed head and the code stay as they are, for scripts that read them
        hint = getattr(args, "hint", None)  # a command's pointer to what would help
        pointer = hint(args, exc) if hint is not None else None
        said = pointer.render(locale) if pointer is not None else ""
        if getattr(args, "json", False):  # the answer a script reads: the error, as JSON
            print_error(exc, locale, said)
            return 1
        tail = f" ({visible(said)})" if said else ""
        # a path or a file's words may hold control characters, a line break among
        # them: escaped, but for the line breaks a message has by design (a list of
        # problems)
        sys.stderr.write(f"rollbridge: error: {exc.code}: {error_words(exc, locale)}{tail}\n")
        return 1
    except KeyboardInterrupt:
        said = INTERRUPTED().render(locale)
        if getattr(args, "json", False):  # a script reads one JSON document, this too
            print_error_json({"code": INTERRUPTED_CODE, "message": said})
        else:
            sys.stderr.write(f"rollbridge: {said}\n")
        return 130
    except BrokenPipeError:
        return 0
    finally:
        shown[0].removeHandler(engine_line)
        for logger, propagate in zip(shown, propagated, strict=True):
            logger.removeHandler(warning_line)
            logger.propagate = propagate


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
