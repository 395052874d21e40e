"""Where the CLI's tables live: a SQLite file (``--db``, the default) or a Redis server
(``--redis URL``, or the environment variable ``ROLLBRIDGE_REDIS``).

One set of options for ``serve``, ``table …`` and ``admin-token``, so the same
commands administer either store. An option on the command line wins over the
environment: ``--db FILE`` is that file even with ``ROLLBRIDGE_REDIS`` set, ``--redis
URL`` that server even with ``ROLLBRIDGE_DB`` set; both options at once are refused.
Without either, ``ROLLBRIDGE_REDIS`` names Redis, else ``ROLLBRIDGE_DB`` the file
(:func:`rollbridge.paths.default_db_path`), else the user data directory holds it.

``serve`` refuses a Redis whose settings would lose acknowledged changes
(``rollbridge.stores.redis_durability.durability_problems``: no AOF,
``appendfsync`` other than ``always``, eviction on) unless ``--redis-unsafe`` says the
operator knows (docs/redis.md).
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
from pathlib import Path
from typing import Any

from rollbridge.cli.helps import Help
from rollbridge.exceptions import NotFound, StoreError
from rollbridge.paths import DB_ENV
from rollbridge.stores.base import CANNOT_OPEN, DEFAULT_RETAIN, IS_FOLDER
from rollbridge.system_words import system_reason
from rollbridge.text import Messages

__all__ = [
    "REDIS_ENV",
    "add_store_options",
    "open_store",
    "process_id",
    "redis_url",
    "refuse_unsafe_redis",
    "require_database",
    "store_name",
]

#: The environment variable that names the Redis server, as ``--redis`` does.
REDIS_ENV = "ROLLBRIDGE_REDIS"

say = Messages("rollbridge")
# Translators: {where} names the Redis server; {problems} the settings' problems, one
# per line, each after "  - " (the spec after "problems:" puts it between two: keep it
# as it is). redis.conf, redis-cli, CONFIG SET, CONFIG REWRITE, appendonly, AOF and
# the redis-server command line stay as they are.
UNSAFE = say(
    "cli.redis.unsafe",
    "{where} would lose acknowledged changes:\n  - {problems:\n  - }\nSet them in its "
    "redis.conf, or with redis-cli CONFIG SET and then CONFIG REWRITE: a CONFIG SET alone is "
    "forgotten when Redis restarts, and a Redis started again without appendonly does not read "
    'its AOF, so it comes back empty (docs/redis.md, "Durability"); a Redis run without a '
    "redis.conf, where CONFIG REWRITE fails, takes them on its command line: redis-server "
    "--appendonly yes --appendfsync always --maxmemory-policy noeviction; or start with "
    "--redis-unsafe if losing them is acceptable",
)
BOTH = say("cli.store.both", "give --db or --redis, not both")
# Translators: {path} is a file name, {env} the environment variable ROLLBRIDGE_DB.
MISSING = say(
    "cli.store.missing",
    "no database file {path}: check --db (or ${env}); rollbridge serve or rollbridge "
    "table create makes one",
)

# Translators: {path} is a file name, {env} the environment variable ROLLBRIDGE_DB.
NO_HEADER = say(
    "cli.store.no_header",
    "no database in {path}: the file is empty or cut short (shorter than a SQLite "
    "file's header); check --db (or ${env}), or restore the file from a backup",
)
# Translators: {path} is a file name, {env} the environment variable ROLLBRIDGE_DB.
NO_SCHEMA = say(
    "cli.store.no_schema",
    "no database in {path}: it is an empty SQLite file, without rollbridge's tables; "
    "check --db (or ${env}); rollbridge serve or rollbridge table create makes them",
)
# Translators: why a database file cannot be opened, after "cannot open {path}: ".
NOT_A_FILE = say(
    "cli.store.not_a_file",
    "it is not a regular file but a pipe, a device or a socket: give --db (or "
    "${env}) the path of a file",
)
# Translators: {path} is a file name, {tables} some of the tables in it (quoted), {env}
# the environment variable ROLLBRIDGE_DB.
FOREIGN = say(
    "cli.store.foreign",
    "no database in {path}: it is another program's SQLite database (its tables: "
    "{tables}), not rollbridge's, and was left as it is; check --db (or ${env})",
)
#: How many of a foreign SQLite file's tables :data:`FOREIGN` names.
FOREIGN_NAMED = 3
#: The bytes of a SQLite file's header: a shorter file holds no database (SQLite
#: would take an empty or one-byte file for a new database and write one into it).
SQLITE_HEADER = 100


def add_store_options(parser: argparse.ArgumentParser, *, serving: bool = False) -> None:
    """``--db`` and ``--redis`` (and, for ``serve``, ``--redis-unsafe``)."""
    parser.add_argument(
        "--db",
        type=Path,
        help=Help(
            # Translators: {db} and {redis} are environment variables.
            say(
                "cli.help.db",
                "SQLite file (default: ${db}, else in the user data directory); "
                "used even with ${redis} set",
            ),
            db=DB_ENV,
            redis=REDIS_ENV,
        ),
    )
    parser.add_argument(
        "--redis",
        metavar="URL",
        help=Help(
            # Translators: {redis} is an environment variable.
            say(
                "cli.help.redis",
                "a Redis server instead of SQLite, e.g. redis://127.0.0.1:6379/0 "
                "(default: ${redis}, unless --db is given)",
            ),
            redis=REDIS_ENV,
        ),
    )
    if serving:
        parser.add_argument(
            "--redis-unsafe",
            action="store_true",
            help=Help(
                say(
                    "cli.help.serve.redis_unsafe",
                    "serve even on a Redis whose settings would lose acknowledged changes",
                )
            ),
        )


def open_store(
    args: argparse.Namespace,
    *,
    retain: int = DEFAULT_RETAIN,
    create: bool = True,
    read_only: bool = False,
) -> Any:
    """The store the options name (SQLite by default).

    :param create: make the SQLite file if there is none (``serve``, ``table
        create``, making an admin token). A command that only reads or changes what
        a database holds passes False: a mistyped ``--db`` is then an error naming
        the file, not an empty database made there ("no tables").
    :param read_only: the command only reads (``table list``, ``export``, …): the
        SQLite file is read without anything written to it — an older schema is
        not brought up to date in place, a file in a rollback journal is not
        switched to WAL (:func:`rollbridge.stores.sqlite_read.open_to_read`). Implies
        ``create=False``.
    :raises InvalidRequest: both ``--db`` and ``--redis`` (:func:`redis_url`).
    :raises StoreError: the store cannot be opened.
    :raises NotFound: ``create`` is False and there is no database in the file
        (:func:`require_database`); whatever ``create``, a pipe, a device or a
        socket at the path (SQLite said "writing to the disk failed" of a pipe, and
        wrote its journal beside ``/dev/null``), another program's SQLite database
        (schema version 0, tables in it: rollbridge's schema would be written into
        it, and WAL switched on), or a file of 1 to 99 bytes (not empty, too short
        for a database: SQLite overwrites one of one byte, and says "file is not a
        database" of a longer one); code ``no_database``, as ``migrate`` says it.
    """
    url = redis_url(args)
    if url:
        from rollbridge.stores.redis import RedisStore

        return RedisStore(url, retain=retain, writer=process_id())
    from rollbridge.paths import default_db_path
    from rollbridge.stores.sqlite import SQLiteStore

    # only a command that makes a database makes $ROLLBRIDGE_DB's folder: one that
    # reads, given a mistyped one, made its folders before saying there was no file
    path = Path(args.db or default_db_path(create=create and not read_only))
    if read_only or not create:
        require_database(path)
    else:
        _refuse_special(path)
        if _no_header(path) and _has_bytes(path):
            # not made over a file of a few bytes SQLite would take for a new
            # database and overwrite (a mistyped --db naming a note); an empty file
            # may become one
            raise NotFound(NO_HEADER(path=str(path), env=DB_ENV), code="no_database",
                           details={"path": str(path)})  # fmt: skip
        try:
            existing = path.is_file()
        except OSError:  # a name too long: opening it says why, in the reader's words
            existing = False
        _refuse_foreign(path, _unversioned(path) if existing else None)
    if read_only:
        from rollbridge.stores.sqlite_read import open_to_read

        return open_to_read(path, retain=retain)
    return SQLiteStore(path, retain=retain)


def require_database(path: Path) -> None:
    """Refuse, reading nothing into it, a ``path`` that holds no database: a pipe,
    a device or a socket; no such file, a folder, a file too short to hold one
    (empty, cut short: SQLite would have written a new database into it, and a
    reading command said "no table"), a SQLite file that holds nothing (no table,
    schema version 0), or another program's SQLite database.

    :raises NotFound: code ``no_database``, naming the file and the case (a path the
        system cannot look up, with its reason in the reader's language).
    """
    said = {"path": str(path)}
    _refuse_special(path)
    try:
        folder, file = path.is_dir(), path.is_file()
    except OSError as exc:  # a name too long, a folder not to be searched: the reason
        raise NotFound(CANNOT_OPEN(path=str(path), error=system_reason(exc)),
                       code="no_database", details=said) from None  # fmt: skip
    if folder:  # there, but a folder: said so
        raise NotFound(CANNOT_OPEN(path=str(path), error=IS_FOLDER()), code="no_database",
                       details=said)  # fmt: skip
    if not file:
        raise NotFound(MISSING(path=str(path), env=DB_ENV), code="no_database", details=said)
    if _no_header(path):  # nor made here
        raise NotFound(NO_HEADER(path=str(path), env=DB_ENV), code="no_database", details=said)
    unversioned = _unversioned(path)
    if unversioned == []:  # nor its schema written into it
        raise NotFound(NO_SCHEMA(path=str(path), env=DB_ENV), code="no_database", details=said)
    _refuse_foreign(path, unversioned)


def _refuse_special(path: Path) -> None:
    """Refuse a pipe, a device or a socket at ``path``: nothing SQLite can keep a
    database in. :raises NotFound: code ``no_database``."""
    if _special(path):
        raise NotFound(CANNOT_OPEN(path=str(path), error=NOT_A_FILE(env=DB_ENV)),
                       code="no_database", details={"path": str(path)})  # fmt: skip


def _refuse_foreign(path: Path, unversioned: list[str] | None) -> None:
    """Refuse another program's SQLite database (``unversioned``: the names
    :func:`_unversioned` found in it), naming a few of its tables.
    :raises NotFound: code ``no_database``."""
    if unversioned:  # whatever create: rollbridge's schema would go into it, and WAL
        named = ", ".join(repr(name[:40]) for name in unversioned[:FOREIGN_NAMED])
        more = "…" if len(unversioned) > FOREIGN_NAMED else ""
        raise NotFound(FOREIGN(path=str(path), tables=named + more, env=DB_ENV),
                       code="no_database", details={"path": str(path)})  # fmt: skip


def _unversioned(path: Path) -> list[str] | None:
    """The names of what the SQLite file at ``path`` holds (tables, indexes, …) when
    it has schema version 0 — none: an empty SQLite file, where the store would write
    its schema as into a new one; some: another program's database, as rollbridge's
    always has a version —, else None (a version, or a file SQLite cannot read: the
    store names it). Read without writing to the file
    (:func:`rollbridge.stores.sqlite_read.read_only`), at most :data:`FOREIGN_NAMED`
    + 1 names; a name that is not UTF-8 is read with U+FFFD for its bytes that are
    not (before, its ``UnicodeDecodeError`` made the file one SQLite cannot read, and
    the store wrote rollbridge's schema into it)."""
    import sqlite3
    from contextlib import closing

    from rollbridge.stores.sqlite_read import read_only

    try:
        with closing(read_only(path)) as conn:
            conn.text_factory = bytes
            if conn.execute("PRAGMA user_version").fetchone()[0] != 0:
                return None
            rows = conn.execute(
                "SELECT name FROM sqlite_master ORDER BY rowid LIMIT ?", (FOREIGN_NAMED + 1,)
            ).fetchall()
            return [_name(name) for (name,) in rows]
    except (sqlite3.Error, ValueError, OSError, StoreError):  # OSError, StoreError: its copy
        return None


def _name(name: object) -> str:
    """A name of ``sqlite_master`` as read with ``text_factory = bytes``: its UTF-8,
    any byte that is not replaced."""
    if isinstance(name, bytes):
        return name.decode("utf-8", errors="replace")
    return str(name)


def _special(path: Path) -> bool:
    """Whether what is at ``path`` (a symlink followed) is neither a regular file nor
    a folder: a pipe, a device, a socket. Nothing there: no."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _has_bytes(path: Path) -> bool:
    """Whether the file at ``path`` holds anything (gone meanwhile: no)."""
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


def _no_header(path: Path) -> bool:
    """Whether the file at ``path`` is too short to hold a database, and no ``-wal``
    beside it holds one (whose pages SQLite would read in its stead)."""
    wal = path.with_name(path.name + "-wal")
    try:
        short = path.stat().st_size < SQLITE_HEADER
        return short and not (wal.is_file() and wal.stat().st_size > 0)
    except OSError:  # gone meanwhile: SQLite says what it finds
        return False


def redis_url(args: argparse.Namespace) -> str | None:
    """The Redis server the options name, or None for SQLite: ``--redis``, else
    ``$ROLLBRIDGE_REDIS`` unless ``--db`` is given (an option wins over the environment).

    :raises InvalidRequest: both ``--db`` and ``--redis``.
    """
    given, db = getattr(args, "redis", None), getattr(args, "db", None)
    if given is not None and db is not None:
        from rollbridge.exceptions import InvalidRequest

        raise InvalidRequest(BOTH(), details={"field": "redis"})
    if given is not None or db is not None:
        return given or None
    return os.environ.get(REDIS_ENV) or None


def process_id() -> str:
    """This process's id among the processes sharing a Redis (the value of the leases
    it holds): host name, pid and a random part, so no two processes share one."""
    import secrets
    import socket

    return f"serve-{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(4)}"


def store_name(store: Any) -> str:
    """What the startup line calls the store (a path, or the Redis server; never a
    password)."""
    return str(getattr(store, "path", None) or getattr(store, "where", store))


def refuse_unsafe_redis(store: Any, args: argparse.Namespace, locale: str = "en") -> None:
    """Stop ``serve`` on a Redis that would lose acknowledged changes, unless
    ``--redis-unsafe``; with it, say what is at risk on stderr. Either says each
    problem in ``locale`` (``serve --locale``); the error's ``details["problems"]``
    lists them in English, as it always did. A durable one is
    watched while it serves: commits are refused while its settings are changed to
    lose them (:meth:`RedisStore.watch_durability`).

    :raises StoreError: naming every unsafe setting.
    """
    client = getattr(store, "client", None)
    if client is None:
        return
    from rollbridge.stores.redis_durability import durability_problems, in_english

    problems = durability_problems(client)
    if not problems:
        store.watch_durability()
        return
    text = UNSAFE(where=store_name(store), problems=problems)
    if getattr(args, "redis_unsafe", False):
        sys.stderr.write("rollbridge: warning: " + text.render(locale).split("\n")[0] + "\n")
        for problem in problems:
            sys.stderr.write(f"  - {problem.render(locale)}\n")
        return
    raise StoreError(text, details={"problems": in_english(problems)})
