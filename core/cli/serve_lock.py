"""The serve lock: ``<db>.lock`` beside a SQLite file, held by the one ``rollbridge
serve`` of that file (docs/operations.md, "One server per database file").

``serve`` takes it for its life (:func:`lock_database`): a second ``serve`` on the file
would refuse most requests with ``store_error``, each process's commits breaking the
other's sequence. ``migrate`` holds it while it reads the file
(:func:`hold_unserved`), refusing while a ``serve`` holds it: what that server
commits after the copy would be lost. The ``table``, ``admin-token``, ``backup`` and
``export`` commands take no lock: they run beside a server. The lock is an
``flock`` of the file the database really is (symlinks resolved), so it goes with
the process however it ends; where the system has no ``fcntl`` (Windows) nothing is
locked, and a WARNING says so.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from rollbridge.exceptions import Conflict, StoreError
from rollbridge.text import Messages

__all__ = ["hold_unserved", "lock_database", "lock_path"]

log = logging.getLogger("rollbridge.store")

say = Messages("rollbridge")
# Translators: {path} the database; {lock} its lock file. A serve refused while
# another serve runs on the file, or a migrate reads it.
IN_USE = say(
    "cli.serve.in_use",
    "another rollbridge process holds {lock}: a serve running on {path} (stop it first, "
    "or give this one another --db), or a migrate reading it (wait until it ends)",
)
# Translators: {path} the lock file; {error} the system's (English) reason.
CANNOT_LOCK = say("cli.serve.cannot_lock", "cannot open the lock file {path}: {error}")
# Translators: {path} the database; {lock} its lock file.
SERVED = say(
    "cli.migrate.served",
    "a rollbridge serve is running on {path} (it holds {lock}): stop it before migrating, "
    "so that it changes nothing after the copy",
)


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
    :raises StoreError: the lock file cannot be opened.
    """
    fcntl = _fcntl(db, "a second serve")
    path = os.path.realpath(db)
    if fcntl is None or not os.path.isdir(os.path.dirname(path)):
        return None
    descriptor = _open(lock_path(path), os.O_RDWR | os.O_CREAT)
    if descriptor is not None and not _locked(fcntl, descriptor):
        raise Conflict(
            IN_USE(path=path, lock=lock_path(path)),
            code="database_in_use",
            details={"path": path},
        )
    return descriptor


def hold_unserved(db: str | os.PathLike[str]) -> int | None:
    """Hold ``db``'s serve lock while ``migrate`` reads the file, so that no ``serve``
    starts on it meanwhile; nothing is made beside the file (a database never served
    has no lock file, and no server).

    :returns: the lock's file descriptor (closing it lets go), or None when there is
        nothing to hold (no lock file, or no ``fcntl``).
    :raises Conflict: a ``serve`` runs on the file (``database_in_use``).
    :raises StoreError: the lock file cannot be opened.
    """
    fcntl = _fcntl(db, "a running serve")
    path = os.path.realpath(db)
    descriptor = None if fcntl is None else _open(lock_path(path), os.O_RDONLY)
    if descriptor is None:
        return None
    if not _locked(fcntl, descriptor):
        raise Conflict(
            SERVED(path=path, lock=lock_path(path)),
            code="database_in_use",
            details={"path": path},
        )
    return descriptor


def _fcntl(db: str | os.PathLike[str], against: str) -> Any:
    """The ``fcntl`` module, or None (and a WARNING) where the system has none."""
    try:
        import fcntl
    except ImportError:
        log.warning("this system has no fcntl: %s is not locked against %s", db, against)
        return None
    return fcntl


def _open(path: str, flags: int) -> int | None:
    """The lock file opened (read-only will do for ``flock``); None if it does not
    exist and ``flags`` do not make it."""
    try:
        return os.open(path, flags, 0o600)
    except OSError as exc:
        if isinstance(exc, FileNotFoundError) and not flags & os.O_CREAT:
            return None
        raise StoreError(CANNOT_LOCK(path=path, error=exc.strerror or str(exc))) from None


def _locked(fcntl: Any, descriptor: int) -> bool:
    """Take the lock without waiting; False (the descriptor closed) if another holds it."""
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(descriptor)
        return False
    return True
