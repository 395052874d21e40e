"""``rollbridge foundry-release``: build the Foundry module's zip and manifest (the
work is done by :mod:`rollbridge.adapters.foundry.release`, which imports nothing of
the CLI: adapters import the contract and the protocol only, DESIGN.md). Its options'
help, description and metavars are declared messages, read in the operator's
language like every command's; run alone (``python -m
rollbridge.adapters.foundry.release``, which hands over to :func:`main`), its help
and usage errors follow the environment's language."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from rollbridge.adapters.foundry import release
from rollbridge.cli.helps import Formatter, Help, speaking
from rollbridge.cli.locales import add_locale_option
from rollbridge.cli.render import error_words
from rollbridge.exceptions import RollbridgeError
from rollbridge.i18n import DEFAULT_LOCALE, environment_locale
from rollbridge.text import Messages
from rollbridge.visible import visible

__all__ = ["add_arguments", "add_parsers", "main"]

say = Messages("rollbridge")
DESCRIPTION = say(
    "cli.help.release.description",
    "Build the Foundry VTT module's zip and its manifest, module.json, with rollbridge's version.",
)
# Translators: a metavar, the name of a value an option takes; write it in capitals.
FOLDER = say("cli.help.folder", "FOLDER")
OUT = say(
    "cli.help.release.out", "the folder to write the zip and module.json to (default %(default)s)"
)
BASE_URL = say(
    "cli.help.release.base_url",
    "where the zip and module.json will be published: the manifest's URLs are made from it",
)
MANIFEST_URL = say(
    "cli.help.release.manifest_url", "the manifest's own URL (instead of --base-url's)"
)
DOWNLOAD_URL = say("cli.help.release.download_url", "the zip's URL (instead of --base-url's)")
UNPACKED = say(
    "cli.help.release.unpacked",
    "instead of the zip: write the module, as Foundry loads it, into this folder (for development)",
)
#: How the command calls itself when it runs alone.
PROG = "python -m rollbridge.adapters.foundry.release"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The release options, for ``rollbridge foundry-release`` and :func:`main`."""
    folder = Help(FOLDER)
    parser.add_argument("--out", default="dist/foundry", metavar=folder, help=Help(OUT))
    parser.add_argument("--base-url", metavar="URL", help=Help(BASE_URL))
    parser.add_argument("--manifest-url", metavar="URL", help=Help(MANIFEST_URL))
    parser.add_argument("--download-url", metavar="URL", help=Help(DOWNLOAD_URL))
    parser.add_argument("--unpacked", metavar=folder, help=Help(UNPACKED))


def add_parsers(commands: argparse._SubParsersAction) -> None:
    """Add ``foundry-release``."""
    parser = commands.add_parser(
        "foundry-release",
        help=Help(
            say(
                "cli.help.foundry_release",
                "build the Foundry VTT module's zip and module.json (version = rollbridge's)",
            )
        ),
        description=Help(DESCRIPTION),
    )
    add_arguments(parser)
    add_locale_option(parser)  # its help and usage errors in that language
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    """Build the release; the paths it prints with their control characters shown,
    not obeyed (a folder's name may hold ESC or a line break)."""
    return release.run(args, shown=visible)


class _Parser(argparse.ArgumentParser):
    """argparse, but what a usage error quotes back (an option not known) made
    :func:`~rollbridge.visible.visible`, as the CLI's usage errors have it."""

    def error(self, message: str) -> NoReturn:
        """Print the usage and ``message``, escaped; exit status 2."""
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {visible(message)}\n")


def main(argv: Sequence[str] | None = None) -> int:
    """The command run alone: its help and usage errors in the environment's
    language, as the CLI's; a refusal in one line, no traceback."""
    parser = _Parser(prog=PROG, description=Help(DESCRIPTION), formatter_class=Formatter)
    add_arguments(parser)
    given = sys.argv[1:] if argv is None else list(argv)
    with speaking(given, parser):
        args = parser.parse_args(given)
    try:
        return _run(args)
    except RollbridgeError as exc:  # as the CLI says it: no traceback
        locale = environment_locale() or DEFAULT_LOCALE
        # the folder's name escaped, as the CLI's errors have it: a control character
        # in it is shown, not obeyed, and the error stays one line
        sys.stderr.write(f"{parser.prog}: error: {exc.code}: {error_words(exc, locale)}\n")
        return 1
