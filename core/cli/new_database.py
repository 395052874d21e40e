"""A database file that a command is about to make, said on stderr.

``rollbridge admin-token`` makes a database where ``--db`` (or ``$ROLLBRIDGE_DB``, or
the user data directory) names none, as a first start needs. Given a mistyped
``--db``, or run without one beside a server started with one, it made a new file
and printed a token that the running server then refused (401) without a word on
why. Now it warns, naming the file it made and the option that would name the
server's (docs/operations.md, "Admin token and API").
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from rollbridge.cli.stores import redis_url
from rollbridge.text import Messages
from rollbridge.visible import shell_word, visible

__all__ = ["NEW_DATABASE", "database_to_make", "warn_made"]

say = Messages("rollbridge")
# Translators: a warning after rollbridge admin-token made a database file where there
# was none; {path} the file; {word} the same file as one word of a command (quoted for
# a shell where it needs it). --db and $ROLLBRIDGE_DB are typed as they are.
NEW_DATABASE = say(
    "cli.store.new_database",
    "there was no database {path}: a new one was made for this token, and only a server "
    "serving that file (rollbridge serve --db {word}) takes it; if you meant a running "
    "server's database, give its --db (or $ROLLBRIDGE_DB) and make the token again",
)


def database_to_make(args: argparse.Namespace) -> Path | None:
    """The SQLite file ``args`` name when there is nothing there yet (the command will
    make it): a symbolic link leading to no file is followed, as SQLite does (it made
    the file it leads to without a word); None for Redis, or a path where something
    already is."""
    if redis_url(args):
        return None
    from rollbridge.paths import default_db_path

    path = Path(args.db or default_db_path(create=False))
    return None if os.path.exists(path) else path


def warn_made(path: Path, locale: str) -> None:
    """Say on stderr that ``path`` was made as a new database (:data:`NEW_DATABASE`),
    with the ``serve`` command that serves it as it can be typed (a path with a space
    was cut in two by the shell)."""
    text = NEW_DATABASE(path=str(path), word=shell_word(str(path))).render(locale)
    sys.stderr.write(f"rollbridge: warning: {visible(text)}\n")
