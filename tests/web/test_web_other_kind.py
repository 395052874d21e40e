"""An event of a kind the web view has no words for — a newer server's, written to the
table's log before this page was made — in the log of a player's phone in cs, de, ru
and en, in real Chromium against a real server over a real SQLite file
(browser/other_kind.mjs). Its entry showed the kind's code (``table.noted``) as its
kind, and the GM's undo of it *undo of #5 (table.noted)*: words no player reads. They
now say *an event of another kind* in the page's language, the code kept only as the
kind's tooltip."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from rollbridge.engine.model import Commit, Event
from rollbridge.host import PluginHost
from rollbridge.stores.sqlite import SQLiteStore
from tests.web.conftest import seed_tables, serving
from tests.web.test_web_away import said
from tests.web.test_web_browser import CHROMIUM, pytestmark  # noqa: F401
from tests.web.test_web_phone import run_case

#: The kind no page has words for.
OTHER = "table.noted"


def note_other_kind(path: Path, table: str) -> tuple[int, int]:
    """Write to ``table``'s log in the store at ``path`` an event of kind :data:`OTHER`
    and the GM's undo of it (as the engine words one: ``undoes``, ``kind``); their seqs."""
    with SQLiteStore(path) as store:
        snapshot, _ = store.load(table)
        info = snapshot.info
        noted, undo = info.seq + 1, info.seq + 2
        events = [
            Event(table, info.epoch, noted, OTHER, {"note": "a newer server's"}, by="gm"),
            Event(table, info.epoch, undo, "undo", {"undoes": noted, "kind": OTHER}, by="gm"),
        ]
        after = dataclasses.replace(info, seq=undo)
        store.commit(table, Commit(events, [], [], after, snapshot.meta()))
    return noted, undo


async def test_an_event_of_another_kind_is_named_in_words(tmp_path):
    path = tmp_path / "web.db"
    host = PluginHost()
    with SQLiteStore(path) as seed:
        tokens = seed_tables(seed, host)
    noted, undo = note_other_kind(path, "web")
    async with serving(path, host, tokens) as world:
        extra = {"RB_SEQS": json.dumps({"noted": noted, "undo": undo})}
        result = await run_case(world, "other", script="other_kind.mjs", extra=extra)
    for lang in ("cs", "de", "ru", "en"):
        shown = result[lang]
        assert shown["kind"] == said(lang, "Kind.Other"), (lang, shown)
        assert shown["tooltip"] == said(lang, "Kind.OtherCode", code=OTHER), (lang, shown)
        undone = said(lang, "Log.Undo", seq=str(noted), kind=said(lang, "Kind.Other"))
        assert shown["undo"] == undone, (lang, shown)
        # the code nowhere in what the page shows
        assert OTHER not in shown["text"], (lang, shown)
