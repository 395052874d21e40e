"""``rollbridge check [FILE]``: pay ahead, for every table of a SQLite file, the
work the first ``state`` with ``undone`` does on a file an earlier rollbridge
brought to schema 7 (each table's log rows without undos read once: 2.3–7.7 s at
40,000 retained events, while the player waits), and write in the file that it is
done (:meth:`~rollbridge.stores.sqlite.SQLiteStore.check_undos`).

Safe while ``rollbridge serve`` runs on the file: it reads in its own read
transaction and writes one record per table, waiting for the server's write lock as
a commit does; the server's next first undone read of a table finds it written.
Progress on stderr (a line per table with rows to read), the summary on stdout.
Exit status 0: every table checked; 3: a table holds a damaged row (named; the other
tables checked); 1 an error, 2 a usage error, as every command
(docs/operations.md, "Paying the first undone read ahead").
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rollbridge.cli.db_option import add_db_option
from rollbridge.cli.helps import Help
from rollbridge.cli.json_option import add_json_option
from rollbridge.cli.locales import add_locale_option
from rollbridge.cli.render import print_json
from rollbridge.text import Messages
from rollbridge.visible import visible

__all__ = ["DAMAGED_EXIT", "add_parsers"]

#: The exit status of a check that found a damaged log row.
DAMAGED_EXIT = 3

say = Messages("rollbridge")
# Translators: progress on stderr; {table} a table's id, {number} of {tables} tables,
# {count} the log rows about to be read.
READING = say.plural(
    "cli.check.reading",
    "checking table {table} ({number} of {tables}): reading {count} log row",
    "checking table {table} ({number} of {tables}): reading {count} log rows",
)
# Translators: the summary; {path} the database file; {count} its tables; {read} those
# whose log was read now, {before} those checked before (nothing read).
DONE = say.plural(
    "cli.check.done",
    "checked {path}: {count} table, {read} read now, {before} checked before; no first "
    "state with undone reads its log again",
    "checked {path}: {count} tables, {read} read now, {before} checked before; no first "
    "state with undone reads their logs again",
)
# Translators: {path} the database file; {table} a table's id; {seqs} the seqs of its
# damaged log rows (1-4, 9-9). Exit status 3.
DAMAGED = say(
    "cli.check.damaged",
    "{path}: table {table} has log rows that cannot be read (seqs {seqs}): every state "
    "with undone reaching them reports them, and rollbridge check reads the table again "
    "each time; restore the file from a backup taken before the damage",
)
# Translators: {where} is a Redis server; --db is an option, not translated.
REDIS = say(
    "cli.check.redis",
    "rollbridge check reads a SQLite file, but --redis names a Redis server ({where}): "
    "a Redis store fills its undos as it serves, nothing to check; give --db FILE or FILE",
)

# Translators: FILE and --db are the command's argument and option, not translated
# (FILE as the help shows it in your language).
FILE_AND_DB = say("cli.check.file_and_db", "give the file as FILE or as --db, not both")


def add_parsers(commands: argparse._SubParsersAction) -> None:
    """Add ``check``."""
    parser = commands.add_parser(
        "check",
        help=Help(
            say(
                "cli.help.check",
                "read ahead what each table's first state with undone reads on a file an "
                "earlier release upgraded (safe while rollbridge serve runs on it)",
            )
        ),
    )
    parser.add_argument(
        "db",
        nargs="?",
        type=Path,
        metavar="FILE",
        help=Help(
            say(
                "cli.help.check.file",
                "SQLite file (default: --db, $ROLLBRIDGE_DB, else in the user data directory)",
            )
        ),
    )
    add_db_option(parser, dest="db_option")
    parser.add_argument(
        "--redis",
        metavar="URL",
        help=Help(say("cli.help.check.redis", "refused: a Redis store has nothing to check")),
    )
    add_json_option(parser)
    add_locale_option(parser)
    parser.set_defaults(handler=_check)


def _check(args: argparse.Namespace) -> int:
    from rollbridge.cli.stores import open_store
    from rollbridge.exceptions import InvalidRequest

    if args.redis is not None:
        from rollbridge.stores.redis_url import without_password

        raise InvalidRequest(REDIS(where=without_password(args.redis)), code="redis_check",
                             details={"field": "redis"})  # fmt: skip
    if args.db is not None and args.db_option is not None:
        raise InvalidRequest(FILE_AND_DB(), details={"field": "db"})
    args.db = _sqlite_only(args.db or args.db_option)
    store = open_store(args, create=False)  # an older file is brought up to date, as
    try:  # by every command that writes
        tables = store.tables()
        done = [_table(store, table.id, n, len(tables), args.locale)
                for n, table in enumerate(tables, 1)]  # fmt: skip
    finally:
        store.close()
    done = [d for d in done if d is not None]  # a table deleted meanwhile: nothing to check
    damaged = [d for d in done if d.damaged]
    if args.json:
        print_json({"path": str(store.path), "tables": [
            {"table": d.table, "read": d.read, "checked_before": d.before,
             "damaged": [list(r) for r in d.damaged]} for d in done]})  # fmt: skip
        return DAMAGED_EXIT if damaged else 0
    for d in damaged:
        seqs = ", ".join(f"{first}-{last}" for first, last in d.damaged)
        text = DAMAGED(path=str(store.path), table=repr(d.table), seqs=seqs)
        sys.stderr.write(f"rollbridge: {visible(text.render(args.locale))}\n")
    before = sum(d.before for d in done)
    text = DONE(path=str(store.path), count=len(done), read=len(done) - before - len(damaged),
                before=before)  # fmt: skip
    sys.stdout.write(visible(text.render(args.locale)) + "\n")
    return DAMAGED_EXIT if damaged else 0


def _sqlite_only(given: Path | None) -> Path:
    """The SQLite file to check: FILE, else ``--db``, else ``$ROLLBRIDGE_DB`` or the user
    data directory — never the Redis server ``$ROLLBRIDGE_REDIS`` names."""
    from rollbridge.paths import default_db_path

    return Path(given or default_db_path(create=False))


def _table(store: Any, table_id: str, number: int, tables: int, locale: str) -> Any:
    """Check one table, saying on stderr that its log is read when it is."""

    def reading(rows: int) -> None:
        said = READING(table=repr(table_id), number=number, tables=tables, count=rows)
        sys.stderr.write(f"rollbridge: {visible(said.render(locale))}\n")
        sys.stderr.flush()

    from rollbridge.exceptions import UnknownTable

    try:
        return store.check_undos(table_id, reading)
    except UnknownTable:  # deleted since the file's tables were listed
        return None
