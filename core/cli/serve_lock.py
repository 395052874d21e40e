"""The serve lock: ``<db>.lock`` beside a SQLite file, held by the one ``rollbridge
serve`` of that file (docs/operations.md, "One server per database file").

``serve`` takes it for its life (:func:`lock_database`): a second ``serve`` on the file
would refuse most requests with ``store_error``, each process's commits breaking the
other's sequence. ``migrate`` holds it while it reads the file
(:func:`hold_unserved`), or writes it (moving tables back from Redis), refusing while
a ``serve`` holds it: what that server commits after the copy would be lost. A file
never served has no lock file yet: ``migrate`` makes it, and removes it again when it
is done (:meth:`Held.release`), so it leaves nothing beside the file. A process that
opened a lock file just before ``migrate`` removed it finds, once it has the lock, that
the name is no longer that file, and takes the lock of the file the name now is. The ``table``,
``admin-token``, ``backup`` and ``export`` commands take no lock: they run beside a
server. The lock is an ``flock`` of the file the database really is (symlinks
resolved), so it goes with the process however it ends; where the system has no
``fcntl`` (Windows) nothing is locked, and a WARNING says so. Only ``flock``'s "held
by another" errors mean the file is in use; any other (a file system without locks)
is a ``store_error`` naming the lock file.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
from dataclasses import dataclass
from typing import Any, NamedTuple

from rollbridge.exceptions import Conflict, StoreError
from rollbridge.system_words import system_reason
from rollbridge.text import Messages

__all__ = [
    "Held",
    "Taken",
    "hold_unserved",
    "lock_database",
    "lock_path",
    "remove_lock",
    "take_serve_lock",
]

log = logging.getLogger("rollbridge.store")

say = Messages("rollbridge")
# Translators: {path} the database; {lock} its lock file. A serve refused while
# another serve runs on the file, or a migrate reads it (moving tables to Redis) or
# writes it (moving them back from Redis).
IN_USE = say(
    "cli.serve.in_use",
    "another rollbridge process holds {lock}: a serve running on {path} (stop it first, "
    "or give this one another --db), or a migrate reading or writing it (wait until it ends)",
)
# Translators: {path} the lock file; {error} the system's (English) reason.
CANNOT_LOCK = say("cli.serve.cannot_lock", "cannot open the lock file {path}: {error}")
# Translators: {path} the lock file; {error} the system's reason ("Permission denied",
# "Read-only file system"); {folder} the database's folder. A serve (or migrate) run
# as a user that may not write the database's folder, or on a read-only file system.
CANNOT_LOCK_HERE = say(
    "cli.serve.cannot_lock_here",
    "cannot open the lock file {path}: {error}: the server keeps its lock file, and the "
    "database's -wal and -shm files, in the folder {folder}: let the user it runs as "
    "write there, or give another --db (or $ROLLBRIDGE_DB)",
)
# Translators: {path} the lock file; {error} the system's reason ("Permission
# denied"). The folder may be written, but the lock file there is another user's
# (a serve once run as root); chown is a command, typed as it is.
NOT_ITS_LOCK = say(
    "cli.serve.not_its_lock",
    "cannot open the lock file {path}: {error}: the file belongs to another user (a "
    "serve once run as root?), not to the user this one runs as: give it to that user "
    "(chown), or remove it while no rollbridge serve or migrate runs on the database",
)
#: The errors of a folder this user may not write, or a read-only file system.
_NOT_WRITABLE = frozenset({errno.EACCES, errno.EPERM, errno.EROFS})
# Translators: {path} the lock file; {error} the system's (English) reason, e.g. a file
# system that cannot lock files.
CANNOT_FLOCK = say("cli.serve.cannot_flock", "cannot lock the lock file {path}: {error}")
# Translators: {path} the database; {lock} its lock file.
SERVED = say(
    "cli.migrate.served",
    "a rollbridge serve is running on {path}, or another migrate reads it (it holds "
    "{lock}): stop the serve before migrating, so that it changes nothing after the copy",
)
#: How often a lock file that another process removed meanwhile is opened again.
_TRIES = 5


def lock_path(db: str | os.PathLike[str]) -> str:
    """The lock file of the database ``db``: beside the file it really is."""
    return f"{os.path.realpath(db)}.lock"


def lock_database(db: str | os.PathLike[str]) -> int | None:
    """Take ``db``'s serve lock for this process's life, before the store is opened
    (or its schema migrated): one ``serve`` per SQLite file.

    :returns: the lock's file descriptor (closing it lets go), or None when nothing
        was locked (no ``fcntl``; the database's folder does not exist, which opening
        the store reports).
    :raises Conflict: another process holds it (``database_in_use``).
    :raises StoreError: the lock file cannot be opened or locked.
    """
    taken = take_serve_lock(db)
    return None if taken is None else taken.descriptor


class Taken(NamedTuple):
    """The serve lock as :func:`take_serve_lock` took it."""

    #: The lock file's descriptor (closing it lets go).
    descriptor: int
    #: Whether this call made the lock file (``O_CREAT | O_EXCL``): a ``serve`` whose
    #: start fails removes only a lock file it made. Its absence looked at before
    #: could be another process's meanwhile (a ``migrate`` that made it and ended, a
    #: ``serve`` that made it and stopped).
    created: bool


def take_serve_lock(db: str | os.PathLike[str]) -> Taken | None:
    """:func:`lock_database`, saying too whether it made the lock file.

    :raises Conflict: another process holds it (``database_in_use``).
    :raises StoreError: the lock file cannot be opened or locked.
    """
    fcntl = _fcntl(db, "a second serve")
    path = os.path.realpath(db)
    if fcntl is None or not os.path.isdir(os.path.dirname(path)):
        return None
    return Taken(*_take_or_refuse(fcntl, path, IN_USE))


def remove_lock(descriptor: int, db: str | os.PathLike[str]) -> None:
    """Remove ``db``'s lock file, whose lock this process holds (``descriptor``, from
    :func:`lock_database`), before letting go — only while its name is still the file
    locked: one removed meanwhile (by hand, a cleaner) and made again by another
    ``serve`` is that one's lock, and stays."""
    path = lock_path(db)
    if _is_named(descriptor, path):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


