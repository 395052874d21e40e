"""The SQLite store's statements bind their parameters with plain ``?`` placeholders.

CPython 3.12.0 to 3.12.3 (Ubuntu 24.04's ``python3`` is 3.12.3) take a numbered
placeholder (``?1``) for a named one and warn, on every statement that binds a tuple to
one, ``DeprecationWarning: Binding 1 ('?1') is a named parameter, but you supplied a
sequence …``: under ``-W error`` (a plugin author's test suite with
``filterwarnings = error``, ``PYTHONWARNINGS=error``) every read of a table raised.
Before, four statements (a table's head, the table list, the events since a seq, the
log's trim) held ``?1``/``?2``/``?3``; they bind each value as often as they use it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import rollbridge.stores
from rollbridge.engine import ActorRecord, Commit, Event, TableInfo
from rollbridge.stores.sqlite import SQLiteStore

NUMBERED = re.compile(r"\?\d")
SQL = re.compile(r"\b(SELECT|INSERT|UPDATE|DELETE|REPLACE)\b")


def test_no_statement_of_the_stores_uses_a_numbered_placeholder():
    found = []
    for folder in rollbridge.stores.__path__:
        for path in sorted(Path(folder).glob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for node in ast.walk(tree):
                text = node.value if isinstance(node, ast.Constant) else None
                if isinstance(text, str) and SQL.search(text) and NUMBERED.search(text):
                    found.append(f"{path.name}:{node.lineno}: {text.strip()[:70]}")
    assert not found, found


def test_the_store_still_reads_what_it_wrote(tmp_path):
    """The statements, with their values bound once for each use: a table's head, the
    table list and the events after a seq read what was written."""
    store = SQLiteStore(tmp_path / "t.db")
    try:
        store.create_table(TableInfo("t1", "Table t1", "tally", "1.2.0", {}, 1, 0), [])
        for seq in range(1, 6):
            meta = {"encounter": None, "pending": {}, "undo": [seq], "redo": [], "dice": None}
            store.commit("t1", Commit(
                [Event("t1", 1, seq, "roll", data={"total": seq})],
                [ActorRecord("a", "A", {"hp": seq}, {})], [],
                TableInfo("t1", "Table t1", "tally", "1.2.0", {}, 1, seq), meta,
                {f"gm#t1-{seq}": {"seq": seq}},
            ))  # fmt: skip
        assert [t.seq for t in store.tables()] == [5]
        after = store.events_after("t1", 3)
        assert after is not None
        assert [(e.seq, e.data["total"]) for e in after] == [(4, 4), (5, 5)]
        assert [e.seq for e in store.events_after("t1", 1, until=3) or []] == [2, 3]
    finally:
        store.close()
