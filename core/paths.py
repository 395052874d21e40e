"""Where rollbridge keeps its files by default, per platform (no platformdirs needed).

The embedded database lives in the user's data directory, unless a command's
``--db`` names the file (it wins over the environment; so does ``--redis``, and
``$ROLLBRIDGE_REDIS`` without ``--db``: :mod:`rollbridge.cli.stores`):

=========  ==========================================================
``$ROLLBRIDGE_DB``  if set: that file, wherever it is
Linux/BSD  ``$XDG_DATA_HOME/rollbridge/rollbridge.db``, by default
           ``~/.local/share/rollbridge/rollbridge.db``
macOS      ``~/Library/Application Support/rollbridge/rollbridge.db``
Windows    ``%APPDATA%\\rollbridge\\rollbridge.db``
=========  ==========================================================
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from contextlib import suppress
from pathlib import Path

__all__ = [
    "APP_NAME",
    "DB_ENV",
    "DB_FILENAME",
    "default_data_dir",
    "default_db_path",
    "file_in_the_way",
]

APP_NAME = "rollbridge"
DB_FILENAME = "rollbridge.db"
#: The environment variable naming the database file (``--db`` wins over it).
DB_ENV = "ROLLBRIDGE_DB"


def default_data_dir(
    *,
    environ: Mapping[str, str] | None = None,
    platform: str | None = None,
    home: Path | None = None,
) -> Path:
    """The per-user data directory of rollbridge (not created).

    :param environ: the environment to read (default: :data:`os.environ`).
    :param platform: a :data:`sys.platform` value (default: this one).
    :param home: the user's home directory (default: :meth:`Path.home`).
    """
    env = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    home = Path.home() if home is None else home
    if platform == "win32":
        appdata = env.get("APPDATA")
        base = Path(appdata) if appdata else home / "AppData" / "Roaming"
    elif platform == "darwin":
        base = home / "Library" / "Application Support"
    else:
        # The XDG spec says to ignore a relative $XDG_DATA_HOME.
        xdg = env.get("XDG_DATA_HOME", "")
        base = Path(xdg) if xdg and os.path.isabs(xdg) else home / ".local" / "share"
    return base / APP_NAME


def default_db_path(
    *,
    environ: Mapping[str, str] | None = None,
    platform: str | None = None,
    home: Path | None = None,
    create: bool = True,
) -> Path:
    """The database file to use when none is given: ``$ROLLBRIDGE_DB`` if set,
    else ``rollbridge.db`` in :func:`default_data_dir`.

    :param environ: platform: home: as for :func:`default_data_dir`.
    :param create: create the file's directory if missing (private, mode 0700,
        when it is rollbridge's own data directory).
    """
    env = os.environ if environ is None else environ
    explicit = env.get(DB_ENV)
    if explicit:
        path = Path(explicit).expanduser()
        if create:
            # one that cannot be made (a file in the way, no permission) is left to
            # opening the database, which says why: it was a traceback
            with suppress(OSError):
                path.parent.mkdir(parents=True, exist_ok=True)
        return path
    folder = default_data_dir(environ=env, platform=platform, home=home)
    if create:
        with suppress(OSError):  # as above: opening the database says why
            folder.parent.mkdir(parents=True, exist_ok=True)
            folder.mkdir(mode=0o700, exist_ok=True)
    return folder / DB_FILENAME


def file_in_the_way(folder: Path) -> Path | None:
    """The first of ``folder`` and the folders above it that is there but is no folder
    (``--db rollbridge.db/new.db``: a file given as the folder), or None when each is a
    folder or missing. ``mkdir -p``, which a missing folder needs, cannot make that one.
    A symbolic link that leads to nothing (a disk not mounted) is no file: None, the
    missing folder it leads to is the problem (it was said to be "a file")."""
    for part in (folder, *folder.parents):
        try:
            if part.is_dir():
                return None
            if os.path.islink(part) and not os.path.exists(part):
                return None
            if os.path.lexists(part):
                return part
        except OSError:  # a name too long, a folder not searchable: no answer here
            return None
    return None
