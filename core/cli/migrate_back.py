"""``rollbridge migrate --from redis://HOST:PORT/N --to DB_FILE``: move tables back to a
SQLite file (:mod:`rollbridge.stores.migrate_back`).

One job: the command's side of that direction. The file's serve lock is held while
it is written (made with the file when it is new), so no ``serve`` starts on it
meanwhile, and a ``serve`` already on it refuses the move (``database_in_use``).
Redis is only read; its live ``serve --redis`` processes refuse the move
(``redis_in_use``) unless ``--processes-stopped``. A file this command made is
removed again when the move is refused or fails before any table was written, and
so is the dice key it wrote beside it (``<db>.dice-key``; one there before stays). The report is
worded for this direction; ``--json``'s is the other direction's, every language.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path

from rollbridge.cli.render import print_json
from rollbridge.exceptions import RollbridgeError, StoreError
from rollbridge.stores.migrate import MigrationReport
from rollbridge.text import Messages

__all__ = ["move_back"]

say = Messages("rollbridge")
# Translators: a table whose copy in the SQLite file differs; {what} lists the counts or
# "checksum".
MISMATCH = say(
    "cli.migrate.mismatch_back",
    "MISMATCH {table}: the file differs in {what} (Redis {source}, SQLite {target})",
)
# Translators: {moved} and {now} are a table's seq (event number); serve --redis and
# --table are typed as they are.
CHANGED = say(
    "cli.migrate.changed_back",
    "CHANGED {table}: Redis was written to while it moved (seq {moved} moved, seq {now} "
    "now): what was committed after is not in the file; stop every rollbridge serve "
    "--redis, then move it again to a new file with --table {table}",
)
ADMIN_MISMATCH = say(
    "cli.migrate.admin_mismatch_back",
    "MISMATCH: the file does not hold every admin token of Redis",
)
DICE = {
    "moved": say("cli.migrate.dice_written", "dice key: written beside the file"),
    "same": say("cli.migrate.dice_file_same", "dice key: the file's is the same one"),
    "kept": say(
        "cli.migrate.dice_file_kept",
        "dice key: the file keeps its own (no moved table has an open verifiable segment)",
    ),
    "none": say("cli.migrate.dice_redis_none", "dice key: none in Redis"),
}


# Translators: after "cannot open {path}: "; --to is the option, typed as it is.
TARGET_IS_FOLDER = say(
    "cli.migrate.target_is_folder",
    "it is a folder, not a database file: give --to the path of a file (a new one is made)",
)
# Translators: after "cannot open {path}: "; {folder} the folder --to names (the option,
# typed as it is).
TARGET_NO_FOLDER = say(
    "cli.migrate.target_no_folder",
    "its folder {folder} does not exist: make it (mkdir -p), or give --to a file in a "
    "folder that does",
)


def check_target(path: Path) -> None:
    """Refuse a ``--to`` that can hold no database file, saying why in ``--to``'s
    words (the store's own name ``--db``, which is ``--from`` here): a folder, or a
    file in a folder that does not exist. Nothing is made.

    :raises StoreError: naming the path.
    """
    from rollbridge.stores.base import CANNOT_OPEN

    if os.path.isdir(path):
        error = TARGET_IS_FOLDER()
    elif not os.path.isdir(path.parent if str(path.parent) else "."):
        error = TARGET_NO_FOLDER(folder=str(path.parent))
    else:
        return
    raise StoreError(CANNOT_OPEN(path=str(path), error=error), details={"path": str(path)})


def _held(path: Path) -> object | None:
    """The file's serve lock, taken for the move (made with the lock file when the
    file is new). :raises Conflict: ``database_in_use``."""
    from rollbridge.cli.serve_lock import Held, hold_unserved, lock_path, take_serve_lock

    if os.path.isfile(path):
        return hold_unserved(path)
    taken = take_serve_lock(path)
    return None if taken is None else Held(taken.descriptor, lock_path(path), taken.created)


def move_back(args: argparse.Namespace) -> int:
    """Move the tables from Redis (``args.source``) to the file ``args.target`` and
    print the report: 0 when every table matches, 1 otherwise."""
    from rollbridge.dice.verifiable import key_path
    from rollbridge.stores.migrate_back import RedisSource, check_unclaimed, migrate_back
    from rollbridge.stores.sqlite import SQLiteStore

    path = Path(args.target)
    check_target(path)  # before Redis is asked: nothing made
    locale = args.locale
    source = RedisSource(args.source, retain=args.retain)
    try:
        if not args.processes_stopped:  # before the file is made
            check_unclaimed(source)
        lock = _held(path)
        try:
            new = not os.path.exists(path)
            key_made = not key_path(path).exists()  # (a key there before is not the move's)
            target = SQLiteStore(path, retain=args.retain)
            try:
                report = migrate_back(source, target, args.tables,
                                      processes_stopped=args.processes_stopped,
                                      progress=_progress(locale))  # fmt: skip
            except BaseException:
                written = True  # unless the new file is seen to hold no table
                if new:
                    with suppress(RollbridgeError):
                        written = bool(target.tables())
                target.close()
                if new and not written:  # refused or failed before any table: no file
                    # left made, nor the dice key written beside it
                    for suffix in ("", "-wal", "-shm"):
                        Path(f"{path}{suffix}").unlink(missing_ok=True)
                    if key_made:
                        key_path(path).unlink(missing_ok=True)
                raise
            target.close()
        finally:
            if lock is not None:
                lock.release()  # type: ignore[attr-defined]
    finally:
        source.close()
    return _report(args, report)


def _progress(locale: str) -> Callable[[int, int, str], None]:
    """The progress callback: a line on stderr a table, from PROGRESS_FROM tables on."""
    from rollbridge.cli.migrate_lines import PROGRESS, PROGRESS_FROM

    def progress(done: int, total: int, table: str) -> None:
        if total >= PROGRESS_FROM:
            line = PROGRESS(done=done, total=total, table=table).render(locale)
            sys.stderr.write(f"rollbridge: {line}\n")

    return progress


def _report(args: argparse.Namespace, report: MigrationReport) -> int:
    from rollbridge.cli.migrate_lines import report_lines

    if args.json:
        print_json(report.to_dict())
        return 0 if report.ok else 1
    lines = report_lines(report, args.locale, mismatch=MISMATCH,
                         admin_mismatch=ADMIN_MISMATCH, dice=DICE)  # fmt: skip
    for table, (moved, now) in report.changed.items():
        lines.append(CHANGED(table=table, moved=moved, now=now).render(args.locale))
    sys.stdout.write("\n".join(lines) + "\n")
    return 0 if report.ok else 1
