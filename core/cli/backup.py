"""``rollbridge backup``: an online copy of the SQLite file, safe while a server
runs on it (SQLite's backup API: :mod:`rollbridge.stores.backup`)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from rollbridge.cli.db_option import add_db_option
from rollbridge.cli.helps import Help
from rollbridge.cli.json_option import add_json_option
from rollbridge.cli.locales import add_locale_option
from rollbridge.cli.render import print_json
from rollbridge.text import Messages
from rollbridge.visible import shell_word, visible

__all__ = ["add_parsers"]

say = Messages("rollbridge")
# Translators: {source} and {dest} are files; {size} is in bytes.
DONE = say.plural(
    "cli.backup.done",
    "backed up {source} to {dest}: {count} table, {size} bytes, schema version {version}",
    "backed up {source} to {dest}: {count} tables, {size} bytes, schema version {version}",
)

# Translators: said after a backup of a database that has a dice key; {key} is that
# file, {dest} the backup (each quoted for a shell where it needs it: '…'); "cp -p"
# is a command, not translated.
KEY_NOT_COPIED = say(
    "cli.backup.dice_key",
    "the dice key is not in the copy: keep {key} with it (cp -p {key} {dest}.dice-key), as"
    " secret as an admin token; without it a restored table's open verifiable dice can"
    " never be revealed",
)

# Translators: {env} is the environment variable ROLLBRIDGE_REDIS, {where} a Redis
# server; redis-cli --rdb, BGSAVE and --db are commands and an option, not translated.
REDIS = say(
    "cli.backup.redis",
    "rollbridge backup copies a SQLite file, but ${env} names a Redis server ({where}): "
    "back that up with Redis's own tools (redis-cli --rdb FILE, or a copy of its "
    'folder after BGSAVE: docs/redis.md, "Backups"), or give --db FILE to copy a '
    "SQLite file",
)

# Translators: {where} is a Redis server; --redis, redis-cli --rdb, BGSAVE and --db are
# an option, commands and an option, not translated.
REDIS_OPTION = say(
    "cli.backup.redis_option",
    "rollbridge backup copies a SQLite file, but --redis names a Redis server ({where}): "
    "back that up with Redis's own tools (redis-cli --rdb FILE, or a copy of its "
    'folder after BGSAVE: docs/redis.md, "Backups"), or give --db FILE to copy a '
    "SQLite file",
)


def add_parsers(commands: argparse._SubParsersAction) -> None:
    """Add ``backup``."""
    parser = commands.add_parser(
        "backup",
        help=Help(
            say(
                "cli.help.backup",
                "copy the database, online (safe while rollbridge serve runs on it)",
            )
        ),
    )
    add_db_option(parser)
    parser.add_argument(
        "--redis",
        metavar="URL",
        help=Help(
            say(
                "cli.help.backup.redis",
                "refused: a Redis server is backed up with its own tools "
                '(docs/redis.md, "Backups")',
            )
        ),
    )
    parser.add_argument(
        "dest",
        type=Path,
        help=Help(say("cli.help.backup.dest", "the copy to write (must not exist)")),
    )
    add_json_option(parser)
    add_locale_option(parser)
    parser.set_defaults(handler=_backup)


def _backup(args: argparse.Namespace) -> int:
    from rollbridge.cli.stores import REDIS_ENV, require_database
    from rollbridge.dice.verifiable import key_path
    from rollbridge.exceptions import InvalidRequest
    from rollbridge.paths import default_db_path
    from rollbridge.stores.backup import backup

    if args.redis is not None:  # as every other command takes it: said, not unknown
        from rollbridge.stores.redis_url import without_password

        raise InvalidRequest(REDIS_OPTION(where=without_password(args.redis)),
                             code="redis_backup", details={"field": "redis"})  # fmt: skip
    url = os.environ.get(REDIS_ENV)
    if args.db is None and url:
        # Not the default file: the store every other command would use is Redis.
        from rollbridge.stores.redis_url import without_password

        raise InvalidRequest(REDIS(env=REDIS_ENV, where=without_password(url)),
                             code="redis_backup", details={"field": "db"})  # fmt: skip
    source = Path(args.db or default_db_path(create=False))  # read: no folder made
    require_database(source)  # as every reading command: an empty file is no database
    done = backup(source, args.dest)
    key = key_path(done.source)
    key = key if key.is_file() else None  # a database no command opened yet has none
    if args.json:
        print_json({"source": str(done.source), "dest": str(done.dest), "tables": done.tables,
                    "size": done.size, "schema_version": done.schema_version,
                    "dice_key": None if key is None else str(key)})  # fmt: skip
        return 0
    # the paths' control characters shown, not obeyed (a folder's name may hold ESC)
    text = DONE(source=visible(str(done.source)), dest=visible(str(done.dest)),
                count=done.tables, size=done.size, version=done.schema_version)  # fmt: skip
    sys.stdout.write(text.render(args.locale) + "\n")
    if key is not None:
        # the paths as a shell reads them ('game nights/x.db'), in the command and out;
        # one with a control character as $'…', its escapes visible and read back
        said = KEY_NOT_COPIED(key=shell_word(str(key)), dest=shell_word(str(done.dest)))
        sys.stdout.write(said.render(args.locale) + "\n")
    return 0
