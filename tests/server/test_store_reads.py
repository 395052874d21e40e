"""``rollbridge_store_reads_total``: the store-reading threads' work, by outcome.

A read of the log skipped because its asker left (``{outcome="skipped"}``) read
nothing: it tells nothing of the store's health.

Found by review: while the store failed for reads alone (Redis down, players joining,
no change sent), a ``state`` at an earlier seq whose asker left before its turn came
back "read" — and the server logged ``the store works again``, set
``rollbridge_store_failing`` to 0 and began a new outage at the next failure, with the
store still down all along."""

from __future__ import annotations

import asyncio
import threading

from rollbridge.exceptions import StoreUnavailable
from tests.hostile.wire import http_get

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

    monkeypatch.setattr(tables.store, "changes_after", failing)  # what state at a seq reads
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
        return reads(server, "skipped")

    for _ in range(200):
        if skipped():
            break
        await asyncio.sleep(0.05)
    assert skipped() == 1
    await asyncio.sleep(0.05)  # the skipped read's follow-ups have run
    assert server.health.failing is not None, "a read that read nothing ended the outage"
    assert "the store works again" not in caplog.text


def reads(server, outcome: str) -> float:
    """``rollbridge_store_reads_total{outcome}`` of ``server``."""
    return server.metrics.store_reads.labels(outcome)._value.get()


async def test_the_http_routes_reads_on_the_reader_threads_are_counted(tables):
    """Found by review: ``/readyz``, the admin API and the export run their store
    calls on the same two reader threads (the load ``--http-rate-per-address`` was
    made for), and the counter said none of them."""
    server = tables.server
    before = reads(server, "done")
    assert (await http_get(server.port, "/readyz"))[0] == 200
    wrong = {"Authorization": "Bearer rba_wrong"}
    assert (await http_get(server.port, "/admin/tables", wrong))[0] == 401
    export = "/tables/tally/export?format=jsonl"
    assert (await http_get(server.port, export, {"Authorization": "Bearer rbt_x"}))[0] == 401
    assert reads(server, "done") == before + 3
