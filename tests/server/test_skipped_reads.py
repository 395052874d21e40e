"""A read of the log skipped because its asker left (``rollbridge_store_reads_total``
``{outcome="skipped"}``) read nothing: it tells nothing of the store's health.

Found by review: while the store failed for reads alone (Redis down, players joining,
no change sent), a ``state`` at an earlier seq whose asker left before its turn came
back "read" — and the server logged ``the store works again``, set
``rollbridge_store_failing`` to 0 and began a new outage at the next failure, with the
store still down all along."""

from __future__ import annotations

import asyncio
import threading

from rollbridge.exceptions import StoreUnavailable

DOWN = StoreUnavailable("the store is down", details={"reason": "down"})


async def test_a_read_skipped_as_its_asker_left_does_not_end_an_outage(tables, monkeypatch, caplog):
    gm, _ = await tables.join("tally", "gm")
    for _ in range(3):
        assert (await gm.request({"type": "roll", "formula": "1d6"}))["status"] == "done"
    server = tables.server
    held, release = threading.Event(), threading.Event()

    def failing(table_id, seq, until=None):
        held.set()
        release.wait(10)  # the table's one read of the log is out meanwhile
        raise DOWN

    monkeypatch.setattr(tables.store, "events_after", failing)
    first = await gm.send({"type": "state", "at": 1})
    await asyncio.to_thread(held.wait, 10)
    leaving, _ = await tables.join("tally", "observer")
    await leaving.send({"type": "state", "at": 2})  # waits its turn behind the first
    await leaving.close()
    release.set()
    refused = await gm.reply(first)
    assert refused["code"] == "store_error", refused
    assert server.health.failing is not None

    def skipped() -> float:
        return server.metrics.store_reads.labels("skipped")._value.get()

    for _ in range(200):
        if skipped():
            break
        await asyncio.sleep(0.05)
    assert skipped() == 1
    await asyncio.sleep(0.05)  # the skipped read's follow-ups have run
    assert server.health.failing is not None, "a read that read nothing ended the outage"
    assert "the store works again" not in caplog.text
