"""A follower's sync on Redis (:meth:`RedisStore.follow`): one atomic read that
returns what ``load`` + ``events_after`` + ``reply_keys`` return, reading only the
events of the latest undo and redo entries it does not hold already."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from rollbridge.engine.table import HISTORY_IN_MEMORY, Table
from rollbridge.exceptions import UnknownTable
from rollbridge.offline import TableService
from rollbridge.protocol.table import TableProtocol
from rollbridge.server.cluster_table import Sync
from rollbridge.stores.redis import RedisStore
from rollbridge.testing import host_with
from tests.conftest import GM

#: Small enough that the oldest undo entries have left the log.
RETAIN = 30


@pytest.fixture
def played(redis_server: Any, redis_prefix: str, tally: Any) -> Iterator[Any]:
    """A table ``t`` played on Redis: 24 adjustments (seqs 2-25), 11 of them undone
    (26-36): the undo stack holds 7-14 (2-6 have left the log, and each commit drops
    their entries, docs/engine.md), the redo stack 25-15."""
    store = RedisStore(redis_server.url, prefix=redis_prefix, retain=RETAIN)
    service = TableService(store, host_with(tally))
    service.create_table("Follow", "tally", table_id="t")
    service.handle("t", {"type": "actor.create", "id": "c", "actor": {
        "id": "guard", "name": "Guard", "sheet": {"hp": 99}}}, GM)  # fmt: skip
    for n in range(24):
        message = {"type": "adjust", "id": f"a{n}", "actor": "guard", "track": "damage",
                   "delta": 1}  # fmt: skip
        service.handle("t", message, GM)
    for n in range(11):
        service.handle("t", {"type": "undo", "id": f"u{n}"}, GM)
    yield store, service
    store.close()


def counting(store: RedisStore, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the scripts the store runs from now on."""
    ran: list[str] = []
    run = store._run

    def counted(name: str, *args: Any) -> Any:
        ran.append(name)
        return run(name, *args)

    monkeypatch.setattr(store, "_run", counted)
    return ran


def state(table: Table) -> dict[str, Any]:
    return {
        "info": table.info.to_dict(),
        "actors": {a: r.to_dict() for a, r in table.actors.items()},
        "order": list(table.actors),
        "meta": table.meta(),
        "undo": table.undo_stack,
        "redo": table.redo_stack,
        "history": table.recent_history(),
    }


def loaded_table(store: RedisStore, tally: Any) -> Table:
    snapshot, history = store.load("t")
    return Table(snapshot, tally, history)


def test_the_played_table_has_long_stacks(played, tally):
    store, _ = played
    table = loaded_table(store, tally)
    assert table.info.seq == 36
    assert table.undo_stack == list(range(7, 15))  # 2-6 left the log
    assert table.redo_stack == list(range(25, 14, -1))
    assert len(table.redo_stack) > HISTORY_IN_MEMORY
    snapshot, _ = store.load("t")
    assert snapshot.undo == list(range(7, 15))  # as stored: the commits dropped 2-6


@pytest.mark.parametrize("after", [0, 5, 10, 20, 33, 36])
@pytest.mark.parametrize("known_kind", ["empty", "partly", "other_epoch", "all"])
def test_follow_reads_what_load_events_after_and_reply_keys_read(
    played, tally, monkeypatch, after, known_kind
):
    store, _ = played
    expected = loaded_table(store, tally)
    events = store.events_after("t", after)
    keys = store.reply_keys("t")
    recent = expected.recent_history()
    epoch = expected.info.epoch
    known: dict[int, bytes] = {}
    if known_kind == "partly":
        known = {s: b for n, (s, b) in enumerate(sorted(recent.items())) if n % 2}
    elif known_kind == "all":
        known = dict(recent)
    elif known_kind == "other_epoch":  # wrong bytes, another epoch: never used
        known = {s: b"\x80" for s in recent}
        epoch += 1
    ran = counting(store, monkeypatch)

    got = store.follow("t", after, known, epoch)

    table = Table(got.snapshot, tally, got.history, retained=got.retained)
    assert state(table) == state(expected)
    assert got.keys == keys
    if events is None:
        assert got.events is None
    else:
        assert [e.to_dict() for e in got.events] == [e.to_dict() for e in events]
    # only the recent events neither known nor among those after ``after`` are read
    usable = known if known_kind != "other_epoch" else {}
    logged = {e.seq for e in events or ()}
    missing = {s for s in recent if s not in usable and s not in logged}
    assert ran == ["FOLLOW", *["EVENT"] * len(missing)]


