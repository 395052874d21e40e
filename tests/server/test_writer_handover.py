"""The commit writer's hand-over to and from the event loop
(rollbridge.server.writer): a group commit's callbacks run in the loop in the
order the commits were submitted — a commit refused because an earlier one of its
table failed included, wherever it sits in the group — and every commit queued
during the linger is taken into the group, none left behind for a group of its
own. The writer puts its results back in order only when a refused commit was told
before one written that was submitted first, and asks its queue whether it is
empty rather than catching ``queue.Empty`` (docs/performance.md, "The loop's glue,
7 December (evening)"). A real SQLite file."""

from __future__ import annotations

import asyncio
import threading
import time
import types
from typing import Any

import pytest

from rollbridge.engine import ActorRecord, Commit, Event, TableInfo
from rollbridge.exceptions import StoreError
from rollbridge.server.writer import CommitWriter, _Item
from rollbridge.stores.sqlite import SQLiteStore


def info(table_id: str) -> TableInfo:
    return TableInfo(table_id, f"Table {table_id}", "tally", "1.2.0", {"approval": False})


def commit_at(table_id: str, seq: int) -> Commit:
    """The commit bringing event ``seq`` of ``table_id``."""
    event = Event(table_id, 1, seq, "roll", data={"total": seq})
    actor = ActorRecord(f"a{seq}", "A", {"hp": 5}, {"damage": 0})
    meta = {"encounter": None, "pending": {}, "undo": [], "redo": []}
    table = TableInfo(table_id, f"Table {table_id}", "tally", "1.2.0", {"approval": False}, 1, seq)
    return Commit([event], [actor], [], table, meta, {f"k{seq}": {"seq": seq}})


def held_linger(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """The writer's linger (``time.sleep(linger)`` once it took a group's first
    commit) waits for the event returned instead of the clock: every commit submitted
    before the test sets it is in the queue when the writer takes the rest of the
    group, however late the loop or the machine is (a 0.2 s linger assumed the
    submits landed within it, and under load could split the group)."""
    submitted = threading.Event()
    clock = types.SimpleNamespace(
        sleep=lambda seconds: submitted.wait(60), perf_counter=time.perf_counter
    )
    monkeypatch.setattr("rollbridge.server.writer.time", clock)
    return submitted


async def until(check: Any) -> None:
    for _ in range(500):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("not in time")


async def test_callbacks_run_in_submission_order_with_a_refused_commit_after_written_ones(
    tmp_path,
):
    store = SQLiteStore(tmp_path / "order.db")
    for table_id in "abc":
        store.create_table(info(table_id), [])
    loop = asyncio.get_running_loop()
    writer = CommitWriter(store, loop)
    told: list[tuple[str, BaseException | None]] = []
    try:
        writer._poisoned.add("b")  # an earlier commit of b failed; b is not reloaded yet
        batch = [
            _Item(t, commit_at(t, 1), lambda error, t=t: told.append((t, error)))
            for t in ("a", "b", "c")
        ]
        writer.pending += 3
        writer._write(batch)
        await until(lambda: len(told) == 3)
        assert [t for t, _ in told] == ["a", "b", "c"]  # b's refusal in its place
        assert told[0][1] is None and told[2][1] is None
        assert isinstance(told[1][1], StoreError)
        assert store.load("a")[0].info.seq == 1 and store.load("c")[0].info.seq == 1
        assert store.load("b")[0].info.seq == 0  # nothing of b written
    finally:
        await loop.run_in_executor(None, writer.close)
        store.close()


async def test_every_commit_queued_in_the_linger_is_one_group_and_the_stop_ends_it(
    tmp_path, monkeypatch
):
    store = SQLiteStore(tmp_path / "group.db")
    store.create_table(info("t"), [])
    loop = asyncio.get_running_loop()
    submitted = held_linger(monkeypatch)
    writer = CommitWriter(store, loop, linger=0.2)
    told: list[int] = []
    try:
        for seq in range(1, 6):  # all in the queue before the linger ends
            writer.submit("t", commit_at("t", seq), lambda error, seq=seq: told.append(seq))
        submitted.set()
        await until(lambda: len(told) == 5)
        assert told == [1, 2, 3, 4, 5]
        assert (writer.batches, writer.commits) == (1, 5)  # one group, none left behind
    finally:
        await loop.run_in_executor(None, writer.close)
    assert store.load("t")[0].info.seq == 5
    store.close()


async def test_a_writer_stopping_with_more_than_a_group_queued_writes_them_all_in_order(
    tmp_path,
):
    """``close`` with more commits queued than one group takes (``MAX_BATCH``): the
    queue is drained group after group up to the stop — each group asked whether the
    queue is empty, none taking more than ``MAX_BATCH`` — every commit is written and
    told in the order submitted, and one submitted after the stop is refused
    (``stopping``) without being queued behind it."""
    from rollbridge.exceptions import StoreUnavailable
    from rollbridge.server.writer import MAX_BATCH

    store = SQLiteStore(tmp_path / "stop.db")
    store.create_table(info("t"), [])
    loop = asyncio.get_running_loop()
    writer = CommitWriter(store, loop, linger=0)
    told: list[tuple[int, BaseException | None]] = []
    queued = 2 * MAX_BATCH + 10
    for seq in range(1, queued + 1):  # submitted, in one go, before the stop
        writer.submit("t", commit_at("t", seq), lambda error, seq=seq: told.append((seq, error)))
    await loop.run_in_executor(None, writer.close)
    writer.submit("t", commit_at("t", queued + 1), lambda error: told.append((0, error)))
    await until(lambda: len(told) == queued + 1)
    assert [seq for seq, _ in told[:queued]] == list(range(1, queued + 1))
    assert all(error is None for _, error in told[:queued])
    assert told[-1][0] == 0 and isinstance(told[-1][1], StoreUnavailable)
    assert told[-1][1].details == {"reason": "stopping"}
    assert writer.commits == queued and writer.batches >= 3  # none over MAX_BATCH
    assert store.load("t")[0].info.seq == queued
    store.close()
