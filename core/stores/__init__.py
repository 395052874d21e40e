"""Durable stores of tables, event logs, idempotency replies, join and admin tokens.

Every store implements :class:`~rollbridge.stores.base.Store`, with the
semantics of :class:`~rollbridge.stores.memory.MemoryStore` (the reference).
:class:`~rollbridge.stores.sqlite.SQLiteStore` is the embedded default of
``rollbridge serve``: one SQLite file in WAL mode, durable at each commit,
with group commit (:meth:`SQLiteStore.commit_many`); the CLI administers the
same file while a server runs. :func:`rollbridge.paths.default_db_path` says
where that file lives by default::

    from rollbridge.paths import default_db_path
    from rollbridge.stores import SQLiteStore

    store = SQLiteStore(default_db_path())

:func:`rollbridge.stores.backup.backup` copies that file online, while a
server writes to it (``rollbridge backup``).

The stores are imported on first use, so a program that needs neither (the
command line's parser) loads neither the engine's model nor ``sqlite3``.
"""

from __future__ import annotations

from typing import Any

from rollbridge.stores.base import DEFAULT_RETAIN, Store, reply_window

__all__ = ["DEFAULT_RETAIN", "MemoryStore", "SQLiteStore", "Store", "reply_window"]


def __getattr__(name: str) -> Any:
    if name == "SQLiteStore":
        from rollbridge.stores.sqlite import SQLiteStore

        return SQLiteStore
    if name == "MemoryStore":
        from rollbridge.stores.memory import MemoryStore

        return MemoryStore
    raise AttributeError(name)
