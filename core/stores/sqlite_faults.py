"""What the SQLite store says when the file, rather than a request, is at fault.

Some of SQLite's errors say nothing about the commit that met them: the disk is
full, a write to it failed, another program holds the write lock, the file cannot
be written. :func:`store_wide` turns those into
:class:`~rollbridge.exceptions.StoreUnavailable`, with a reason and a message that
tells the operator what to do (the server then fails a whole group commit at once
instead of trying each of its commits again, and logs the fault once).

A write waits ``busy_timeout`` for another program's lock (the CLI's writes take
milliseconds). A lock held past that is likely held for long — an operator's
``sqlite3`` shell left in a transaction — and every change would wait it out again:
:class:`LockWait` makes later writes wait a tenth of it, until one is written.

SQLite goes on writing to a file that was removed or replaced under it, through
the descriptor it holds: every commit after that would be acknowledged and then
lost with the process. :class:`FileIdentity` remembers which file the store opened
(and its ``-wal``) and :meth:`FileIdentity.check` refuses a write once the path
names another file, or none. It also notices a ``-shm`` (the ``-wal``'s index,
where two writers' lock is taken) removed or replaced, which it cannot refuse to
its good (docs/operations.md, "A removed -shm"): it logs one WARNING saying to
restart the server before any other program opens the database.
"""

from __future__ import annotations

import errno
import logging
import os
import sqlite3
import stat
import time
from contextlib import suppress
from pathlib import Path

from rollbridge.exceptions import StoreUnavailable
from rollbridge.stores.base import WITH_DETAIL, unexpected
from rollbridge.system_words import system_reason
from rollbridge.text import Messages, Text
from rollbridge.visible import visible

__all__ = [
    "PROBE_ROOM",
    "RESCUE_EVERY",
    "FileIdentity",
    "LockWait",
    "explain",
    "failed_writing",
    "need_room",
    "store_wide",
]

log = logging.getLogger("rollbridge.store")
say = Messages("rollbridge")

#: Seconds between two tries to copy a database whose file went, when one failed.
RESCUE_EVERY = 60.0

#: Bytes of room a probe wants on the disk beyond the ``-wal``'s size (:func:`need_room`).
PROBE_ROOM = 1 << 20

#: SQLite's primary result codes of a fault of the file, not of one commit, and the
#: reason each is given (``details["reason"]``).
_REASONS = {
    "SQLITE_FULL": "disk_full",
    "SQLITE_IOERR": "io",
    "SQLITE_BUSY": "locked",
    "SQLITE_LOCKED": "locked",
    "SQLITE_READONLY": "read_only",
    "SQLITE_CANTOPEN": "read_only",
}

_ADVICE = {
    "disk_full": say("store.fault.disk_full", "the disk is full: free space on it"),
    "io": say(
        "store.fault.io",
        "writing to the disk failed: the disk may be full, the file past a size limit "
        "(ulimit -f) or the disk failing; see the system's log",
    ),
    "locked": say(
        "store.fault.locked",
        "another program holds the database's lock (a sqlite3 shell in a transaction, a "
        "backup tool): end its transaction",
    ),
    "read_only": say(
        "store.fault.read_only",
        "the file cannot be written: check the permissions of the file and its folder, "
        "and the file system",
    ),
}

#: SQLite's extended names of an I/O error in reading: said as one (``io`` says writing).
_READ_ERRORS = frozenset({"SQLITE_IOERR_READ", "SQLITE_IOERR_SHORT_READ"})
READ_FAILED = say(
    "store.fault.io_read",
    "reading from the disk failed: the disk may be failing or the file damaged; see the "
    "system's log, and restore the file from a backup if it goes on",
)


def _advice(reason: str, name: str) -> Text:
    """What to say of a fault of the file: its reason's advice, a failed read said as
    one (SQLite names both ``SQLITE_IOERR``, "writing … failed" misled)."""
    return READ_FAILED() if name in _READ_ERRORS else _ADVICE[reason]()


