"""``rollbridge new-plugin ID [FOLDER]``: write a third-party ruleset's package —
pyproject with the entry point, the ruleset, its messages and catalogue folder, the
conformance suite as its test — ready to install (:mod:`rollbridge.skeleton`).

::

    rollbridge new-plugin coin            # into ./rollbridge-coin
    rollbridge new-plugin coin ~/src/coin
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rollbridge.cli.helps import Help
from rollbridge.cli.locales import add_locale_option
from rollbridge.skeleton import write_skeleton
from rollbridge.text import Messages

__all__ = ["add_parsers"]

say = Messages("rollbridge")
WROTE = say("cli.new_plugin.wrote", "wrote {path}")
NEXT = say(
    "cli.new_plugin.next",
    "next: cd {folder} && pip install -e '.[test]' && python -m pytest tests "
    "(its README.md says the rest: languages, serving, playing)",
)


def add_parsers(commands: argparse._SubParsersAction) -> None:
    """Add ``new-plugin``."""
    parser = commands.add_parser(
        "new-plugin",
        help=Help(
            say(
                "cli.help.new_plugin",
                "write a new ruleset plugin's package: entry point, ruleset, messages, tests",
            )
        ),
    )
    parser.add_argument(
        "id",
        help=Help(say("cli.help.new_plugin.id", "the ruleset's id (coin): 1-32 of a-z, 0-9 and _")),
    )
    parser.add_argument(
        "folder",
        type=Path,
        nargs="?",
        help=Help(
            say(
                "cli.help.new_plugin.folder",
                "a new or empty folder (default: ./rollbridge-ID)",
            )
        ),
    )
    add_locale_option(parser)
    parser.set_defaults(handler=_new_plugin)


def _new_plugin(args: argparse.Namespace) -> int:
    folder = args.folder if args.folder is not None else Path(f"rollbridge-{args.id}")
    for path in write_skeleton(args.id, folder):
        print(WROTE(path=str(path)).render(args.locale))
    print(NEXT(folder=str(folder)).render(args.locale))
    return 0
