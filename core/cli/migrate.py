"""``rollbridge migrate --from DB_FILE --to redis://HOST:PORT/N``: move tables to Redis;
``--from redis://… --to DB_FILE`` moves them back (:mod:`rollbridge.cli.migrate_back`):
which side is a Redis URL tells the direction, both or neither is refused
(``migrate_direction``). The rest of this docstring is the move to Redis.

Every table of the SQLite file (or the ones ``--table`` names) moves with its
retained event log, its idempotency replies and its join tokens, plus the admin
tokens and the dice key (:mod:`rollbridge.stores.migrate`). Nothing is written
when Redis holds one of the tables already. Each table is read back from Redis
and compared (counts and a SHA-256 checksum); the exit status is 0 when every
table matches, 1 on a mismatch or an error. The SQLite file is only read: stop
the server that uses it first, so that no change is made after the copy. While a
``rollbridge serve`` holds the file's lock, ``migrate`` refuses (``database_in_use``)
and writes nothing; while it runs, it holds that lock itself (making the lock file of
a file never served, and removing it when done), so no ``serve`` starts on the file
(:mod:`rollbridge.cli.serve_lock`). A ``--from`` that names no file is refused first
(``no_database``), nothing made and Redis not asked, saying whether its folder exists
(:func:`check_source`) and, when ``serve``'s own database is there, naming it.
Its progress (stderr), its report and its errors are in the language of ``--locale``,
as the other commands' (else the environment's); ``--json``'s report is the same in
every language.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
from pathlib import Path
from typing import Any

from rollbridge.cli import shared_help
from rollbridge.cli.helps import Help
from rollbridge.cli.locales import add_locale_option
from rollbridge.cli.migrate_lines import PROGRESS, PROGRESS_FROM, report_lines
from rollbridge.cli.render import print_json
from rollbridge.cli.values import positive
from rollbridge.exceptions import InvalidRequest, NotFound, RollbridgeError
from rollbridge.paths import file_in_the_way
from rollbridge.stores.base import CANNOT_OPEN, DEFAULT_RETAIN
from rollbridge.system_words import system_reason
from rollbridge.text import Messages, Text

__all__ = ["PROGRESS_FROM", "add_parsers", "check_source", "report_lines"]

say = Messages("rollbridge")
# Translators: {count} tables of a backup (docs/operations.md, "Backup and restore").
RESTORED = say.plural(
    "cli.migrate.restored",
    "the file is a backup: its {count} table was moved to a new epoch first (the file "
    "itself is unchanged)",
    "the file is a backup: its {count} tables were moved to a new epoch first (the file "
    "itself is unchanged)",
)
# Translators: --from names no file; {path} as given, {folder} the folder it names and
# {name} the file's name in it.
NOT_IN_FOLDER = say(
    "cli.migrate.not_in_folder",
    "no database file {path}: its folder {folder} exists, but holds no file {name};"
    " nothing to migrate",
)
# Translators: --from names no file, nor does its folder exist; {path} as given.
NO_FOLDER = say(
    "cli.migrate.no_folder",
    "no database file {path}: its folder {folder} does not exist either; nothing to migrate",
)
# Translators: after "cannot open {path}: "; --from is the option, typed as it is.
IS_FOLDER = say(
    "cli.migrate.is_folder", "it is a folder, not a database file: give --from the path of a file"
)
# Translators: after "cannot open {path}: "; --from is the option, typed as it is.
NOT_A_FILE = say(
    "cli.migrate.not_a_file",
    "it is not a regular file but a pipe, a device or a socket: give --from the path of a file",
)
# Translators: after "cannot open {path}: "; {file} is a part of the path given to
# --from (the option, typed as it is) that is a file where a folder must be.
FILE_AS_FOLDER = say(
    "cli.migrate.file_as_folder",
    "{file} is a file, not a folder: give --from the path of a file in a folder",
)
# Translators: said after a --from that names no database file, when the database that
# rollbridge serve uses without --db is there; {default} is its path, the command after
# the colon is typed as it is (URL: the Redis server's address).
SERVE_DATABASE = say(
    "cli.migrate.serve_database",
    "rollbridge serve's database without --db is {default}: rollbridge migrate --from"
    " {default} --to URL",
)

# Translators: a warning on stderr before the tables are moved; {where} names the Redis
# server, {path} the SQLite file; the settings' problems follow, one a line.
UNSAFE_TARGET = say(
    "cli.migrate.unsafe_target",
    "{where} would lose acknowledged changes, and the tables moved to it with them: keep "
    "{path} as their copy; rollbridge serve --redis refuses this Redis until its settings "
    "are fixed (docs/redis.md), or serves it with --redis-unsafe",
)


def add_parsers(commands: argparse._SubParsersAction) -> None:
    """Add ``migrate``."""
    migrate = commands.add_parser(
        "migrate",
        help=Help(
            say(
                "cli.help.migrate",
                "move tables from a SQLite file to Redis, or from Redis back to a SQLite "
                "file, verified",
            )
        ),
    )
    migrate.add_argument(
        "--from",
        "--db",
        dest="source",
        required=True,
        metavar=Help(say("cli.help.migrate.from_metavar", "DB_FILE|URL")),
        help=Help(
            say(
                "cli.help.migrate.from_either",
                "where the tables are, only read: the SQLite file (stop its server first: "
                "refused while a rollbridge serve runs on it), or the Redis server's URL "
                "(stop its serve --redis processes first); --db, as the other commands "
                "name it, too",
            )
        ),
    )
    migrate.add_argument(
        "--to",
        "--redis",
        dest="target",
        required=True,
        metavar=Help(say("cli.help.migrate.to_metavar", "URL|DB_FILE")),
        help=Help(
            say(
                "cli.help.migrate.to_either",
                "where the tables go: the Redis server, e.g. redis://127.0.0.1:6379/0, or "
                "a SQLite file (a new one, or one holding none of the tables); exactly "
                "one of --from and --to is a Redis URL; --redis, as the other commands "
                "name it, too",
            )
        ),
    )
    migrate.add_argument(
        "--processes-stopped",
        action="store_true",
        help=Help(
            say(
                "cli.help.migrate.processes_stopped",
                "from Redis only: move even while rollbridge serve --redis processes "
                "still claim it (a process killed keeps its claim a while): say so only "
                "once every one is stopped, since what they commit after the copy is "
                "lost; refused toward Redis",
            )
        ),
    )
    migrate.add_argument(
        "--table",
        dest="tables",
        action="append",
        metavar="ID",
        help=Help(
            say("cli.help.migrate.table", "move this table (repeat for more; default: every table)")
        ),
    )
    migrate.add_argument(
        "--retain",
        type=positive,
        default=DEFAULT_RETAIN,
        help=Help(shared_help.RETAIN),
    )
    migrate.add_argument(
        "--json",
        action="store_true",
        help=Help(shared_help.JSON_REPORT),
    )
    add_locale_option(migrate)
    migrate.set_defaults(handler=_migrate, hint=_hint)


# Translators: both --from and --to, or neither, are a Redis URL; {source} and
# {target} as given; redis:// stays as it is.
DIRECTION = say(
    "cli.migrate.direction",
    "--from {source} and --to {target}: exactly one of them must be a Redis URL "
    "(redis://HOST:PORT/N), the other a SQLite file, to say which way the tables move",
)

# Translators: --processes-stopped, --from, --to and serve are typed as they are;
# redis:// too.
STOPPED_TOWARD_REDIS = say(
    "cli.migrate.processes_stopped_to_redis",
    "--processes-stopped is for a move from Redis (--from redis://…), whose serve --redis "
    "processes may still claim it; toward Redis the file's own serve is what must be "
    "stopped, and the move is refused while one runs on it, said or not. Nothing was "
    "moved: leave --processes-stopped out",
)


def is_redis_url(value: str) -> bool:
    """Whether ``value`` names a Redis server (``redis://``, ``rediss://``,
    ``unix://``), not a file."""
    scheme, found, _rest = value.partition("://")
    return bool(found) and scheme.lower() in {"redis", "rediss", "unix"}


def _migrate(args: argparse.Namespace) -> int:
    from rollbridge.cli.serve_lock import hold_unserved

    back = is_redis_url(args.source)
    if back == is_redis_url(args.target):
        raise InvalidRequest(DIRECTION(source=args.source, target=args.target),
                             code="migrate_direction",
                             details={"from": args.source, "to": args.target})  # fmt: skip
    if not back and args.processes_stopped:  # it said nothing here: refused, not ignored
        raise InvalidRequest(STOPPED_TOWARD_REDIS(), code="migrate_option",
                             details={"option": "--processes-stopped"})  # fmt: skip
    if back:
        from rollbridge.cli.migrate_back import move_back

        return move_back(args)
    args.source = Path(args.source)
    check_source(args.source)  # before anything is made: no lock file, no Redis written
    lock = hold_unserved(args.source)  # before the file is read
    try:
        return _move(args)
    finally:
        if lock is not None:
            lock.release()


def check_source(path: Path) -> None:
    """Refuse a ``--from`` that names no file, saying why: a folder; a pipe, a device
    or a socket; a file where a folder must be (``f/x.db``); a name the system refuses
    (too long, a folder not searchable, a symbolic link that loops: its reason); a
    folder that exists but holds no such file; a folder that does not exist either.

    :raises NotFound: code ``no_database`` (as :class:`~rollbridge.stores.migrate.
        SQLiteSource` refuses it), ``details`` the path.
    """
    if os.path.isfile(path):  # os.path's: False, never an error, for a path not searchable
        return
    if os.path.isdir(path):
        text = CANNOT_OPEN(path=str(path), error=IS_FOLDER())
    elif os.path.exists(path):  # neither a file nor a folder: a pipe, a device, a socket
        text = CANNOT_OPEN(path=str(path), error=NOT_A_FILE())
    else:
        try:
            os.stat(path)
        except FileNotFoundError:
            pass
        except OSError as exc:  # not "no such file": the path itself cannot be one
            # "not a directory": a file in the way; a symbolic link that loops is none
            blocker = file_in_the_way(path.parent) if exc.errno == errno.ENOTDIR else None
            error = FILE_AS_FOLDER(file=str(blocker)) if blocker else system_reason(exc)
            raise NotFound(
                CANNOT_OPEN(path=str(path), error=error),
                code="no_database",
                details={"path": str(path)},
            ) from None
        folder = path.parent
        said = str(folder) if str(folder) != "." else f".{os.sep}"
        if os.path.isdir(folder):
            text = NOT_IN_FOLDER(path=str(path), folder=said, name=path.name)
        else:
            text = NO_FOLDER(path=str(path), folder=said)
    raise NotFound(text, code="no_database", details={"path": str(path)})


def _hint(args: argparse.Namespace, error: RollbridgeError) -> Text | None:
    """Where ``serve``'s database is (without ``--db``: ``$ROLLBRIDGE_DB``, else the
    user data directory), when ``--from`` names no file and that one is there."""
    from rollbridge.paths import default_db_path

    if error.code != "no_database":
        return None
    default = default_db_path(create=False)  # a hint makes no folder
    if not os.path.isfile(default) or os.path.realpath(args.source) == os.path.realpath(default):
        return None
    return SERVE_DATABASE(default=str(default))


def _move(args: argparse.Namespace) -> int:
    """Move the tables (the serve lock held) and print the report."""
    from rollbridge.stores.migrate import SQLiteSource, migrate
    from rollbridge.stores.redis import RedisStore
    from rollbridge.stores.redis_url import MIGRATE_OPTION

    locale = args.locale  # --locale's, else the environment's (rollbridge.cli.main)

    def progress(done: int, total: int, table: str) -> None:
        if total >= PROGRESS_FROM:
            line = PROGRESS(done=done, total=total, table=table).render(locale)
            sys.stderr.write(f"rollbridge: {line}\n")

    source = SQLiteSource(args.source, retain=args.retain)
    try:
        # its messages name --to: migrate reads no $ROLLBRIDGE_REDIS (docs/redis.md)
        target = RedisStore(args.target, retain=args.retain, option=MIGRATE_OPTION)
        try:
            _warn_unsafe(target, args.source, locale)
            report = migrate(source, target, args.tables, progress=progress)
        finally:
            target.close()
    finally:
        source.close()
    if args.json:
        print_json(report.to_dict())
        return 0 if report.ok else 1
    lines = []
    if report.restored is not None:
        lines.append(RESTORED(count=report.restored).render(locale))
    lines += report_lines(report, locale)
    sys.stdout.write("\n".join(lines) + "\n")
    return 0 if report.ok else 1


def _warn_unsafe(target: Any, source: Path, locale: str) -> None:
    """Say on stderr, before anything is moved, that the Redis ``target`` would lose
    acknowledged changes (the settings ``serve`` refuses it for, each on a line): the
    move goes on, since the file stays as it was, but the tables' only safe copy is
    then the file. A durable Redis is moved to without a word."""
    from rollbridge.cli.stores import store_name
    from rollbridge.stores.redis_durability import durability_problems
    from rollbridge.visible import visible

    problems = durability_problems(target.client)
    if not problems:
        return
    text = UNSAFE_TARGET(where=store_name(target), path=str(source))
    sys.stderr.write(f"rollbridge: warning: {visible(text.render(locale))}\n")
    for problem in problems:
        sys.stderr.write(f"  - {problem.render(locale)}\n")