@dataclass(slots=True)
class Held:
    """The serve lock ``migrate`` holds (:func:`hold_unserved`)."""

    #: The lock file's descriptor.
    descriptor: int
    #: The lock file.
    path: str
    #: Whether ``migrate`` made the lock file (the database was never served).
    created: bool

    def release(self) -> None:
        """Let go: the lock file removed first if this process made it (still holding
        the lock, so that no one takes it meanwhile), then closed."""
        try:
            if self.created:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self.path)
        finally:
            os.close(self.descriptor)


def hold_unserved(db: str | os.PathLike[str]) -> Held | None:
    """Hold ``db``'s serve lock while ``migrate`` reads the file, so that no ``serve``
    starts on it meanwhile. A database never served has no lock file: it is made, and
    :meth:`Held.release` removes it.

    :returns: the lock held (:meth:`Held.release` lets go), or None when there is
        nothing to hold (no database file, which opening it reports; no ``fcntl``).
    :raises Conflict: a ``serve`` (or another ``migrate``) holds it
        (``database_in_use``).
    :raises StoreError: the lock file cannot be opened or locked.
    """
    fcntl = _fcntl(db, "a running serve")
    path = os.path.realpath(db)
    if fcntl is None or not os.path.isfile(path):
        return None
    descriptor, created = _take_or_refuse(fcntl, path, SERVED)
    return Held(descriptor, lock_path(path), created)


def _fcntl(db: str | os.PathLike[str], against: str) -> Any:
    """The ``fcntl`` module, or None (and a WARNING) where the system has none."""
    try:
        import fcntl
    except ImportError:
        log.warning("this system has no fcntl: %s is not locked against %s", db, against)
        return None
    return fcntl


