"""Durable stores of tables, event logs, idempotency replies and tokens.

Every store implements :class:`~rollbridge.engine.store.Store`, with the
semantics of :class:`~rollbridge.engine.store.MemoryStore` (the reference,
re-exported here). :class:`SQLiteStore` is the embedded default of
``rollbridge serve``: one SQLite file in WAL mode, durable at each commit,
with group commit (:meth:`SQLiteStore.commit_many`); the CLI administers the
same file while a server runs. :func:`rollbridge.paths.default_db_path` says
where that file lives by default::

    from rollbridge.paths import default_db_path
    from rollbridge.stores import SQLiteStore

    store = SQLiteStore(default_db_path())
"""

from rollbridge.engine.store import DEFAULT_RETAIN, MemoryStore, Store
from rollbridge.stores.sqlite import SCHEMA_VERSION, PreparedCommit, SQLiteStore

__all__ = [
    "DEFAULT_RETAIN",
    "SCHEMA_VERSION",
    "MemoryStore",
    "PreparedCommit",
    "SQLiteStore",
    "Store",
]
