"""``state`` with ``undone`` (docs/protocol.md, "Requests"): whether the GM has undone
each event asked for, as the retained log's latest undo or redo of it says — what a
client that missed those undos and redos learns it from (the web view's page loaded
anew past the 200 events it reads, or a resume the server could not recover). A real
server on a real SQLite file."""

from __future__ import annotations

import threading

import pytest

from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore
from tests.server.conftest import GM, make_host, seed_tables


async def _hurt(peer) -> int:
    """One box of damage on tally's Ana (an undoable change); its seq."""
    message = {"type": "adjust", "actor": "ana", "track": "damage", "delta": 1}
    reply = await peer.request(message)
    assert reply.get("status") == "done", reply
    return reply["seq"]


async def test_undone_says_the_latest_undo_or_redo_of_each_event_asked(tables):
    gm, _ = await tables.join("tally", "gm")
    player, _ = await tables.join("tally", "player")
    first, second, kept = await _hurt(gm), await _hurt(gm), await _hurt(gm)
    assert (await gm.request({"type": "undo", "seq": kept}))["status"] == "done"
    assert (await gm.request({"type": "undo", "seq": second}))["status"] == "done"
    assert (await gm.request({"type": "redo", "seq": second}))["status"] == "done"
    asked = {"type": "state", "undone": [first, second, kept]}
    for peer in (gm, player):
        reply = await peer.request(asked)
        # undone, redone since; never undone left out
        assert reply["undone"] == {str(second): False, str(kept): True}, reply
        assert reply["table"]["seq"] == kept + 3
    # without `undone` the reply is as before
    assert "undone" not in await player.request({"type": "state"})


async def test_undone_of_a_secret_is_the_gms_alone(tables):
    gm, _ = await tables.join("tally", "gm")
    player, _ = await tables.join("tally", "player")
    hit = {"type": "resolve", "action": "hit", "targets": ["guard"], "secret": True}
    secret = (await gm.request(hit))["seq"]
    await gm.request({"type": "undo", "seq": secret})
    asked = {"type": "state", "undone": [secret]}
    assert (await gm.request(asked))["undone"] == {str(secret): True}
    # the player was sent the undo as a placeholder naming nothing
    assert (await player.request(asked))["undone"] == {}


async def test_undone_with_at_answers_the_table_then(tables):
    gm, _ = await tables.join("tally", "gm")
    seq = await _hurt(gm)
    await gm.request({"type": "undo", "seq": seq})
    before = await gm.request({"type": "state", "at": seq - 1})
    reply = await gm.request({"type": "state", "at": seq - 1, "undone": [seq]})
    assert reply["table"] == before["table"] and reply["undone"] == {str(seq): True}


@pytest.mark.parametrize(
    "undone",
    [
        [0],
        ["1"],
        [1.5],
        list(range(1, 52)),
        "1",
        {"1": True},
        [None],
        [True],
        [False],
        True,
        [2**63],
        [-(2**63) - 1],
        [[1]],
        None,
    ],
)
async def test_a_bad_undone_is_refused_by_name_and_changes_nothing(tables, undone):
    gm, _ = await tables.join("tally", "gm")
    reply = await gm.request({"type": "state", "undone": undone})
    assert reply["type"] == "error" and reply["code"] == "invalid_request", reply
    assert "undone" in reply["message"], reply
    assert (await gm.request({"type": "ping"}))["type"] == "pong"


@pytest.mark.parametrize(
    ("undone", "words"),
    [
        # as targets naming an actor twice are refused (it named them once in the reply)
        (lambda seq: [seq, seq], "is named twice"),
        # as `at` after the latest seq is (it was left out, as a seq never undone)
        (lambda seq: [seq, seq + 1], "is after the latest seq"),
        (lambda seq: [2**62], "is after the latest seq"),
    ],
)
async def test_undone_naming_a_seq_twice_or_after_the_latest_is_refused_before_any_read(
    tables, undone, words
):
    gm, _ = await tables.join("tally", "gm")
    seq = await _hurt(gm)
    await gm.request({"type": "undo", "seq": seq})
    latest = seq + 1
    before = (await gm.request({"type": "state"}))["table"]
    reply = await gm.request({"type": "state", "undone": undone(latest)})
    assert reply["type"] == "error" and reply["code"] == "invalid_request", reply
    assert words in reply["message"] and "state.undone" in reply["message"], reply
    assert reply["details"]["field"] == "undone", reply
    assert (await gm.request({"type": "state"}))["table"] == before


async def test_undone_with_an_at_before_the_retained_log_is_refused_in_the_askers_words(
    make_tables,
):
    world = await make_tables(retain=2)
    gm, _ = await world.join("tally", "gm", locale="de")
    for _ in range(4):
        await _hurt(gm)
    for asked in ({"type": "state", "at": 1}, {"type": "state", "at": 1, "undone": [2]}):
        reply = await gm.request(asked)
        assert reply["code"] == "invalid_request" and reply["details"] == {"field": "at"}, reply
        # German, as the engine's refusal of it (it was English to every client)
        assert "älter als das aufbewahrte Ereignisprotokoll" in reply["message"], reply


