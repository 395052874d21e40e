"""``rollbridge serve``: the live server on an embedded SQLite file.

With no arguments it listens on 127.0.0.1:8765 with its state in the user's
data directory. On its first start (a database file it makes, or a Redis no
rollbridge served or used before) it creates a demo table (ruleset sr2, two sample
actors) and prints once how to join it; a store whose tables were all deleted stays
empty. SIGTERM, SIGINT
or SIGHUP (unless it was started with SIGHUP ignored: ``nohup``) stops accepting,
closes clients with 1001, flushes the store, exits 0.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit

from rollbridge.cli import startup
from rollbridge.cli.helps import Help
from rollbridge.cli.limits import add_limit_options, limits_from
from rollbridge.cli.locales import add_locale_option
from rollbridge.cli.render import utc_time
from rollbridge.cli.stores import (
    add_store_options,
    open_store,
    redis_url,
    refuse_unsafe_redis,
    store_name,
)
from rollbridge.cli.values import positive, said_of
from rollbridge.exceptions import RollbridgeError
from rollbridge.server.file_limit import fit_file_limit
from rollbridge.server.limits import DEFAULT_HOST, DEFAULT_PORT, MAX_PENDING
from rollbridge.server.listen import host_port
from rollbridge.stores.base import DEFAULT_RETAIN, Store
from rollbridge.text import Messages
from rollbridge.visible import shell_word
from rollbridge.words import counted

say = Messages("rollbridge")
# Translators: the usage errors of serve's options; {given} is the value as typed, quoted;
# {levels} are the log levels, which stay as they are.
NOT_A_LEVEL = say("cli.option.not_a_level", "expected one of {levels} (in any case), not {given}")
NOT_A_PORT = say("cli.option.not_a_port", "expected a port from 0 to 65535, not {given}")
NOT_AN_ADDRESS = say(
    "cli.option.public_url",
    "expected an http:// or https:// address such as https://rb.example.org, not {given}",
)
ADDRESS_PORT = say(
    "cli.option.public_url.port",
    "expected an address whose port, if any, is from 1 to 65535, not {given}",
)
ADDRESS_EXTRAS = say(
    "cli.option.public_url.extras",
    "expected an address without credentials, query or fragment, not {given}",
)
ADDRESS_PATH = say(
    "cli.option.public_url.path",
    "expected an address without a path, not {given}: the web view and the protocol are "
    "served at the root (/tables/ID, /static/…), so proxy the root",
)

if TYPE_CHECKING:
    from rollbridge.engine.model import TableInfo
    from rollbridge.host import PluginHost
    from rollbridge.server.app import Server

__all__ = [
    "SHOWN_TABLES",
    "add_parsers",
    "create_demo_table",
    "http_base",
    "join_url",
    "public_url",
    "web_url",
]

log = logging.getLogger("rollbridge.serve")

DEMO_RULESET = "sr2"
#: The tables whose web view ``serve`` names at start (the oldest first); the rest are counted.
SHOWN_TABLES = 20


def add_parsers(commands: argparse._SubParsersAction) -> None:
    """Add ``serve``."""
    serve = commands.add_parser(
        "serve", help=Help(say("cli.help.serve", "run the live WebSocket server"))
    )
    serve.add_argument(
        "--host",
        default=DEFAULT_HOST,
        help=Help(say("cli.help.serve.host", "interface (default 127.0.0.1)")),
    )
    serve.add_argument(
        "--port",
        type=_port,
        default=DEFAULT_PORT,
        help=Help(say("cli.help.serve.port", "port (default 8765; 0: any free one)")),
    )
    add_store_options(serve, serving=True)
    serve.add_argument(
        "--retain",
        type=positive,
        default=DEFAULT_RETAIN,
        help=Help(
            say(
                "cli.help.serve.retain",
                "events kept per table for resume and undo (default %(default)s)",
            )
        ),
    )
    serve.add_argument(
        "--max-pending",
        type=positive,
        default=MAX_PENDING,
        help=Help(
            say(
                "cli.help.serve.max_pending",
                "changes that may wait for the disk before new ones are refused with error"
                " 'busy' (default %(default)s)",
            )
        ),
    )
    serve.add_argument(
        "--lease-ms",
        type=positive,
        default=None,
        help=Help(
            say(
                "cli.help.serve.lease",
                "with --redis: how long a process's lease of a table lasts unless renewed, in ms"
                " (default 5000): how long a table waits for a new process after its process died;"
                " three times it, how long a killed process's connections still count against"
                " --max-connections-per-address",
            )
        ),
    )
    serve.add_argument(
        "--public-url",
        type=public_url,
        metavar="URL",
        help=Help(
            say(
                "cli.help.serve.public_url",
                "the address players and Foundry reach this server at, when it is not"
                " --host:--port (a TLS proxy in front, --host 0.0.0.0), e.g. https://rb.example.org:"
                " the links serve prints start with it (wss:// for https://)",
            )
        ),
    )
    serve.add_argument(
        "--no-demo",
        action="store_true",
        help=Help(say("cli.help.serve.no_demo", "do not create the demo table")),
    )
    serve.add_argument(
        "--log-level",
        type=_log_level,
        default="INFO",
        help=Help(
            say(
                "cli.help.serve.log_level",
                "DEBUG, INFO, WARNING, ERROR or CRITICAL, in any case; WARN and FATAL"
                " as Python spells them (default INFO)",
            )
        ),
    )
    serve.add_argument(
        "--log-format",
        choices=("text", "json"),
        default="text",
        help=Help(
            say(
                "cli.help.serve.log_format",
                "text lines, or one JSON object per line (default text); never a token",
            )
        ),
    )
    add_limit_options(serve)
    add_locale_option(serve)
    serve.set_defaults(handler=_serve)


#: The levels ``--log-level`` takes (in any case): a level it does not know is refused,
#: never taken as INFO.
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
#: Python's other names of them (``logging.WARN``, ``logging.FATAL``), which
#: ``--log-level`` took before it checked its word: a unit file written with one
#: keeps starting.
LOG_LEVEL_ALIASES = {"WARN": "WARNING", "FATAL": "CRITICAL"}


def _log_level(text: str) -> str:
    level = text.strip().upper()
    level = LOG_LEVEL_ALIASES.get(level, level)
    if level not in LOG_LEVELS:
        raise argparse.ArgumentTypeError(said_of(NOT_A_LEVEL, text, levels=", ".join(LOG_LEVELS)))
    return level


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(said_of(NOT_A_PORT, text))
    return value


def public_url(text: str) -> str:
    """``--public-url``: an ``http://`` or ``https://`` address with a host (and a
    port from 1 to 65535, if any) and nothing after it but ``/`` (the server's pages
    are at the root of its port: a proxy must pass ``/tables/…`` and ``/static/…`` as
    they are), without its last ``/``; its scheme in lower case (``wss://`` is made
    from it)."""
    url = text.strip()
    try:
        parts = urlsplit(url)
    except ValueError:  # an unclosed [ of an IPv6 address
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise argparse.ArgumentTypeError(said_of(NOT_AN_ADDRESS, text))
    try:
        port = parts.port  # no number, or out of range: ValueError
    except ValueError:
        port = 0
    if port == 0 or parts.netloc.endswith(":"):
        raise argparse.ArgumentTypeError(said_of(ADDRESS_PORT, text))
    if parts.username or parts.password or "?" in url or "#" in url:
        raise argparse.ArgumentTypeError(said_of(ADDRESS_EXTRAS, text))
    if parts.path not in ("", "/"):
        raise argparse.ArgumentTypeError(said_of(ADDRESS_PATH, text))
    return f"{parts.scheme}://{parts.netloc}"


def http_base(address: str, port: int, public: str | None = None) -> str:
    """Where a browser reaches the server: ``public`` (``--public-url``), else
    ``http://`` and the address ``serve`` listens on."""
    return public or f"http://{host_port(address, port)}"