#: What SQLite's other primary result codes say of the file (``SQLITE_NOTADB``: not
#: one), said in the reader's language; SQLite's own (English) words follow it.
_FILE_FAULTS = {
    "SQLITE_NOTADB": say(
        "store.fault.not_a_database",
        "it is not a SQLite database (another kind of file, or one damaged at its start): "
        "check --db, or restore the file from a backup",
    ),
    "SQLITE_CORRUPT": say(
        "store.fault.damaged", "the database is damaged: restore it from a backup"
    ),
}
# Translators: said when SQLite refused for a reason of its own, which follows in
# parentheses (in English).
OTHER_FAULT = say("store.fault.other", "SQLite refused the operation")
# Translators: {path} is the database file; {advice} what went wrong and what to do;
# {detail} SQLite's own words (English, technical), or the system's error name
# (ENOSPC) and its reason (in the reader's language).
NOTHING_WRITTEN = say(
    "store.fault.nothing_written", "{path}: {advice}; nothing was written ({detail})"
)
# Translators: {name} is the error's C name (ENOSPC); {reason} the system's words for it.
SYSTEM_ERROR = say("store.fault.system_error", "{name}: {reason}")


# Translators: {path} is the database file; {kept} one of the two sentences below.
REPLACED = say(
    "store.file_replaced",
    "{path} (or its -wal) was removed, moved or replaced while the server had it open: "
    "nothing more is written, since it would be lost; {kept}",
)
# Translators: {copy} the copy's file, {path} the database file.
RESCUED = say(
    "store.file_replaced.rescued",
    "everything acknowledged until then is copied to {copy}: stop the server and put that "
    "copy in place of {path}",
)
NOT_RESCUED = say(
    "store.file_replaced.lost",
    "it could not be copied: stop the server and put the file back",
)


def _reason(exc: BaseException) -> tuple[str, str] | None:
    """The reason of a fault of the file, and SQLite's name of the error; None for
    anything else."""
    name = getattr(exc, "sqlite_errorname", None)
    if not isinstance(exc, sqlite3.Error) or not isinstance(name, str):
        return None
    reason = _REASONS.get(_primary(name))
    return None if reason is None else (reason, name)


def _primary(name: str) -> str:
    """SQLite's primary name of an error (``SQLITE_IOERR_WRITE``: ``SQLITE_IOERR``)."""
    return "_".join(name.split("_")[:2])


def explain(exc: BaseException) -> Text:
    """What ``exc`` says, in the reader's language, with what to do where it is known
    (anything but SQLite's own errors: :func:`~rollbridge.stores.base.unexpected`):
    a sentence (``the disk is full: free space on it``), then SQLite's or Python's own
    words in parentheses, as they are (``(SQLITE_FULL: database or disk is full)``),
    but for their control characters, escaped (:func:`~rollbridge.visible.visible`):
    SQLite quotes a damaged file's schema (``unrecognized token: "\x1c"``), and a
    control character there would end the CLI's one line or drive the terminal."""
    name = getattr(exc, "sqlite_errorname", None)
    found = _reason(exc)
    if found is not None:
        advice = _advice(*found)
    elif isinstance(name, str) and _primary(name) in _FILE_FAULTS:
        advice = _FILE_FAULTS[_primary(name)]()
    elif isinstance(exc, sqlite3.Error):
        advice = OTHER_FAULT()
    elif isinstance(exc, UnicodeDecodeError):  # SQLite's words about a damaged schema,
        # or a stored text, not UTF-8: Python's sqlite3 cannot decode them
        advice = _FILE_FAULTS["SQLITE_CORRUPT"]()
    else:
        return unexpected(exc)
    said = str(exc) or type(exc).__name__
    detail = f"{name}: {said}" if isinstance(name, str) else f"{type(exc).__name__}: {said}"
    return WITH_DETAIL(advice=advice, detail=visible(detail[:300]))


#: SQLite's primary result codes of a write that failed: I/O, disk full.
_WRITE_FAILURES = {sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL}

