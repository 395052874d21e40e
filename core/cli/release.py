"""``rollbridge foundry-release``: build the Foundry module's zip and manifest
(the work is done by :mod:`rollbridge.adapters.foundry.release`)."""

from __future__ import annotations

import argparse

from rollbridge.adapters.foundry import release
from rollbridge.cli.helps import Help
from rollbridge.cli.locales import add_locale_option
from rollbridge.text import Messages

__all__ = ["add_parsers"]

say = Messages("rollbridge")


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
        description=Help(release.DESCRIPTION),
    )
    release.add_arguments(parser)
    add_locale_option(parser)  # its help and usage errors in that language
    parser.set_defaults(handler=release.run)