def join_url(address: str, port: int, table_id: str, *, public: str | None = None) -> str:
    """The URL a client joins a table with (``connect`` reads the table from its path):
    ``ws://``, or ``wss://`` for an ``https://`` ``public`` address."""
    return f"ws{http_base(address, port, public).removeprefix('http')}/tables/{table_id}"


def web_url(address: str, port: int, table_id: str, *, public: str | None = None) -> str:
    """The address of a table's web view in a browser (docs/web.md); a join token
    goes after it in the fragment, ``#token=…``, which browsers never send."""
    return f"{http_base(address, port, public)}/tables/{quote(table_id, safe='')}"


def _every_address(address: str) -> bool:
    """Whether ``--host`` is every address of the machine, which no browser reaches."""
    return address in ("", "0.0.0.0", "::")


def create_demo_table(store: Store, host: PluginHost) -> tuple[str, dict[str, str]] | None:
    """Create the demo table: sr2, the player's character and an NPC. None if sr2
    is not loaded."""
    from rollbridge.engine.model import Principal
    from rollbridge.offline import TableService

    if DEMO_RULESET not in host.rulesets:
        return None
    ruleset = host.rulesets[DEMO_RULESET]
    service = TableService(store, host)
    info, tokens = service.create_table(f"Demo ({DEMO_RULESET})", DEMO_RULESET)
    gm = Principal("gm", "gm", "demo")
    sheets = list(ruleset.example_sheets.items())[:2]
    for index, (name, sheet) in enumerate(sheets):
        actor = {"name": name, "sheet": dict(sheet)}
        if index == 0:
            actor["controllers"] = ["player"]
        service.handle(info.id, {"type": "actor.create", "id": f"demo-{index}", "actor": actor}, gm)
    return info.id, tokens