def _take_or_refuse(fcntl: Any, path: str, held: Any) -> tuple[int, bool]:
    """The lock of the database ``path`` taken (:func:`_take`).

    :raises Conflict: another process holds it (``database_in_use``, worded by the
        message ``held``, given the database and its lock file).
    """
    taken = _take(fcntl, lock_path(path))
    if taken is None:
        raise Conflict(held(path=path, lock=lock_path(path)), code="database_in_use",
                       details={"path": path})  # fmt: skip
    return taken


def _take(fcntl: Any, path: str) -> tuple[int, bool] | None:
    """The lock file ``path`` (made if missing) locked without waiting: its descriptor
    and whether this call made it; None if another process holds it.

    :raises StoreError: it cannot be opened or locked.
    """
    for _ in range(_TRIES):
        try:
            descriptor, created = _open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL), True
        except FileExistsError:
            try:
                descriptor, created = _open_existing(path), False
            except FileNotFoundError:
                continue  # removed meanwhile (a migrate that made it ended): again
        try:
            if not _locked(fcntl, descriptor, path):
                return None
        except StoreError:
            if created:  # nothing left behind by a lock that could not be taken
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path)
            raise
        if _is_named(descriptor, path):
            return descriptor, created
        os.close(descriptor)  # removed after it was opened: lock the file it now names
    return None


def _open(path: str, flags: int) -> int:
    """The lock file opened. :raises FileExistsError: FileNotFoundError: as
    ``os.open`` (for :func:`_take`); :raises StoreError: on any other error."""
    try:
        return os.open(path, flags, 0o600)
    except (FileExistsError, FileNotFoundError):
        raise
    except OSError as exc:
        raise StoreError(_why_not(path, exc)) from None


def _why_not(path: str, exc: OSError) -> Any:
    """Why the lock file ``path`` could not be opened (``exc``): its folder this user
    may not write (or a read-only file system), the lock file alone another user's in
    a folder it may write (it once said the folder, which was not the problem), or the
    system's reason alone."""
    error = system_reason(exc)
    if exc.errno not in _NOT_WRITABLE:
        return CANNOT_LOCK(path=path, error=error)
    folder = os.path.dirname(path)
    if exc.errno != errno.EROFS and os.access(folder, os.W_OK) and os.path.lexists(path):
        return NOT_ITS_LOCK(path=path, error=error)
    return CANNOT_LOCK_HERE(path=path, error=error, folder=folder)


def _open_existing(path: str) -> int:
    """An existing lock file opened for reading and writing (an exclusive ``flock`` on
    NFS, which Linux makes a POSIX lock, needs a descriptor open for writing), or for
    reading only where this user may not write it (a local ``flock`` needs no more).
    :raises FileNotFoundError: as :func:`_open`; :raises StoreError: otherwise."""
    try:
        return os.open(path, os.O_RDWR)
    except PermissionError:
        return _open(path, os.O_RDONLY)
    except (FileExistsError, FileNotFoundError):
        raise
    except OSError:
        return _open(path, os.O_RDWR)  # its error, as _open words it


def _is_named(descriptor: int, path: str) -> bool:
    """Whether ``path`` still names the open file ``descriptor``."""
    opened = os.fstat(descriptor)
    try:
        named = os.stat(path)
    except FileNotFoundError:
        return False
    return (opened.st_dev, opened.st_ino) == (named.st_dev, named.st_ino)


#: What ``flock`` says when another process holds the lock (``EACCES``: some systems'
#: ``fcntl`` locks).
_HELD_ELSEWHERE = frozenset({errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES})


def _locked(fcntl: Any, descriptor: int, path: str) -> bool:
    """Take the lock without waiting; False (the descriptor closed) if another holds it.

    :raises StoreError: ``flock`` failed otherwise (the descriptor closed).
    """
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(descriptor)
        if exc.errno in _HELD_ELSEWHERE:
            return False
        raise StoreError(CANNOT_FLOCK(path=path, error=system_reason(exc))) from None
    return True
