"""``--json``, the option of the commands whose answer a script may read as JSON
(and whose errors, with it, are JSON on stdout: :mod:`rollbridge.cli`)."""

from __future__ import annotations

import argparse

from rollbridge.cli.helps import Help
from rollbridge.text import Messages

__all__ = ["add_json_option"]

say = Messages("rollbridge")


def add_json_option(parser: argparse.ArgumentParser) -> None:
    """Give a sub-command the ``--json`` option (``args.json``)."""
    parser.add_argument(
        "--json", action="store_true", help=Help(say("cli.help.json", "print JSON"))
    )