def _serve(args: argparse.Namespace) -> int:
    from rollbridge.server.logs import configure

    # no token and no client-caused traceback in the log, in either format
    configure(args.log_level, args.log_format)
    lock = None
    made: list[str] = []
    new_lock = False  # whether this start made the lock file (O_EXCL: exactly)
    db = ""
    # the lock is removed still held (no other serve opens the database meanwhile), and
    # only while its name is the file held (remove_lock)
    from rollbridge.cli.serve_lock import lock_path, remove_lock, take_serve_lock

    if redis_url(args) is None:
        from rollbridge.paths import default_db_path

        db = args.db or default_db_path()
        made = _files_not_there(db)
        taken = take_serve_lock(db)  # before the store opens
        if taken is not None:
            lock, new_lock = taken
    listened: list[bool] = []  # one item once the port is held: no refused start then
    store: Store | None = None
    try:
        absent = _sidecars_absent(db) if db else []
        store = open_store(args, retain=args.retain)  # the store loads only for serving
        if db:
            _refuse_unwritable(store, absent)
        refuse_unsafe_redis(store, args, args.locale)
        _finish_restore(store)
        # the demo table only on a first start: a database this start makes, or a Redis
        # never served nor used (docs/redis.md); one whose tables were all deleted stays
        # empty
        claim = getattr(store, "claim_first_start", None)
        first = claim or (lambda: bool(made))
        return _serve_store(args, store, first=first, listened=lambda: listened.append(True))
    except BaseException:
        if not listened and store is not None:  # its connections too (idempotent)
            store.close()
        if not listened and made and _holds_nothing(made[0]):
            # a first start that never served leaves no files behind, its lock last,
            # whatever refused it (the port taken, a full disk, a plugin): an empty
            # file left behind was a database the next start found, and it made no
            # demo table then
            _remove([file for file in made if file != lock_path(db)])
        if not listened and lock is not None and new_lock:
            # any start refused before it listened (the store not opened, a table of
            # the file missing, the port taken) leaves no lock file it made
            remove_lock(lock, db)
        raise
    finally:
        if lock is not None:
            os.close(lock)