#: The system's errors of a write that found no room: disk full, a file past the
#: size limit (``ulimit -f``), a quota.
_NO_ROOM = {errno.ENOSPC, errno.EFBIG, errno.EDQUOT}


def failed_writing(exc: BaseException) -> bool:
    """Whether ``exc`` is a write that failed (SQLite's I/O error or full disk, the
    system's disk full, size limit or quota): where a command reads one file and
    writes another (a copy), the fault of the file written."""
    if isinstance(exc, OSError):
        return exc.errno in _NO_ROOM
    code = getattr(exc, "sqlite_errorcode", None) if isinstance(exc, sqlite3.Error) else None
    return isinstance(code, int) and code & 0xFF in _WRITE_FAILURES


def store_wide(path: Path, exc: BaseException) -> StoreUnavailable | None:
    """``exc`` as a :class:`StoreUnavailable` if it is a fault of the file (see the
    module docstring), else None."""
    found = _reason(exc)
    if found is None:
        return None
    reason, name = found
    return StoreUnavailable(
        NOTHING_WRITTEN(path=str(path), advice=_advice(reason, name), detail=f"{name}: {exc}"),
        details={"reason": reason},
    )


def need_room(path: Path, extra: int = PROBE_ROOM) -> None:
    """Reserve, in a scratch file beside the database ``path`` leads to (removed at
    once), as many bytes as its ``-wal`` holds and ``extra`` more: a commit refused
    for room (a full disk, the size limit of ``ulimit -f``) had grown the ``-wal`` as
    far as it could, so one page written in that space proves nothing — this does.

    :raises StoreUnavailable: no such room (``details["reason"]`` ``disk_full``, or
        ``io`` for anything else, a size limit among them).
    """
    path = path.resolve()  # SQLite names its files after the file a symlink leads to
    wal, scratch = path.with_name(path.name + "-wal"), path.with_name(path.name + "-probe")
    try:
        size = (os.stat(wal).st_size if os.path.exists(wal) else 0) + extra
        fd = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            _reserve(fd, size)
        finally:
            os.close(fd)
    except OSError as exc:
        full = exc.errno in (errno.ENOSPC, errno.EDQUOT)
        reason = "disk_full" if full else "io"
        name = errno.errorcode.get(exc.errno or 0, "OSError")
        detail = SYSTEM_ERROR(name=name, reason=system_reason(exc))
        raise StoreUnavailable(
            NOTHING_WRITTEN(path=str(path), advice=_ADVICE[reason](), detail=detail),
            details={"reason": reason},
        ) from exc
    finally:
        with suppress(OSError):
            os.unlink(scratch)


def _reserve(fd: int, size: int) -> None:
    """Have the file system give ``fd`` ``size`` bytes (written as zeros where it
    cannot be asked to: no ``posix_fallocate`` on Windows or macOS)."""
    if hasattr(os, "posix_fallocate"):
        os.posix_fallocate(fd, 0, size)
        return
    chunk = bytes(1 << 16)
    while size > 0:
        size -= os.write(fd, chunk[:size])


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino


