"""An online copy of a store's SQLite file (``rollbridge backup``).

:func:`backup` copies the database with SQLite's online backup API
(:meth:`sqlite3.Connection.backup`) in one step: the copy is one consistent
snapshot — every commit the server had made durable when the step began, none
half — and, the file being in WAL mode, the server goes on committing while it
is taken (a reader never blocks the writer). It is safe while ``rollbridge
serve`` runs on the same file. The copy is written next to its destination
under a temporary name, checked (``PRAGMA quick_check``), switched to a single
self-contained file (``journal_mode=DELETE``) and only then renamed into place,
so a destination either is a whole backup or does not exist. The source is only
read: no schema migration, nothing written to it or beside it — a ``-wal`` a killed
server left is read, not checkpointed into the file
(:func:`rollbridge.stores.sqlite_read.read_only`).

**The copy is marked as a backup.** Nothing else is changed in it: it is the
database as it was, in the schema it had (a backup taken before an upgrade can
roll the upgrade back). The mark is one small table, ``rollbridge_restore`` (the
time the copy was taken), made with plain SQL. Restored and served, the file is
then a *restore*: ``rollbridge serve`` (and ``rollbridge migrate``) moves every table
to a new epoch before any client is served and drops the mark
(:meth:`rollbridge.stores.sqlite.SQLiteStore.finish_restore`), so no client resumes
across the events the backup does not hold. Reading the backup (``table export``,
``table stats``) does not: it shows all its events.
"""

from __future__ import annotations

import os
import sqlite3
import time
from contextlib import closing, suppress
from dataclasses import dataclass
from pathlib import Path

from rollbridge.exceptions import Conflict, StoreError
from rollbridge.paths import file_in_the_way
from rollbridge.stores.base import CANNOT_OPEN, say
from rollbridge.stores.sqlite import DEFAULT_BUSY_TIMEOUT, RESTORE_MARK
from rollbridge.stores.sqlite_faults import explain, failed_writing
from rollbridge.stores.sqlite_read import read_only
from rollbridge.system_words import system_reason

__all__ = ["BackupInfo", "backup"]

# Translators: {path} is the file a backup would be written to.
DEST_EXISTS = say("store.backup.exists", "{path} exists already; choose another name")
SAME_FILE = say("store.backup.same", "the backup would overwrite the database {path} itself")
NO_DATABASE = say("store.backup.missing", "no database file {path}")
# Translators: {path} the backup asked for; {folder} its folder.
NO_FOLDER = say(
    "store.backup.no_folder", "cannot write the backup {path}: the folder {folder} does not exist"
)
# Translators: {path} the backup asked for; {file} a file where a folder of it should be.
FILE_AS_FOLDER = say(
    "store.backup.file_as_folder",
    "cannot write the backup {path}: {file} is a file, not a folder",
)
# Translators: {path} the backup asked for; {error} why (a translated sentence, then
# SQLite's or the system's own words in parentheses).
CANNOT_WRITE = say("store.backup.cannot_write", "cannot write the backup {path}: {error}")
# Translators: {problem} is SQLite's own (English) report of the check.
BAD_COPY = say(
    "store.backup.bad_copy",
    "the database is damaged: its copy failed its check ({problem}) and was removed; "
    "restore it from a backup",
)


#: The files SQLite may make beside the copy while it is written.
_BESIDE = ("-journal", "-wal", "-shm")


def _mark(copy: sqlite3.Connection) -> None:
    """Mark the copy as a backup (:data:`~rollbridge.stores.sqlite.RESTORE_MARK`):
    served, it moves every table to a new epoch first."""
    copy.execute(f"CREATE TABLE IF NOT EXISTS {RESTORE_MARK} (taken_at REAL NOT NULL)")
    copy.execute(f"DELETE FROM {RESTORE_MARK}")
    copy.execute(f"INSERT INTO {RESTORE_MARK} (taken_at) VALUES (?)", (time.time(),))
    copy.commit()


#: SQLite's result codes of a file that is damaged, or no database: met in the copy,
#: a page-for-page image of the source, they are the source's (SQLITE_CORRUPT,
#: SQLITE_NOTADB).
_DAMAGED = {11, 26}


