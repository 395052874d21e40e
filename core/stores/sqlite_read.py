"""Reading a rollbridge SQLite file without writing to it.

The CLI's reading commands (``table list``, ``table tokens`` without ``--new`` or
``--revoke``, ``table export``, ``table stats``, ``admin-token --list``) and
``rollbridge migrate`` read a file that may be a copy, a backup, or one an older
rollbridge still serves: nothing in it may change. Opened as a store it would:
an older schema is brought up to date in place (which the older rollbridge cannot
read again), and a file in a rollback journal (a backup, a file the ``sqlite3``
shell made) is switched to WAL, which writes its header.

:func:`open_to_read` looks first, through a read-only connection: a file of this
rollbridge's schema in WAL mode is opened as it is (reading it writes nothing);
any other is copied (SQLite's backup API: one consistent snapshot, also while a
server writes) into a temporary folder, and the copy is opened, its schema brought
up to date there. The copy is removed when the store is closed. A file of a newer
schema is refused, as serving it would be.
"""

from __future__ import annotations

import sqlite3
import tempfile
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from rollbridge.exceptions import StoreError
from rollbridge.stores.base import CANNOT_OPEN, DEFAULT_RETAIN
from rollbridge.stores.sqlite import SCHEMA_VERSION, SQLiteStore, has_restore_mark, schema_newer
from rollbridge.stores.sqlite_faults import explain

__all__ = ["FileFacts", "TemporaryCopy", "file_facts", "open_to_read", "read_only"]


def read_only(path: Path) -> sqlite3.Connection:
    """A connection to read ``path`` with that writes nothing to it, nor leaves a
    file beside it: ``mode=ro`` for a file in a rollback journal, and for one in WAL
    mode whose ``-wal`` holds pages (a running server's, or one a program stopped
    without closing left: an ordinary connection's close, the file's last, would
    checkpoint them into the file and remove the ``-wal``; a read-only one reads
    them and leaves both as they are — the ``-shm``, their index, is SQLite's to
    rewrite); for one in WAL mode with no such ``-wal`` an ordinary connection (that
    never makes a new file), used only to read — a read-only one would make the
    ``-wal`` and ``-shm`` it needs and, unable to remove them, leave them behind,
    where an ordinary one's close removes them when it is the file's last, with
    nothing to checkpoint."""
    mode = "rw" if _in_wal(path) and not _wal_holds_pages(path) else "ro"
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode={mode}", uri=True)


#: The fewest bytes of a ``-wal`` that holds a page: its 32-byte header, and one
#: frame's 24-byte header and page of at least 512 bytes.
_WAL_WITH_A_PAGE = 32 + 24 + 512


def _wal_holds_pages(path: Path) -> bool:
    """Whether a ``-wal`` beside ``path`` is long enough to hold a page (not there,
    unreadable: no)."""
    try:
        return path.with_name(path.name + "-wal").stat().st_size >= _WAL_WITH_A_PAGE
    except OSError:
        return False


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
    """A store on a :class:`TemporaryCopy`, which :meth:`close` removes; once open,
    its errors name the file copied (``source``), not the copy."""

    def __init__(self, copy: TemporaryCopy, source: Path, *, retain: int) -> None:
        self._copy = copy
        super().__init__(copy.path, retain=retain)
        self.path = source  # what it says; its connections open the copy

    def close(self) -> None:
        """Close the connections, then remove the copy."""
        super().close()
        self._copy.remove()


def open_to_read(path: str | Path, *, retain: int = DEFAULT_RETAIN) -> SQLiteStore:
    """The rollbridge SQLite file ``path`` as a store to read, nothing in the file
    written (see the module docstring). A backup is read as it is: not restored.

    :raises StoreError: a newer schema (``details["schema_version"]``), or a file
        SQLite cannot read (naming it).
    """
    path = Path(path)
    try:
        with closing(read_only(path)) as conn:
            facts = file_facts(conn)
            if facts.version > SCHEMA_VERSION:
                raise schema_newer(path, facts.version)
            copy = None if facts.in_place() else TemporaryCopy(conn, path.name, "rollbridge-read-")
    except (sqlite3.Error, UnicodeDecodeError) as exc:
        raise StoreError(CANNOT_OPEN(path=str(path), error=explain(exc))) from exc
    if copy is None:
        return SQLiteStore(path, retain=retain)
    try:
        return _CopyStore(copy, path, retain=retain)
    except BaseException:  # its schema could not be brought up to date: said as it is
        copy.remove()
        raise
