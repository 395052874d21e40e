"""Reading a rollbridge SQLite file without writing to it.

The CLI's reading commands (``table list``, ``table tokens`` without ``--new`` or
``--revoke``, ``table export``, ``table stats``, ``admin-token --list``) and
``rollbridge migrate`` read a file that may be a copy, a backup, or one an older
rollbridge still serves: nothing in it may change. Opened as a store it would:
an older schema is brought up to date in place (which the older rollbridge cannot
read again), and a file in a rollback journal (a backup, a file the ``sqlite3``
shell made) is switched to WAL, which writes its header.

:func:`open_to_read` looks first, through a connection that writes nothing
(:func:`read_only`): a file of this rollbridge's schema in WAL mode is read in place,
every connection of its store opened as that one was — read-only beside a ``-wal``
(a running server's, or one a killed server left: read, never checkpointed into the
file, its ``-shm`` not rewritten); any other is copied (SQLite's backup API: one
consistent snapshot, also while a server writes) into a temporary folder, and the
copy is opened, its schema brought up to date there, its errors naming the file.
The copy is removed when the store is closed. A file of a newer schema is refused,
as serving it would be. Where no connection can read the file without making a
file beside it (a ``-wal`` without its ``-shm``; a file in WAL mode without a
``-wal`` that this user cannot write, or in a folder it cannot write), the file and
its ``-wal`` are copied as files first, and read there. A copy that cannot be
written (the temporary folder's disk full, a size limit) is said of the temporary
folder (:data:`COPY_FAILED`), not of the file read, which may be on another disk.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path

from rollbridge.exceptions import StoreError
from rollbridge.stores.base import CANNOT_OPEN, DEFAULT_RETAIN
from rollbridge.stores.sqlite import (
    SCHEMA_VERSION,
    SQLiteStore,
    check_schema_version,
    has_restore_mark,
)
from rollbridge.stores.sqlite_faults import explain, failed_writing
from rollbridge.text import Messages

__all__ = [
    "FileFacts",
    "TemporaryCopy",
    "file_facts",
    "look",
    "open_to_read",
    "read_only",
    "store_to_read",
]


say = Messages("rollbridge")
# Translators: {path} the database file a command reads; {folder} the temporary folder
# (the TMPDIR environment variable's, else the system's) where it is copied to be
# read; {error} what went wrong.
COPY_FAILED = say(
    "store.read_copy_failed",
    "cannot read {path}: it is read from a copy in the temporary folder {folder}, and "
    "writing that copy failed: {error}; make room there, or set TMPDIR to a folder "
    "with room",
)


@contextmanager
def _copying(path: Path) -> Iterator[None]:
    """Where the read's copy of ``path`` is written: a write that fails (a full
    disk, a size limit) is the temporary folder's fault, and said so — the file read
    is on another disk, maybe. :raises StoreError: then; anything else as it is."""
    try:
        yield
    except (sqlite3.Error, OSError) as exc:
        if not failed_writing(exc):
            raise
        raise _copy_failed(path, exc) from exc


def _copy_failed(path: Path, exc: BaseException) -> StoreError:
    """The error of a write to the read's copy of ``path`` that failed (``exc``)."""
    folder = tempfile.gettempdir()
    return StoreError(
        COPY_FAILED(path=str(path), folder=folder, error=explain(exc)),
        details={"path": str(path), "folder": folder},
    )


def read_only(path: Path) -> sqlite3.Connection:
    """A connection to read ``path`` with that writes nothing to it, nor to the files
    beside it, nor leaves one there (see :func:`_query`)."""
    return _connect(path, _query(path))


#: The query of a read-only connection that reads the ``-wal`` without writing its
#: index: ``readonly_shm`` opens the ``-shm`` read-only. With no other connection open
#: SQLite then reads the ``-wal`` into memory (it could not rebuild the ``-shm``);
#: beside a running server it reads the server's ``-shm`` as it is.
_RO_BESIDE_WAL = "mode=ro&readonly_shm=1"