class FileIdentity:
    """Which files a store opened: its database file and ``-wal``, as they are now
    (call once the file is open in WAL mode)."""

    __slots__ = ("index", "known", "mode", "path", "rescued", "tried")

    def __init__(self, path: Path) -> None:
        self.path = path
        # SQLite names the -wal and -shm after the file a symlinked path leads to
        real = path.resolve()
        wal = real.with_name(real.name + "-wal")
        self.known = [(p, i) for p in (path, wal) if (i := _identity(p)) is not None]
        shm = real.with_name(real.name + "-shm")
        #: The -shm as opened, until a write finds it gone (and says so, once).
        self.index = None if (found := _identity(shm)) is None else (shm, found)
        #: The database file's permissions, which its rescued copy gets too.
        self.mode = _mode(path)
        #: Where :meth:`check` copied the database it found gone (once per loss).
        self.rescued: Path | None = None
        #: When the copy was last tried (monotonic; None: not since the files went).
        self.tried: float | None = None

    def check(self, conn: sqlite3.Connection) -> None:
        """Before a write on ``conn`` (outside a transaction).

        :raises StoreUnavailable: the path (or its ``-wal``) names another file than
            the one opened, or none: it was removed, moved or replaced. The first
            time, the database as ``conn`` still sees it (everything committed, the
            file's descriptors being still open) is copied beside the path, and the
            error names the copy."""
        if not self.same():
            raise self.refused(conn)
        if self.index is not None and _identity(self.index[0]) != self.index[1]:
            log.warning(
                "%s (the -wal's index) was removed or replaced while the server has the "
                "database open: restart the server before any other program (a "
                "rollbridge table or admin-token command, a sqlite3 shell) opens the "
                "database to write, or its "
                "changes and this server's write over each other",
                self.index[0],
            )
            self.index = None

    def same(self) -> bool:
        """Whether the path (and its ``-wal``) still names the files opened."""
        if all(_identity(path) == known for path, known in self.known):
            self.rescued, self.tried = None, None
            return True
        return False

    def refused(self, conn: sqlite3.Connection | None) -> StoreUnavailable:
        """The error of a write refused since the files went, the database as
        ``conn`` sees it copied first (``conn`` must be one opened on the files
        opened, before they went)."""
        now = time.monotonic()
        # a copy that failed (a full disk, the folder gone) is tried again at most once
        # a minute, not at each write (each reads the whole database)
        if (
            conn is not None
            and self.rescued is None
            and (self.tried is None or now - self.tried >= RESCUE_EVERY)
        ):
            self.tried = now
            self.rescued = _rescue(conn, self.path, self.mode)
        kept = (
            RESCUED(copy=str(self.rescued), path=str(self.path))
            if self.rescued is not None
            else NOT_RESCUED()
        )
        return StoreUnavailable(
            REPLACED(path=str(self.path), kept=kept),
            details={"reason": "file_replaced"},
        )


def _mode(path: Path) -> int:
    try:
        return stat.S_IMODE(os.stat(path).st_mode) & 0o666
    except OSError:
        return 0o600


def _rescue(conn: sqlite3.Connection, path: Path, mode: int = 0o600) -> Path | None:
    """Copy what ``conn`` sees to ``<path>.rescued-<time>``, a new file with the
    database's permissions (``mode``); None if it cannot, leaving no partial copy."""
    target = path.with_name(f"{path.name}.rescued-{time.strftime('%Y%m%dT%H%M%S')}")
    made = False
    try:
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode))
        made = True
        copy = sqlite3.connect(target)
        try:
            conn.backup(copy)
        finally:
            copy.close()
    except (sqlite3.Error, OSError) as exc:
        log.error("copying the database %s to %s failed: %s", path, target, exc)
        if made:
            for leftover in (target, target.with_name(target.name + "-journal")):
                with suppress(OSError):
                    leftover.unlink()
        return None
    return target


class LockWait:
    """How long a write waits for another connection's lock: ``busy_timeout``, or a
    tenth of it (at least 0.1 s) after a write found the lock held all that time,
    until a write succeeds (see the module docstring)."""

    __slots__ = ("full", "held", "short")

    def __init__(self, busy_timeout: float) -> None:
        self.full = busy_timeout
        self.short = min(busy_timeout, max(0.1, busy_timeout / 10))
        #: The last write found the lock held (and no write succeeded since).
        self.held = False

    def set(self, conn: sqlite3.Connection, local: object) -> None:
        """Before a write on ``conn`` (``local``: its thread's state, which keeps
        the wait set on it)."""
        wait = self.short if self.held else self.full
        if getattr(local, "busy_wait", None) != wait:
            conn.execute(f"PRAGMA busy_timeout = {int(wait * 1000)}")
            local.busy_wait = wait  # type: ignore[attr-defined]

    def done(self, error: StoreUnavailable | None) -> None:
        """After a write: ``error`` if it failed as a whole, else None."""
        self.held = error is not None and error.details.get("reason") == "locked"