def _sidecars_absent(db: str) -> list[str]:
    """The ``-wal`` and ``-shm`` of ``db`` not there yet: opening a file it may not
    write, SQLite still makes them in a folder it may write."""
    real = os.path.realpath(db)
    return [file for file in (f"{real}-wal", f"{real}-shm") if not os.path.lexists(file)]


def _refuse_unwritable(store: Store, absent: list[str]) -> None:
    """Refuse, before any client is served, a database file this user may read but
    not write (its own mode, an immutable file): it opened, and every table was
    listed as served until the first commit failed. The check writes nothing
    (:meth:`SQLiteStore.check_writable`): a refusal found after it leaves the file
    as it was.

    :param absent: the ``-wal`` and ``-shm`` not there before the store opened: on a
        refusal they are removed if the ``-wal`` is empty (it holds nothing then, and
        the refusal leaves the folder as it was).
    :raises StoreError: the store's ``read_only`` fault, naming the file; the store
        is closed."""
    check = getattr(store, "check_writable", None)
    if check is None:
        return
    try:
        check()
    except BaseException:
        store.close()
        wal = next((file for file in absent if file.endswith("-wal")), None)
        if wal is not None and os.path.isfile(wal) and os.path.getsize(wal) == 0:
            _remove(absent)
        raise


def _files_not_there(db: str | os.PathLike[str]) -> list[str]:
    """The files a first ``serve`` of ``db`` makes (the database with its WAL and
    index, its dice key, its serve lock), when the file ``db`` is, or leads to, is not
    there yet; else none. A symbolic link to a file not made yet is such a first start
    (the link was once taken for a database there: no demo table, and a refused start
    left the file it made); a link that leads back to itself is not."""
    from rollbridge.cli.serve_lock import lock_path
    from rollbridge.dice.verifiable import key_path

    real = os.path.realpath(db)
    if os.path.lexists(real):
        return []
    files = [real, f"{real}-wal", f"{real}-shm", str(key_path(db)), lock_path(db)]
    return [file for file in files if not os.path.lexists(file)]


def _holds_nothing(db: str) -> bool:
    """Whether the SQLite file ``db`` holds nothing: it is empty (SQLite made it and
    could write no schema: a full disk), or holds no table and no admin token (none
    made by another program meanwhile: ``rollbridge table create`` and ``rollbridge
    admin-token`` take no serve lock; a token made so was removed with the file)."""
    import sqlite3
    from pathlib import Path

    with contextlib.suppress(OSError):
        if os.path.getsize(db) == 0:
            return True
    uri = f"{Path(db).as_uri()}?mode=ro"
    try:
        with contextlib.closing(sqlite3.connect(uri, uri=True)) as conn:
            held = "SELECT (SELECT count(*) FROM tables) + (SELECT count(*) FROM admin_tokens)"
            return conn.execute(held).fetchone()[0] == 0
    except (sqlite3.Error, UnicodeDecodeError):  # a damaged schema's words: not UTF-8
        return False


def _remove(files: list[str]) -> None:
    """Remove ``files`` (those of them there)."""
    for file in files:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(file)


def _finish_restore(store: Store) -> None:
    """A restored backup (``rollbridge backup``'s mark in the file): move its tables to
    a new epoch before any client is served (:meth:`SQLiteStore.finish_restore`)."""
    finish = getattr(store, "finish_restore", None)
    if finish is None:
        return
    try:
        restored = finish()
    except BaseException:
        store.close()
        raise
    if restored is None:
        return
    level = logging.WARNING if restored.skipped else logging.INFO
    skipped = (
        f"; {len(restored.skipped)} could not be read and stay at their epoch: "
        + ", ".join(restored.skipped)
        if restored.skipped
        else ""
    )
    log.log(
        level,
        "%s is a restored backup (taken %s): %s to a new epoch, so no "
        "client resumes across the restore%s",
        store_name(store),
        utc_time(restored.taken_at),
        counted(len(restored.moved), "table was moved", "tables were moved"),
        skipped,
    )