def _query(path: Path) -> str | None:
    """How a connection reads ``path`` in place, leaving it and the files beside it
    byte for byte as they were, or None where none can (its copy is read instead).

    - A ``-wal`` beside it, and its ``-shm``: :data:`_RO_BESIDE_WAL`. A read-only
      connection never checkpoints; an ordinary one's close, the file's last (a
      ``-wal`` a killed server left), checkpointed the ``-wal`` into the file and
      removed both, and a read-only one without ``readonly_shm`` rebuilt the ``-shm``.
    - A ``-wal`` without its ``-shm`` (copied by hand): every connection would make
      the ``-shm``. None.
    - No ``-wal``, the file in WAL mode: an ordinary connection (``mode=rw``, which
      never makes a new file), used only to read; a read-only one would make the
      ``-wal`` and ``-shm`` it needs and leave them, where an ordinary one's close
      removes them, with nothing to checkpoint. In a folder this user cannot write,
      neither can make them; of a file it cannot write, SQLite opens the ordinary one
      read-only, which makes them and leaves them: None.
    - Else (a rollback journal): ``mode=ro``."""
    real = path.resolve()
    if os.path.exists(_beside(real, "-wal")):
        return _RO_BESIDE_WAL if os.path.exists(_beside(real, "-shm")) else None
    if not _in_wal(path):
        return "mode=ro"
    writable = os.access(real, os.W_OK) and os.access(real.parent, os.W_OK)
    return "mode=rw" if writable else None


def _connect(path: Path, query: str | None) -> sqlite3.Connection:
    """A connection to ``path`` with ``query`` (:func:`_query`); None: to a copy."""
    if query is None:
        return _copied(path)
    return sqlite3.connect(f"{path.resolve().as_uri()}?{query}", uri=True)


def _beside(path: Path, end: str) -> Path:
    """The file SQLite keeps beside ``path`` (resolved) ending in ``end``."""
    return path.with_name(path.name + end)


class _OnCopy(sqlite3.Connection):
    """A connection to a copy in a temporary folder, which :meth:`close` removes."""

    folder: tempfile.TemporaryDirectory[str]

    def close(self) -> None:
        """Close the connection, then remove the copy."""
        try:
            super().close()
        finally:
            self.folder.cleanup()


#: How often :func:`_copied` copies a file that changed while it was copied.
_TRIES = 5


def _copied(path: Path) -> sqlite3.Connection:
    """A connection to a copy of ``path`` and its ``-wal``, copied as files (SQLite
    would write beside them), in a temporary folder, where SQLite reads them as the
    file's next connection would.

    Without a ``-shm`` no other connection has the file open. One that opened it
    while the files were copied made a ``-shm`` (and may have written), or ended and
    removed the ``-wal``: the three files' identities, sizes and times are compared
    before and after the copy, and where they differ the file is looked at again
    (:func:`_query`: read in place now, or copied again).

    :raises sqlite3.Error: they changed at each of :data:`_TRIES` copies, which only
        another program writing the file without a ``-shm`` could do (said as SQLite
        says a file another connection holds: locked); OSError: a file could not be
        copied.
    """
    real = path.resolve()
    for _ in range(_TRIES):
        query = _query(path)
        if query is not None:
            return _connect(path, query)
        before = _identities(real)
        with _copying(path):
            folder = tempfile.TemporaryDirectory(prefix="rollbridge-read-")
        try:
            copy = Path(folder.name) / real.name
            with _copying(path):
                shutil.copyfile(real, copy)
                if before[1] is not None:
                    shutil.copyfile(_beside(real, "-wal"), _beside(copy, "-wal"))
            if _identities(real) == before:
                conn = sqlite3.connect(copy, factory=_OnCopy)
                conn.folder = folder
                return conn
        except BaseException:
            folder.cleanup()
            raise
        folder.cleanup()
    raise sqlite3.OperationalError("database is locked")


def _identities(real: Path) -> tuple[tuple[int, int, int] | None, ...]:
    """Which file, how long and when last written: the database, its ``-wal`` and
    ``-shm`` (None: not there)."""
    found = []
    for end in ("", "-wal", "-shm"):
        try:
            facts = _beside(real, end).stat()
        except FileNotFoundError:
            found.append(None)
        else:
            found.append((facts.st_ino, facts.st_size, facts.st_mtime_ns))
    return tuple(found)


#: Bytes 18 and 19 of a SQLite file's header: the file format's read and write
#: versions, 2 in WAL mode.
_WAL_VERSIONS = slice(18, 20)


def _in_wal(path: Path) -> bool:
    """Whether the file's header says it is in WAL mode (unreadable: no)."""
    try:
        with path.open("rb") as file:
            header = file.read(20)
    except OSError:
        return False
    return header[_WAL_VERSIONS] == b"\x02\x02"


@dataclass(frozen=True, slots=True)
class FileFacts:
    """What a read-only look at a SQLite file found."""

    #: ``PRAGMA user_version``: the schema version.
    version: int
    #: Whether the file is in WAL mode (a store's, not a backup's).
    wal: bool
    #: Whether it holds ``rollbridge backup``'s mark (a backup not served since).
    marked: bool

    def in_place(self) -> bool:
        """Whether the file can be read as a store as it is, nothing written."""
        return self.wal and self.version == SCHEMA_VERSION and not self.marked


