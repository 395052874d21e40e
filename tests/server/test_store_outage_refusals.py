"""The line that ends an outage of the store — ``the store works again, after 2 s: 1
request was refused meanwhile (none of them acknowledged; their senders were told
store_error)`` — counts the requests refused for the outage, as
``rollbridge_errors_total{code="store_error"}`` does (ops19 made a failed read count
the replies that followed it, not the read). A read that fails lets go of the
requests held behind it, and those run: one refused for a fault of its own (an
actor the table does not have) was counted as refused for the outage too, its
sender told ``unknown_actor``, not ``store_error``. A real server on a real SQLite file; the
store's read of a stored reply made to fail as a Redis gone fails it, as
tests/server/test_store_reads.py does."""

from __future__ import annotations

import asyncio
import logging
import re
import threading

from rollbridge.exceptions import StoreUnavailable

DOWN = StoreUnavailable("the store is down", details={"reason": "down"})


async def test_a_request_held_behind_a_failed_read_and_refused_for_its_own_fault_is_not_counted(
    make_tables, monkeypatch, caplog
):
    caplog.set_level(logging.INFO, "rollbridge.writer")
    tables = await make_tables()
    gm, _ = await tables.join("tally", "gm")
    assert (await gm.request({"type": "roll", "formula": "1d6", "id": "r1"}))["seq"]
    await gm.close()
    await make_tables.restart(tables)  # a new server: r1's reply only in the store
    gm, _ = await tables.join("tally", "gm")
    store = tables.store
    stored_reply = store.reply
    held, release = threading.Event(), threading.Event()

    def failing(table_id, key):
        held.set()
        release.wait(10)  # the table's next requests wait behind this read meanwhile
        raise DOWN

    monkeypatch.setattr(store, "reply", failing)
    # r1 sent again: its stored reply is read, the table's next requests held meanwhile
    first = await gm.send({"type": "roll", "formula": "1d6", "id": "r1"})
    await asyncio.to_thread(held.wait, 10)
    second = await gm.send({"type": "roll", "formula": "1d6", "actor": "nobody", "id": "bad-1"})
    release.set()
    assert (await gm.reply(first))["code"] == "store_error"
    own = await gm.reply(second)
    assert own["code"] == "unknown_actor", own
    assert tables.server.health.failing is not None

    monkeypatch.setattr(store, "reply", stored_reply)  # the store reads again
    again = await gm.request({"type": "roll", "formula": "1d6", "id": "r1"})
    assert again["type"] == "result", again
    said = [r.getMessage() for r in caplog.records
            if r.getMessage().startswith("the store works again")]  # fmt: skip
    assert len(said) == 1, said
    count = re.search(r"(\d+) requests? (?:was|were) refused meanwhile", said[0])
    assert count is not None and int(count.group(1)) == 1, said