def _serve_store(
    args: argparse.Namespace,
    store: Store,
    *,
    first: Callable[[], bool] = lambda: True,
    listened: Callable[[], None] = lambda: None,
) -> int:
    """Serve ``store`` until stopped; ``first`` says, once the port is held and only if
    the store holds no table, whether this is its first start (the demo table's);
    ``listened`` is called then, before anything else."""
    from rollbridge.host import PluginHost
    from rollbridge.server.app import Server

    locale = args.locale  # main sets it: --locale, else the environment's language
    host = PluginHost()
    tables = store.tables()  # read now: once the port is open, the store may fail
    options = {
        "address": args.host,
        "port": args.port,
        "max_pending": args.max_pending,
        "manage_gc": True,
        "limits": limits_from(args),
    }
    fit_file_limit(options["limits"].max_connections)  # one socket per connection
    server: Server
    url = redis_url(args)
    if url:  # every process on this Redis serves every table (docs/redis.md)
        from rollbridge.server.cluster import DEFAULT_LEASE_MS, ClusterServer

        lease = args.lease_ms or DEFAULT_LEASE_MS
        server = ClusterServer(store, host, redis_url=url, lease_ms=lease, **options)
        server.claim_settings()  # refused before it listens: another process differs
    else:
        server = Server(store, host, **options)

    def listening() -> None:  # once the port is held (--port 0: the one given), not before
        listened()
        port = server.port
        shown = tables
        if not tables and _first_start(first) and not args.no_demo:
            # made only now: a server that cannot listen leaves no demo table whose
            # tokens nobody saw (no client is served before this returns). A store
            # failing just now costs the demo, not the server.
            try:
                demo = create_demo_table(store, host)
            except RollbridgeError as exc:
                log.error("the demo table could not be made: %s", exc)
                demo = None
            if demo is not None:
                lines = _demo_lines(*demo, args.host, port, public=args.public_url, locale=locale)
                sys.stdout.write(lines)
                with contextlib.suppress(RollbridgeError):
                    shown = store.tables()
        where = f"ws://{host_port(args.host, port)}/"
        sys.stdout.write(_serving_line(len(shown), where, store, url, locale))
        views = _web_lines(
            shown, args.host, port, public=args.public_url, locale=locale, listing=_listing(args)
        )
        sys.stdout.write(views)
        if args.public_url is None and _every_address(args.host):
            sys.stdout.write(startup.every_address_line(args.host or "0.0.0.0", locale))
        missing = Counter(t.ruleset for t in shown if t.ruleset not in host.rulesets)
        if missing:  # a plugin not installed, or kept out by the environment
            sys.stdout.write(startup.unloaded_line(missing, locale, **_plugin_controls(host)))
        sys.stdout.flush()

    import asyncio

    asyncio.run(_run(server, listening))
    sys.stdout.write(startup.stopped_line(locale))
    return 0


def _plugin_controls(host: PluginHost) -> dict[str, Any]:
    """The plugin controls of this process's environment that kept plugins out of
    ``host``, as :func:`startup.unloaded_line` names them: each variable's value as
    set, where it is in effect (a blank ``$ROLLBRIDGE_PLUGINS`` allows every plugin),
    and the plugins installed as packages that ``$ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD``
    keeps out."""
    from importlib import metadata

    from rollbridge.host import ENTRY_POINT_GROUP, ENV_ALLOW, ENV_BLOCK, ENV_DISABLE_AUTOLOAD

    installed = [] if host.autoload else metadata.entry_points(group=ENTRY_POINT_GROUP)
    return {
        "allowed": os.environ.get(ENV_ALLOW) if host.allow is not None else None,
        "blocked": os.environ.get(ENV_BLOCK) if host.block else None,
        "autoload_off": None if host.autoload else os.environ.get(ENV_DISABLE_AUTOLOAD),
        "installed": sorted({entry_point.name for entry_point in installed}),
    }