def test_which_entries_the_log_holds_is_found_from_its_range_or_by_seq(played, tally):
    """On a whole log (every seq from its first to the latest) FOLLOW finds which
    undo/redo entries' events it holds from that range, in two calls, not one ZCOUNT
    per entry; on a log with a hole it asks seq by seq, and the entry whose event is
    missing is dropped, as ``load`` drops it."""
    store, _ = played

    def zcounts() -> int:
        stats = store.client.info("commandstats").get("cmdstat_zcount", {})
        return int(stats.get("calls", 0))

    before = zcounts()
    whole = store.follow("t", 36)
    assert zcounts() - before == 1  # the range check alone
    assert sorted(whole.retained) == [*range(7, 15), *range(15, 26)]
    log = store.keys.table("t").log
    assert store.client.zremrangebyscore(log, 12, 12) == 1  # a hole: seq 12
    before = zcounts()
    holed = store.follow("t", 36)
    stored = store.client.hget(store.keys.table("t").info, "wanted")
    wanted = [s for s in stored.split(b",") if s]  # (this version writes a comma after)
    assert zcounts() - before == 1 + len(wanted)  # every undo/redo entry as stored
    assert sorted(holed.retained) == [*range(7, 12), *range(13, 26)]
    table = Table(holed.snapshot, tally, holed.history, retained=holed.retained)
    assert table.undo_stack == [*range(7, 12), 13, 14]
    expected = loaded_table(store, tally)
    assert (table.undo_stack, table.redo_stack) == (expected.undo_stack, expected.redo_stack)


def test_follow_of_an_unknown_table_raises(played):
    store, _ = played
    with pytest.raises(UnknownTable):
        store.follow("nope", 0)


def test_a_recent_event_gone_before_the_second_read_is_not_retained(played, tally, monkeypatch):
    """An event read as present by FOLLOW and gone by the time it is fetched (a
    commit trimmed the log between the two reads): its entry is dropped."""
    store, _ = played
    run = store._run

    def racing(name: str, keys: Any, args: Any = ()) -> Any:
        if name == "EVENT" and int(args[0]) == 14:
            return [36, False]
        return run(name, keys, args)

    monkeypatch.setattr(store, "_run", racing)
    got = store.follow("t", 36)
    assert 14 not in got.retained and 14 not in got.history
    table = Table(got.snapshot, tally, got.history, retained=got.retained)
    assert table.undo_stack == list(range(7, 14))


def test_sync_uses_follow_and_the_result_opens_a_table(played, tally, monkeypatch):
    store, service = played
    protocol = service.protocol("t")
    sync = Sync.of(protocol, 30)
    assert sync.epoch == protocol.table.info.epoch
    assert sync.known == protocol.table.recent_history()
    recent = loaded_table(store, tally).recent_history()
    # the owner holds only some of them (after an undo, what the window lets in is
    # read on demand): the others are read
    unknown = set(recent) - set(sync.known)
    ran = counting(store, monkeypatch)
    (snapshot, history, keys, retained), events = sync.run(store)
    assert ran == ["FOLLOW", *["EVENT"] * len(unknown)]
    sync.known = recent
    assert sync.run(store)[0][1] == recent
    assert ran.count("FOLLOW") == 2 and ran.count("EVENT") == len(unknown)
    assert [e.seq for e in events] == list(range(31, 37))
    reopened = TableProtocol.open((snapshot, history, keys, retained), {"tally": tally})
    assert state(reopened.table) == state(loaded_table(store, tally))


def test_a_follower_undoes_entries_older_than_those_in_memory(redis_server, redis_prefix, tally):
    """A table built from :meth:`RedisStore.follow` holds only the recent events;
    undoing past them reads the older ones from the log, as a loaded table does."""
    with RedisStore(redis_server.url, prefix=redis_prefix, retain=100) as store:
        service = TableService(store, host_with(tally))
        service.create_table("Follow", "tally", table_id="t")
        service.handle("t", {"type": "actor.create", "id": "c", "actor": {
            "id": "guard", "name": "Guard", "sheet": {"hp": 99}}}, GM)  # fmt: skip
        for n in range(20):  # seqs 2-21: damage 1-20
            message = {"type": "adjust", "id": f"a{n}", "actor": "guard",
                       "track": "damage", "delta": 1}  # fmt: skip
            service.handle("t", message, GM)
        got = store.follow("t", 21)
        follower = TableService(store, host_with(tally))
        follower._open["t"] = TableProtocol.open(
            (got.snapshot, got.history, got.keys, got.retained), {"tally": tally}
        )
        table = follower.table("t")
        assert table.undo_stack == list(range(1, 22))  # the actor's creation too
        assert sorted(table.recent_history()) == list(range(14, 22))
        for n in range(12):  # 21 back to 10: 13 and older are read from the log
            follower.handle("t", {"type": "undo", "id": f"fu{n}"}, GM)
        table = follower.table("t")
        assert table.actors["guard"].state["damage"] == 8
        assert table.undo_stack == list(range(1, 10))
        assert table.redo_stack == list(range(21, 9, -1))
        for n in range(3):
            follower.handle("t", {"type": "redo", "id": f"fr{n}"}, GM)
        assert follower.table("t").actors["guard"].state["damage"] == 11
        # the stored table, followed again, is the one a load gives
        again = store.follow("t", 0)
        rebuilt = Table(again.snapshot, tally, again.history, retained=again.retained)
        assert state(rebuilt) == state(loaded_table(store, tally))
