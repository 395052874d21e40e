"""What perf25's cuts (docs/performance.md, "Instructions cut on 7 December
(afternoon)") must not have loosened, held over a real SQLite file: issue 12 item 2
("apply only what can be committed") at staging's own ``try`` — a ruleset raising
anything, a ``BaseException`` of its own too, while a change is shown to each
audience leaves the table exactly as it was, and that ``try`` takes and lets through
what ``call_ruleset`` does; the replies staged once (``Commit.packed_replies``) are
the bytes a store packing them itself writes, and a repeat answered from memory and
from the store is the same; the undo history trimmed in place is what a load gives,
undo and redo reaching back as far, after many changes and after a reload."""

from __future__ import annotations

import asyncio
import logging

import pytest

from rollbridge.engine import Principal
from rollbridge.engine.table import HISTORY_IN_MEMORY
from rollbridge.exceptions import InternalError
from rollbridge.offline import TableService
from rollbridge.plain import pack
from rollbridge.stores.sqlite import SQLiteStore
from rollbridge.testing import host_with

from ..conftest import GM, Tally

ALICE = Principal("player", "alice", "tok-alice")
#: The GM's hit on the guard (an NPC): staged for the GM and for the players, whose
#: view of the guard is its ``player_view`` and whose data is ``player_resolution``'s.
HIT = {"type": "resolve", "action": "hit", "targets": ["guard"], "dice": [3]}


class Stopped(BaseException):
    """A ruleset's own exception derived from BaseException only."""


@pytest.fixture
def stored(tmp_path):
    """Table ``t`` of ruleset tally on a real SQLite file: Ana (alice's), the guard."""
    service = TableService(SQLiteStore(tmp_path / "t.db"), host_with(Tally()))
    service.create_table("Test table", "tally", table_id="t")
    for n, actor in enumerate(
        [
            {"id": "ana", "name": "Ana", "sheet": {"hp": 10}, "controllers": ["alice"]},
            {"id": "guard", "name": "Guard", "sheet": {"hp": 60}},
        ]
    ):
        service.handle("t", {"type": "actor.create", "id": f"seat{n}", "actor": actor}, GM)
    return service


def _as_it_stands(service: TableService) -> tuple:
    table = service.table("t")
    return (
        table.info.seq,
        {a: r.as_data() for a, r in table.actors.items()},
        list(table.undo_stack),
        list(table.redo_stack),
        table.recent_history(),
        dict(table.pending),
    )


@pytest.mark.parametrize("hook", ["common_state", "player_view", "player_resolution"])
@pytest.mark.parametrize(
    "raised",
    [RuntimeError, GeneratorExit, asyncio.CancelledError, Stopped],
    ids=["RuntimeError", "GeneratorExit", "CancelledError", "own"],
)
def test_a_ruleset_raising_while_a_change_is_staged_changes_nothing(
    stored, monkeypatch, caplog, hook, raised
):
    """Staging's ``try`` wraps what ``call_ruleset`` wraps: anything but a typed
    error, the codec's refusal and the operator's stops is the ruleset's failure,
    ``internal`` naming the ruleset, logged once with its traceback; the table, its
    undo history and the store are as before (the same request goes through once the
    ruleset behaves)."""
    service = stored
    service.handle("t", {**HIT, "id": "warm"}, GM)  # an undo entry to keep
    before = _as_it_stands(service)
    plain = getattr(Tally, hook)

    def broken(self, *args, **kwargs):
        if broken.armed:
            raise raised("secret words")
        return plain(self, *args, **kwargs)

    broken.armed = True
    monkeypatch.setattr(Tally, hook, broken)
    with caplog.at_level(logging.ERROR), pytest.raises(InternalError) as refused:
        service.handle("t", {**HIT, "id": "x"}, GM)
    assert refused.value.to_dict() == {"code": "internal", "message": "ruleset 'tally' failed"}
    logged = [r for r in caplog.records if r.exc_info and r.exc_info[0] is raised]
    assert len(logged) == 1, caplog.text
    assert _as_it_stands(service) == before
    service.forget("t")  # the store holds nothing of it either
    assert _as_it_stands(service) == before
    broken.armed = False
    assert service.handle("t", {**HIT, "id": "x"}, GM)["status"] == "done"


