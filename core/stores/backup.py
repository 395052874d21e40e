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
read: no schema migration, nothing written.

**The copy is a new epoch.** Every table of the copy is moved to a new epoch
(:func:`_new_epochs`): restored, it goes on from the seq it was copied at, while
clients may have seen later seqs of the old history; with a new epoch none of them
resumes across the rewrite (each gets a fresh snapshot, ``recovered: false``). The
copy is brought to this rollbridge's schema.
"""

from __future__ import annotations

import os
import sqlite3
from contextlib import closing, suppress
from dataclasses import dataclass
from pathlib import Path

from rollbridge.engine.model import Commit
from rollbridge.exceptions import Conflict, StoreError
from rollbridge.stores.base import CANNOT_OPEN, say
from rollbridge.stores.redis_fence import new_epoch
from rollbridge.stores.sqlite import DEFAULT_BUSY_TIMEOUT, SQLiteStore

__all__ = ["BackupInfo", "backup"]

# Translators: {path} is the file a backup would be written to.
DEST_EXISTS = say("store.backup.exists", "{path} exists already; choose another name")
SAME_FILE = say("store.backup.same", "the backup would overwrite the database {path} itself")
NO_DATABASE = say("store.backup.missing", "no database file {path}")
# Translators: {path} the backup asked for; {folder} its folder.
NO_FOLDER = say(
    "store.backup.no_folder", "cannot write the backup {path}: the folder {folder} does not exist"
)
# Translators: {path} the backup asked for; {error} SQLite's or the system's (English) reason.
CANNOT_WRITE = say("store.backup.cannot_write", "cannot write the backup {path}: {error}")
# Translators: {problem} is SQLite's own (English) report of the check.
BAD_COPY = say("store.backup.bad_copy", "the copy failed its check ({problem}); it was removed")


#: The files SQLite may make beside the copy while it is written.
_BESIDE = ("-journal", "-wal", "-shm")


def _new_epochs(path: Path) -> None:
    """Move every table of the copy at ``path`` to a new epoch (a commit without
    events, as a Redis fence makes): a restored backup goes on from its own seqs, which
    clients may have seen with other events since, so none of them may resume across
    it (docs/protocol.md: a client with another epoch gets a fresh snapshot). The copy
    is opened as a store (brought to this rollbridge's schema) keeping every event and
    reply it holds."""
    with SQLiteStore(path, retain=_KEEP_ALL) as store:
        for info in store.tables():
            snapshot, _ = store.load(info.id)
            moved = snapshot.info
            moved.epoch = new_epoch(moved.epoch)
            store.commit(info.id, Commit([], [], [], moved, snapshot.meta()))


#: A retained log long enough that the copy's new snapshots prune nothing.
_KEEP_ALL = 1 << 40


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
    if not source.is_file():
        raise StoreError(NO_DATABASE(path=str(source)))
    if dest.exists():
        same = dest.resolve() == source.resolve()
        raise Conflict((SAME_FILE if same else DEST_EXISTS)(path=str(dest)))
    if not dest.parent.is_dir():
        raise StoreError(NO_FOLDER(path=str(dest), folder=str(dest.parent)))
    partial = dest.with_name(f".{dest.name}.{os.getpid()}.partial")
    blamed = source  # what an error is about: the source while it is read, else the copy
    try:
        with closing(sqlite3.connect(source, timeout=busy_timeout)) as reading:
            reading.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
            blamed = dest
            with closing(sqlite3.connect(partial)) as copy:
                blamed = source
                reading.backup(copy)  # one step: one consistent snapshot
        blamed = dest
        _new_epochs(partial)
        with closing(sqlite3.connect(partial)) as copy:
            copy.execute("PRAGMA journal_mode=DELETE")
            problem = copy.execute("PRAGMA quick_check").fetchone()[0]
            if problem != "ok":
                raise StoreError(BAD_COPY(problem=str(problem)))
            version = copy.execute("PRAGMA user_version").fetchone()[0]
            known = copy.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'tables'"
            ).fetchone()
            tables = copy.execute("SELECT count(*) FROM tables").fetchone()[0] if known else 0
        os.replace(partial, dest)
    except BaseException as exc:
        for leftover in [partial, *(partial.with_name(partial.name + end) for end in _BESIDE)]:
            with suppress(OSError):
                leftover.unlink()
        if blamed == dest and isinstance(exc, sqlite3.Error | OSError):
            raise StoreError(CANNOT_WRITE(path=str(dest), error=str(exc))) from exc
        if isinstance(exc, sqlite3.Error):
            raise StoreError(CANNOT_OPEN(path=str(source), error=str(exc))) from exc
        raise
    return BackupInfo(source, dest, int(tables), dest.stat().st_size, int(version))
