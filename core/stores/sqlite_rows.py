"""What a SQLite log row holds that the store's writer and a table's import
(:mod:`rollbridge.stores.sqlite_import`) both write: one home, so that neither
imports the other (tests/test_imports.py)."""

from __future__ import annotations

__all__ = ["SAME_INFO"]

#: A log row's ``info`` when its commit left the table's info as it was (the whole
#: info is on the nearest row before it that holds one).
SAME_INFO = b""