def _damaged(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(code, int) and code & 0xFF in _DAMAGED


@dataclass(frozen=True, slots=True)
class BackupInfo:
    """What a backup copied."""

    source: Path
    dest: Path
    tables: int
    size: int
    schema_version: int


def backup(
    source: str | os.PathLike[str],
    dest: str | os.PathLike[str],
    *,
    busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
) -> BackupInfo:
    """Copy the database ``source`` to ``dest`` (which must not exist); see the
    module docstring.

    :raises StoreError: the source cannot be read (naming it), the copy cannot be
        written (naming the destination), or the copy is not sound.
    :raises Conflict: ``dest`` exists (or is the source).
    """
    source, dest = Path(source), Path(dest)
    try:
        there = source.is_file()
    except OSError as exc:  # a name too long: the system's reason, in the reader's words
        raise StoreError(CANNOT_OPEN(path=str(source), error=system_reason(exc))) from None
    if not there:
        raise StoreError(NO_DATABASE(path=str(source)))
    try:
        taken, folder = dest.exists(), dest.parent.is_dir()
    except OSError as exc:
        raise StoreError(CANNOT_WRITE(path=str(dest), error=system_reason(exc))) from None
    if taken:
        same = dest.resolve() == source.resolve()
        raise Conflict((SAME_FILE if same else DEST_EXISTS)(path=str(dest)))
    if not folder:
        blocker = file_in_the_way(dest.parent)
        if blocker is not None:
            raise StoreError(FILE_AS_FOLDER(path=str(dest), file=str(blocker)))
        # a symlink leading nowhere (a backup disk not mounted): the folder it names
        missing = os.path.realpath(dest.parent) if dest.parent.is_symlink() else dest.parent
        raise StoreError(NO_FOLDER(path=str(dest), folder=str(missing)))
    partial = dest.with_name(f".{dest.name}.{os.getpid()}.partial")
    blamed = source  # what an error is about: the source while it is read, else the copy
    try:
        with closing(read_only(source)) as reading:  # nothing beside it written either
            reading.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
            blamed = dest
            with closing(sqlite3.connect(partial)) as copy:
                blamed = source
                try:
                    reading.backup(copy)  # one step: one consistent snapshot
                except sqlite3.Error as exc:
                    if failed_writing(exc):  # the copy's disk is full, or failed
                        blamed = dest
                    raise
        blamed = dest
        with closing(sqlite3.connect(partial)) as copy:
            try:
                copy.execute("PRAGMA journal_mode=DELETE")
                _mark(copy)
                problem = copy.execute("PRAGMA quick_check").fetchone()[0]
                version = copy.execute("PRAGMA user_version").fetchone()[0]
                known = copy.execute(
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'tables'"
                ).fetchone()
                tables = copy.execute("SELECT count(*) FROM tables").fetchone()[0] if known else 0
            except (sqlite3.Error, UnicodeDecodeError) as exc:  # reading the copy, a page-
                # for-page image of the source, shows the source's damage (a file cut
                # short copied as it is; a damaged schema's words, which may be no UTF-8)
                if isinstance(exc, UnicodeDecodeError) or _damaged(exc):
                    blamed = source
                raise
            if problem != "ok":  # the source's damage too: named
                failed = BAD_COPY(problem=str(problem))
                raise StoreError(CANNOT_OPEN(path=str(source), error=failed))
        os.replace(partial, dest)
    except BaseException as exc:
        for leftover in [partial, *(partial.with_name(partial.name + end) for end in _BESIDE)]:
            with suppress(OSError):
                leftover.unlink()
        if blamed == dest and isinstance(exc, sqlite3.Error | OSError):
            raise StoreError(CANNOT_WRITE(path=str(dest), error=explain(exc))) from exc
        # the source's: a damaged schema's words, its files copied (read_only)
        if isinstance(exc, sqlite3.Error | UnicodeDecodeError | OSError):
            raise StoreError(CANNOT_OPEN(path=str(source), error=explain(exc))) from exc
        raise
    return BackupInfo(source, dest, int(tables), dest.stat().st_size, int(version))