async def test_undone_reads_the_log_from_the_lowest_seq_asked_off_the_loop(tables, monkeypatch):
    """A page's lines name recent events: the log before the lowest of them holds no
    undo of theirs, and is not read (it read every retained event, 40,000 of them in
    1–3 s on a reader thread, for each such request, and the event loop went through
    each one: 15–36 ms a request); and of the log after it only the undos and redos
    (``undos_after``: it decoded every event after the lowest seq asked, 3.6 s at
    40,000, and its garbage stalled every client)."""
    gm, _ = await tables.join("tally", "gm")
    player, _ = await tables.join("tally", "player")
    seqs = [await _hurt(gm) for _ in range(12)]
    await gm.request({"type": "undo", "seq": seqs[-1]})
    reads: list[tuple[str, int, bool]] = []
    undos, events = tables.store.undos_after, tables.store.events_after

    def noted(table_id, seq):
        reads.append(("undos", seq, threading.current_thread() is threading.main_thread()))
        return undos(table_id, seq)

    def every(table_id, seq, until=None):
        reads.append(("events", seq, threading.current_thread() is threading.main_thread()))
        return events(table_id, seq, until)

    monkeypatch.setattr(tables.store, "undos_after", noted)
    monkeypatch.setattr(tables.store, "events_after", every)
    reply = await player.request({"type": "state", "undone": [seqs[-1], seqs[-3]]})
    assert reply["undone"] == {str(seqs[-1]): True}, reply
    # read once, on a reader thread, from the lowest seq asked on: its undos alone
    assert reads == [("undos", seqs[-3], False)], reads


async def test_undone_with_at_reads_the_events_after_at_and_the_undos_alone(tables, monkeypatch):
    """``at`` with ``undone``: the table at ``at`` is walked back through the events
    after it, and the undone states come from the undos and redos: those are read,
    never the log before ``at`` (every retained event was read: the whole log)."""
    gm, _ = await tables.join("tally", "gm")
    seqs = [await _hurt(gm) for _ in range(8)]
    assert (await gm.request({"type": "undo", "seq": seqs[-1]}))["status"] == "done"
    reads: list[tuple[str, int]] = []
    undos, events = tables.store.undos_after, tables.store.events_after
    changes = tables.store.changes_after

    def noted(table_id, seq):
        reads.append(("undos", seq))
        return undos(table_id, seq)

    def every(table_id, seq, until=None):
        reads.append(("events", seq))
        return events(table_id, seq, until)

    def changed(table_id, seq, until=None):
        reads.append(("changes", seq))
        return changes(table_id, seq, until)

    monkeypatch.setattr(tables.store, "undos_after", noted)
    monkeypatch.setattr(tables.store, "events_after", every)
    monkeypatch.setattr(tables.store, "changes_after", changed)
    at = seqs[-3]
    before = await gm.request({"type": "state", "at": at})
    reads.clear()
    reply = await gm.request({"type": "state", "at": at, "undone": [seqs[-1], seqs[1]]})
    assert reply["table"] == before["table"], reply
    assert reply["undone"] == {str(seqs[-1]): True}, reply
    # the events after ``at`` for their changes alone (hostile28), the undos whole
    assert sorted(reads) == [("changes", at), ("undos", seqs[1])], reads


async def test_undone_with_an_at_after_the_latest_seq_is_refused_before_any_read(
    tables, monkeypatch
):
    """``at`` after the table's latest seq, with ``undone``: refused as without it,
    and nothing read (every retained event was read first, then refused)."""
    gm, _ = await tables.join("tally", "gm")
    seq = await _hurt(gm)
    reads: list[int] = []
    read = tables.store.events_after

    def noted(table_id, after, until=None):
        reads.append(after)
        return read(table_id, after, until)

    monkeypatch.setattr(tables.store, "events_after", noted)
    monkeypatch.setattr(tables.store, "changes_after", noted)
    reply = await gm.request({"type": "state", "at": seq + 5, "undone": [seq]})
    assert reply["code"] == "invalid_request" and reply["details"] == {"field": "at"}, reply
    assert "is after the latest seq" in reply["message"], reply
    assert reads == [], reads


def test_the_read_hands_on_the_undos_and_redos_alone(tmp_path, tally):
    """What the event loop is handed of the log for ``undone``: its undos and redos
    after the lowest seq asked, sifted on the reader thread (it was every event)."""
    from rollbridge.protocol.table import ReadUndos

    host = make_host(tally)
    with SQLiteStore(tmp_path / "undos.db") as store:
        seed_tables(store, host)
        service = TableService(store, host)
        adjust = {"type": "adjust", "actor": "ana", "track": "damage", "delta": 1}
        seqs = [service.handle("tally", {**adjust, "id": f"a{n}"}, GM)["seq"] for n in range(3)]
        undo = service.handle("tally", {"type": "undo", "id": "u", "seq": seqs[-1]}, GM)["seq"]
        redo = service.handle("tally", {"type": "redo", "id": "r", "seq": seqs[-1]}, GM)["seq"]
        read = ReadUndos(table_id="tally", latest=redo, since=seqs[1])
        assert [(e.seq, e.kind) for e in read.run(store)] == [(undo, "undo"), (redo, "redo")]
