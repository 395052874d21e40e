"""``rollbridge catalogs``: extract, update, compile and check a domain's
translations (:mod:`rollbridge.catalogs`; needs Babel, a development dependency).

::

    rollbridge catalogs update plugins/sr2              # domain = the folder's name
    rollbridge catalogs update core adapters --domain rollbridge
    rollbridge catalogs check plugins/sr2               # exit 1 and a list when wrong
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rollbridge.cli import shared_help
from rollbridge.cli.helps import Help
from rollbridge.exceptions import InvalidRequest
from rollbridge.i18n import LOCALES
from rollbridge.text import Messages
from rollbridge.words import counted

__all__ = ["add_parsers"]

say = Messages("rollbridge")


def add_parsers(commands: argparse._SubParsersAction) -> None:
    """Add ``catalogs update`` and ``catalogs check``."""
    parser = commands.add_parser(
        "catalogs",
        help=Help(
            say(
                "cli.help.catalogs", "extract, update, compile and check translations (needs Babel)"
            )
        ),
    )
    actions = parser.add_subparsers(
        dest="catalogs_command", metavar=Help(shared_help.ACTION), required=True
    )
    update = actions.add_parser(
        "update",
        help=Help(
            say(
                "cli.help.catalogs.update",
                "extract the messages, merge them into each .po, compile the .mo files",
            )
        ),
    )
    check = actions.add_parser(
        "check",
        help=Help(
            say(
                "cli.help.catalogs.check",
                "report untranslated, fuzzy or misfitting messages and stale .mo files",
            )
        ),
    )
    for action in (update, check):
        action.add_argument(
            "sources",
            type=Path,
            nargs="+",
            help=Help(
                say(
                    "cli.help.catalogs.sources",
                    "the package folders (plugins/sr2; core adapters): catalogues in the first",
                )
            ),
        )
        action.add_argument(
            "--domain",
            help=Help(
                say(
                    "cli.help.catalogs.domain",
                    "the message domain (default: the first folder's name)",
                )
            ),
        )
        action.add_argument(
            "--locale",
            dest="locales",
            action="append",
            metavar="LANG",
            help=Help(
                say(
                    "cli.help.catalogs.locale",
                    "a language to keep (repeatable; default: {locales})",
                ),
                locales=", ".join(LOCALES[1:]),
            ),
        )
    update.set_defaults(handler=_update)
    check.add_argument(
        "--partial",
        action="store_true",
        help=Help(
            say("cli.help.catalogs.partial", "untranslated and fuzzy messages are not problems")
        ),
    )
    check.set_defaults(handler=_check)


def _domain_and_locales(args: argparse.Namespace) -> tuple[list[Path], str, list[str]]:
    sources = [source.resolve() for source in args.sources]
    for given, source in zip(args.sources, sources, strict=True):
        if not source.is_dir():
            raise InvalidRequest(f"catalogs: {given} is not a folder")
    domain = args.domain or sources[0].name
    return sources, domain, list(args.locales or LOCALES[1:])


def _update(args: argparse.Namespace) -> int:
    from rollbridge import catalogs

    sources, domain, locales = _domain_and_locales(args)
    for path in catalogs.update(sources, domain, locales):
        print(f"wrote {path}")
    return 0


def _check(args: argparse.Namespace) -> int:
    from rollbridge import catalogs

    sources, domain, locales = _domain_and_locales(args)
    problems = catalogs.check(sources, domain, locales, complete=not args.partial)
    for problem in problems:
        sys.stdout.write(f"{domain} {problem}\n")
    if problems:
        sys.stderr.write(
            f"rollbridge: {counted(len(problems), 'problem')} in the {domain} catalogues\n"
        )
        return 1
    print(f"{domain}: {', '.join(locales)} complete")
    return 0