@pytest.mark.parametrize("hook", ["common_state", "player_view", "player_resolution"])
@pytest.mark.parametrize("raised", [KeyboardInterrupt, SystemExit])
def test_the_operators_stops_pass_staging_and_change_nothing(stored, monkeypatch, hook, raised):
    """``KeyboardInterrupt`` and ``SystemExit`` are the operator's, never a ruleset's
    answer: they pass staging's ``try`` as they pass ``call_ruleset``; the table is
    as before."""
    service = stored
    before = _as_it_stands(service)

    def stopping(self, *args, **kwargs):
        raise raised

    monkeypatch.setattr(Tally, hook, stopping)
    with pytest.raises(raised):
        service.handle("t", {**HIT, "id": "x"}, GM)
    monkeypatch.undo()
    assert _as_it_stands(service) == before


def test_staged_replies_are_the_bytes_a_store_packs_and_a_repeat_reads_alike(stored):
    """Each commit's replies as staged (``Commit.packed_replies``, what SQLite writes)
    are ``pack`` of its replies when the commit is written, after later requests too
    (a pending request's reply, an approval's reply to its requester); a repeat of
    each request reads the same from memory and, loaded again, from the store."""
    service = stored
    commits = []
    store_commit = service.store.commit

    def keeping(table_id, commit):
        commits.append(commit)
        store_commit(table_id, commit)

    service.store.commit = keeping
    asked = {"type": "resolve", "action": "hit", "actor": "ana", "targets": ["guard"]}
    sent = [({"type": "settings", "id": "s", "settings": {"approval": True}}, GM)]
    sent.append(({**asked, "id": "p1"}, ALICE))
    service.handle("t", *sent[0])
    first = service.handle("t", *sent[1])
    assert first["status"] == "pending", first
    sent.append(({"type": "approve", "id": "a1", "request": first["pending"]}, GM))
    sent.append(({**asked, "id": "p2"}, ALICE))
    service.handle("t", *sent[2])
    second = service.handle("t", *sent[3])
    sent.append(({"type": "reject", "id": "r1", "request": second["pending"]}, GM))
    sent += [({"type": "undo", "id": "u1"}, GM), ({"type": "redo", "id": "d1"}, GM)]
    for message, who in sent[4:]:
        service.handle("t", message, who)
    assert len(commits) == 7
    for commit in commits:
        assert commit.packed_replies is not None
        assert commit.packed_replies == tuple((k, pack(r)) for k, r in commit.replies.items())
    remembered = [pack(service.handle("t", message, who)) for message, who in sent]
    service.forget("t")  # loaded again: each answered from the store
    assert [pack(service.handle("t", message, who)) for message, who in sent] == remembered
    written = {key: packed for c in commits for key, packed in c.packed_replies}  # the last
    assert len(written) == 7  # (an approval answers the pending request's key again)
    for key, packed in written.items():
        assert pack(service.store.reply("t", key)) == packed, key


def test_undo_history_trimmed_in_place_is_what_a_load_gives(stored):
    """Forty-five changes, then undo as far as it reaches, redo half of it, and more
    changes: the history the table holds in memory is of the latest entries, as a
    load's, the same bytes where both hold an event, and
    undo and redo go on after a load."""
    service = stored
    for n in range(45):
        service.handle("t", {**HIT, "id": f"h{n}", "dice": [1 + n % 6]}, GM)
    undone = 0
    while service.table("t").undo_stack:
        service.handle("t", {"type": "undo", "id": f"u{undone}"}, GM)
        undone += 1
    for n in range(undone // 2):
        service.handle("t", {"type": "redo", "id": f"r{n}"}, GM)
    running = _as_it_stands(service)
    service.forget("t")
    loaded = _as_it_stands(service)
    assert running[:4] == loaded[:4] and running[5] == loaded[5]
    table = service.table("t")
    recent = {*table.undo_stack[-HISTORY_IN_MEMORY:], *table.redo_stack[-HISTORY_IN_MEMORY:]}
    assert set(running[4]) <= recent and set(loaded[4]) <= recent
    assert all(loaded[4][s] == b for s, b in running[4].items() if s in loaded[4])
    for n in range(3):
        service.handle("t", {"type": "undo", "id": f"again{n}"}, GM)
    service.handle("t", {"type": "redo", "id": "again"}, GM)
    after = service.table("t")
    assert after.undo_stack and after.redo_stack
    assert set(after.recent_history()) <= {
        *after.undo_stack[-HISTORY_IN_MEMORY:],
        *after.redo_stack[-HISTORY_IN_MEMORY:],
    }
