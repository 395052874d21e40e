"""``--db``, the SQLite file option of the commands that read or copy one whole file
(``backup``, ``check``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from rollbridge.cli.helps import Help
from rollbridge.text import Messages

__all__ = ["add_db_option"]

say = Messages("rollbridge")


def add_db_option(parser: argparse.ArgumentParser, *, dest: str = "db") -> None:
    """Give a sub-command the ``--db PATH`` option (``args.<dest>``, a :class:`Path`)."""
    parser.add_argument(
        "--db",
        dest=dest,
        type=Path,
        help=Help(
            say(
                "cli.help.backup.db",
                "SQLite file (default: $ROLLBRIDGE_DB, else in the user data directory)",
            )
        ),
    )