def file_facts(conn: sqlite3.Connection) -> FileFacts:
    """The facts of the file ``conn`` (read only) reads."""
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    mode = str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower()
    return FileFacts(version, mode == "wal", has_restore_mark(conn))


class TemporaryCopy:
    """A copy of the database ``conn`` reads, in a temporary folder of its own, under
    ``name``; :meth:`remove` removes it (and its folder)."""

    def __init__(self, conn: sqlite3.Connection, name: str, prefix: str) -> None:
        self._folder: tempfile.TemporaryDirectory[str] | None = tempfile.TemporaryDirectory(
            prefix=prefix
        )
        #: The copy.
        self.path = Path(self._folder.name) / name
        try:
            with closing(sqlite3.connect(self.path)) as copy:
                conn.backup(copy)
        except BaseException:
            self.remove()
            raise

    def remove(self) -> None:
        """Remove the copy now (once; again is nothing)."""
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None


class _CopyStore(SQLiteStore):
    """A store on a :class:`TemporaryCopy`, which :meth:`close` removes; its errors,
    from the first (bringing the copy's schema up to date), name the file copied
    (``source``), not the copy."""

    def __init__(self, copy: TemporaryCopy, source: Path, *, retain: int) -> None:
        self._copy = copy
        super().__init__(copy.path, retain=retain, copy_of=source)

    def close(self) -> None:
        """Close the connections, then remove the copy."""
        super().close()
        self._copy.remove()


class _InPlace(SQLiteStore):
    """A store on the file itself whose every connection reads as ``query`` says
    (:func:`_query`): nothing it reads writes to the file or beside it."""

    def __init__(self, path: Path, query: str, *, retain: int) -> None:
        self._uri = f"{path.resolve().as_uri()}?{query}"
        super().__init__(path, retain=retain)

    def _target(self) -> tuple[str | Path, bool]:
        return self._uri, True


def look(
    path: Path, prefix: str, check: Callable[[FileFacts], None]
) -> tuple[FileFacts, str | TemporaryCopy]:
    """Look at ``path`` through a connection that writes nothing (:func:`read_only`)
    and say how it is read as a store: the query its connections open it with, in
    place (:func:`_query`), or a :class:`TemporaryCopy` (its folder's name starting
    with ``prefix``) where reading it in place would write to it or beside it.

    :param check: called with the file's facts before any copy is made; what it
        raises is raised.
    :raises sqlite3.Error: UnicodeDecodeError: OSError: the file cannot be read
        (copied).
    """
    query = _query(path)
    with closing(_connect(path, query)) as conn:
        facts = file_facts(conn)
        check(facts)
        if facts.in_place() and query is not None:
            return facts, query
        with _copying(path):
            return facts, TemporaryCopy(conn, path.name, prefix)


def store_to_read(path: Path, how: str | TemporaryCopy, *, retain: int) -> SQLiteStore:
    """The store that reads ``path`` as :func:`look` said (``how``): in place, every
    connection with its query, or its copy, whose errors name ``path`` and which the
    store's close removes (here too if the store cannot be opened)."""
    if isinstance(how, str):
        return _InPlace(path, how, retain=retain)
    try:
        return _CopyStore(how, path, retain=retain)
    except BaseException as exc:  # its schema not brought up to date: said as it is,
        how.remove()
        cause = exc.__cause__ if isinstance(exc, StoreError) else None
        if cause is not None and failed_writing(cause):  # but a write to the copy failed
            raise _copy_failed(path, cause) from cause
        raise


def open_to_read(path: str | Path, *, retain: int = DEFAULT_RETAIN) -> SQLiteStore:
    """The rollbridge SQLite file ``path`` as a store to read, nothing in the file
    written (see the module docstring). A backup is read as it is: not restored.

    :raises StoreError: a newer schema (``details["schema_version"]``), or a file
        SQLite cannot read (naming it).
    """
    path = Path(path)

    def refuse_newer(facts: FileFacts) -> None:
        check_schema_version(path, facts.version)

    try:
        _, how = look(path, "rollbridge-read-", refuse_newer)
    except (sqlite3.Error, UnicodeDecodeError, OSError) as exc:
        raise StoreError(CANNOT_OPEN(path=str(path), error=explain(exc))) from exc
    return store_to_read(path, how, retain=retain)