def _serving_line(count: int, where: str, store: Store, url: str | None, locale: str) -> str:
    """The line that says ``serve`` listens, naming its store: the file, or the Redis
    URL given (``url``; its password as ``***``) and the database number it uses."""
    if not url:
        return startup.serving_line(count, where, store_name(store), locale)
    from rollbridge.stores.redis_url import without_password

    database = int(getattr(store, "database", 0))
    return startup.serving_redis_line(count, where, without_password(url), database, locale)


def _first_start(first: Callable[[], bool]) -> bool:
    """Whether this is the store's first start (asked even with ``--no-demo``: a Redis
    is then marked served). A store failing just now is no first start: the demo is
    lost, not the server."""
    try:
        return first()
    except RollbridgeError as exc:
        log.error("could not tell whether this is the store's first start: %s", exc)
        return False


def _demo_lines(
    table_id: str,
    tokens: dict[str, str],
    address: str,
    port: int,
    *,
    public: str | None = None,
    locale: str = "en",
) -> str:
    """How to join the demo table just made (its tokens are shown this once)."""
    url = join_url(address, port, table_id, public=public)
    web = web_url(address, port, table_id, public=public)
    return startup.demo_lines(table_id, tokens, url, web, locale)


def _web_lines(
    tables: list[TableInfo],
    address: str,
    port: int,
    *,
    public: str | None = None,
    locale: str = "en",
    listing: str = "",
) -> str:
    """The web view's address of each table (at most :data:`SHOWN_TABLES`); ``listing``
    the store options of the ``table list`` that names the rest (``--db FILE``)."""
    views = [(web_url(address, port, t.id, public=public), t.name) for t in tables[:SHOWN_TABLES]]
    return startup.web_lines(views, max(0, len(tables) - SHOWN_TABLES), locale, listing)


def _listing(args: argparse.Namespace) -> str:
    """The store options of the ``table list`` command that lists what this ``serve``
    serves: ``--db FILE`` when ``--db`` or ``$ROLLBRIDGE_DB`` named the file, ``--redis
    URL`` on Redis (given, or ``$ROLLBRIDGE_REDIS``), any password in it as ``***``
    (never printed); else none (the user data directory's file). A variable is named
    too: a service's environment is not the operator's shell. Without them the command
    listed the default database's tables, not this server's."""
    url = redis_url(args)
    if url:
        from rollbridge.stores.redis_url import without_password

        return f"--redis {shell_word(without_password(url))}"
    if args.db:
        return f"--db {shell_word(str(args.db))}"
    from rollbridge.paths import DB_ENV, default_db_path

    return (
        f"--db {shell_word(str(default_db_path(create=False)))}" if os.environ.get(DB_ENV) else ""
    )


async def _run(server: Server, listening: Callable[[], None]) -> None:
    import asyncio
    import signal

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    # SIGHUP too: the terminal a server was started from closing (an ssh session that
    # ends) once killed it on the spot, its clients dropped without a close code —
    # unless it was started with SIGHUP ignored (nohup), to outlive that terminal
    stopping = [signal.SIGTERM, signal.SIGINT]
    if signal.getsignal(signal.SIGHUP) is not signal.SIG_IGN:
        stopping.append(signal.SIGHUP)
    for signum in stopping:
        loop.add_signal_handler(signum, stop.set)
    # a signal blocked in the mask this process inherited (a mask survives exec: a
    # parent that blocked SIGINT started a server that Ctrl-C never reached) is let
    # through: these are the ways to stop
    signal.pthread_sigmask(signal.SIG_UNBLOCK, stopping)
    await server.serve_forever(stop, listening)
