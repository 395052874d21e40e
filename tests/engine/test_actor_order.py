"""A table's actors keep their order (core/engine/places.py): an undone removal puts
the actor back where it stood, not last, and so does every table built from the
log — one loaded again from a real SQLite file (its log rows folded, and folded into
a snapshot), one that follows the log, and ``state`` at an earlier seq, which lists
the actors as they stood then. A removal stored before removals recorded their place
still loads, and its undo puts the actor last, as it did then."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from rollbridge.engine.follow import Unfit
from rollbridge.engine.table import Table
from rollbridge.exceptions import NothingToRedo, NothingToUndo
from rollbridge.offline import TableService
from rollbridge.plain import pack, unpack
from rollbridge.stores import SQLiteStore
from rollbridge.stores import sqlite as sqlite_module
from rollbridge.testing import host_with
from tests.conftest import GM
from tests.server.cluster_driver import assert_same

SEATS = ["ana", "bo", "guard"]


def play(service: TableService, message: dict[str, Any]) -> dict[str, Any]:
    return service.handle("t", message, GM)


def remove(service: TableService, actor: str, rid: str) -> dict[str, Any]:
    return play(service, {"type": "actor.remove", "id": rid, "actor": actor})


def create(service: TableService, actor: str, rid: str) -> dict[str, Any]:
    spec = {"id": actor, "name": actor.title(), "sheet": {"hp": 5}}
    return play(service, {"type": "actor.create", "id": rid, "actor": spec})


def order(service: TableService) -> list[str]:
    return list(service.table("t").actors)


def state_order(service: TableService, at: int | None = None, rid: str = "s") -> list[str]:
    message: dict[str, Any] = {"type": "state", "id": rid}
    if at is not None:
        message["at"] = at
    return [a["id"] for a in play(service, message)["table"]["actors"]]


def loaded(service: TableService) -> Table:
    snapshot, history = service.store.load("t")
    return Table(snapshot, service.table("t").ruleset, history)


def seated_on(store: Any, tally: Any) -> TableService:
    service = TableService(store, host_with(tally))
    service.create_table("Order", "tally", table_id="t")
    for n, actor in enumerate(SEATS):
        create(service, actor, f"seat{n}")
    return service


class TestLive:
    def test_an_undone_removal_puts_the_actor_back_where_it_stood(self, seated):
        remove(seated, "bo", "rm")
        assert order(seated) == ["ana", "guard"]
        play(seated, {"type": "undo", "id": "u"})
        assert order(seated) == ["ana", "bo", "guard"]
        assert state_order(seated) == ["ana", "bo", "guard"]
        play(seated, {"type": "redo", "id": "r"})  # removed again
        assert order(seated) == ["ana", "guard"]
        play(seated, {"type": "undo", "id": "u2"})
        assert order(seated) == ["ana", "bo", "guard"]

    @pytest.mark.parametrize("actor", SEATS)
    def test_first_middle_and_last(self, seated, actor):
        remove(seated, actor, "rm")
        play(seated, {"type": "undo", "id": "u"})
        assert order(seated) == SEATS

    def test_removals_undone_in_turn(self, seated):
        remove(seated, "bo", "rm1")
        remove(seated, "ana", "rm2")
        assert order(seated) == ["guard"]
        play(seated, {"type": "undo", "id": "u1"})
        assert order(seated) == ["ana", "guard"]
        play(seated, {"type": "undo", "id": "u2"})
        assert order(seated) == ["ana", "bo", "guard"]
        play(seated, {"type": "redo", "id": "r1"})
        play(seated, {"type": "redo", "id": "r2"})
        assert order(seated) == ["guard"]

    def test_a_creation_after_the_removal_then_both_undone_and_redone(self, seated):
        remove(seated, "bo", "rm")
        create(seated, "xena", "mk")
        assert order(seated) == ["ana", "guard", "xena"]
        play(seated, {"type": "undo", "id": "u1"})  # the creation: taken out again
        assert order(seated) == ["ana", "guard"]
        play(seated, {"type": "undo", "id": "u2"})
        assert order(seated) == ["ana", "bo", "guard"]
        play(seated, {"type": "redo", "id": "r1"})
        assert order(seated) == ["ana", "guard"]
        play(seated, {"type": "redo", "id": "r2"})  # a creation goes last, as it did
        assert order(seated) == ["ana", "guard", "xena"]

    def test_the_same_id_created_again_then_all_undone(self, seated):
        remove(seated, "ana", "rm")
        create(seated, "ana", "mk")  # a new Ana, last
        assert order(seated) == ["bo", "guard", "ana"]
        play(seated, {"type": "undo", "id": "u1"})
        play(seated, {"type": "undo", "id": "u2"})
        assert order(seated) == ["ana", "bo", "guard"]

    def test_the_events_say_where_clients_put_the_actor_back(self, seated):
        removal = remove(seated, "bo", "rm")["event"]
        assert removal["actors"] == [{"id": "bo", "removed": True}]
        undo = play(seated, {"type": "undo", "id": "u"})["event"]
        assert [(a["id"], a.get("index")) for a in undo["actors"]] == [("bo", 1)]
        stored = seated.store.events_after("t", 3)
        assert [c.get("index") for e in stored for c in e.changes] == [1, 1]
        redo = play(seated, {"type": "redo", "id": "r"})["event"]
        assert redo["actors"] == [{"id": "bo", "removed": True}]
        created = create(seated, "xena", "mk")["event"]  # last: no place to tell
        assert [("index" in a) for a in created["actors"]] == [False]


class TestStateAt:
    def test_state_at_a_seq_lists_the_actors_as_they_stood_then(self, seated):
        remove(seated, "bo", "rm1")  # seq 4
        create(seated, "xena", "mk")  # seq 5
        remove(seated, "ana", "rm2")  # seq 6
        create(seated, "bo", "mk2")  # seq 7: a new Bo, last
        assert state_order(seated, 3, "s3") == ["ana", "bo", "guard"]
        assert state_order(seated, 4, "s4") == ["ana", "guard"]
        assert state_order(seated, 5, "s5") == ["ana", "guard", "xena"]
        assert state_order(seated, 6, "s6") == ["guard", "xena"]
        assert state_order(seated, None, "s7") == ["guard", "xena", "bo"]
        then = play(seated, {"type": "state", "id": "s8", "at": 3})["table"]
        assert "actor_order" not in then  # every removal said where the actor stood

    def test_state_at_across_an_undone_removal(self, seated):
        remove(seated, "ana", "rm")  # seq 4
        play(seated, {"type": "undo", "id": "u"})  # seq 5
        create(seated, "xena", "mk")  # seq 6
        assert state_order(seated, 3, "s3") == SEATS
        assert state_order(seated, 4, "s4") == ["bo", "guard"]
        assert state_order(seated, 5, "s5") == SEATS


class TestReload:
    def test_an_sqlite_file_loads_the_actor_back_where_it_stood(self, tmp_path, tally):
        path = tmp_path / "order.db"
        service = seated_on(SQLiteStore(path), tally)
        remove(service, "bo", "rm")
        play(service, {"type": "undo", "id": "u"})
        service.store.close()
        reborn = TableService(SQLiteStore(path), host_with(tally))
        assert order(reborn) == ["ana", "bo", "guard"]
        assert state_order(reborn, 3) == ["ana", "bo", "guard"]
        remove(reborn, "ana", "rm2")
        play(reborn, {"type": "undo", "id": "u2"})  # its event read back from the file
        reborn.store.close()
        third = TableService(SQLiteStore(path), host_with(tally))
        assert order(third) == ["ana", "bo", "guard"]
        third.store.close()

    def test_a_snapshot_folds_the_order_in(self, tmp_path, tally, monkeypatch):
        monkeypatch.setattr(sqlite_module, "SNAPSHOT_EVERY", 2)
        path = tmp_path / "order.db"
        service = seated_on(SQLiteStore(path), tally)
        remove(service, "guard", "rm1")
        remove(service, "ana", "rm2")
        play(service, {"type": "undo", "id": "u1"})
        play(service, {"type": "undo", "id": "u2"})
        create(service, "xena", "mk")  # after the snapshot: last
        service.store.close()
        with sqlite3.connect(path) as conn:  # the snapshot was taken past the undos
            assert conn.execute("SELECT seq FROM tables").fetchone()[0] >= 7
        reborn = TableService(SQLiteStore(path), host_with(tally))
        assert order(reborn) == ["ana", "bo", "guard", "xena"]
        reborn.store.close()


class TestFollow:
    def test_a_follower_puts_the_actor_back_where_the_owner_did(self, seated):
        follower = loaded(seated)
        remove(seated, "bo", "rm")
        follower.follow(seated.store.events_after("t", follower.info.seq), kept_from=0)
        play(seated, {"type": "undo", "id": "u"})
        follower.follow(seated.store.events_after("t", follower.info.seq), kept_from=0)
        assert list(follower.actors) == order(seated) == ["ana", "bo", "guard"]
        assert_same(follower, loaded(seated))

    def test_a_removal_that_does_not_find_the_actor_where_it_stood_is_unfit(self, seated):
        follower = loaded(seated)
        remove(seated, "bo", "rm")
        follower.actors = {a: follower.actors[a] for a in ["bo", "ana", "guard"]}
        with pytest.raises(Unfit, match="where it found it"):
            follower.follow(seated.store.events_after("t", 3), kept_from=0)
        assert list(follower.actors) == ["bo", "ana", "guard"]  # nothing changed


def strip_places(path: Path) -> int:
    """Take ``index`` out of every change stored in the SQLite file's log, as logs
    written before changes carried it; how many there were."""
    stripped = 0
    with sqlite3.connect(path) as conn:
        rows = conn.execute('SELECT rowid, events FROM log WHERE "table" = ?', ("t",)).fetchall()
        for rowid, blob in rows:
            events = [unpack(e) if isinstance(e, bytes) else e for e in unpack(blob)]
            for event in events:
                for change in event["changes"]:
                    stripped += change.pop("index", None) is not None
            conn.execute("UPDATE log SET events = ? WHERE rowid = ?", (pack(events), rowid))
    return stripped


class TestOldLogs:
    def test_a_removal_without_its_place_loads_and_its_undo_puts_the_actor_last(
        self, tmp_path, tally
    ):
        path = tmp_path / "old.db"
        service = seated_on(SQLiteStore(path), tally)
        remove(service, "bo", "rm")  # seq 4
        service.store.close()
        assert strip_places(path) == 1
        old = TableService(SQLiteStore(path), host_with(tally))
        assert "index" not in old.store.events_after("t", 3)[0].changes[0]
        assert state_order(old, 3) == ["ana", "guard", "bo"]  # walked back: last
        then = play(old, {"type": "state", "id": "s-at", "at": 3})["table"]
        assert then["actor_order"] == "approximate"  # and says that it may be wrong
        follower = loaded(old)
        play(old, {"type": "undo", "id": "u"})  # the removal, read back from the file
        assert order(old) == ["ana", "guard", "bo"]
        follower.follow(old.store.events_after("t", 4), kept_from=0)
        assert_same(follower, loaded(old))
        old.store.close()
        again = TableService(SQLiteStore(path), host_with(tally))
        assert order(again) == ["ana", "guard", "bo"]
        again.store.close()


def test_a_random_session_keeps_the_order_undo_and_redo_give_back(tmp_path, tally):
    """Creations, removals, adjustments, undos and redos at random: the live table's
    order is the model's (an undo gives back the order before the event, a redo the
    one after), ``state`` at every earlier seq lists the order of that seq, and a
    table loaded again from the file and one that followed the log hold the same."""
    path = tmp_path / "model.db"
    service = seated_on(SQLiteStore(path), tally)
    follower = loaded(service)
    rng = random.Random(7)
    undos: list[list[str]] = [[], ["ana"], ["ana", "bo"]]  # the seats' creations
    redos: list[list[str]] = []
    at_seq = {3: list(SEATS)}
    for n in range(90):
        current = order(service)
        kind = rng.choice(["create", "remove", "remove", "adjust", "undo", "undo", "redo"])
        if kind == "create":
            create(service, f"x{n}", f"q{n}")
            expected = [*current, f"x{n}"]
        elif kind == "remove" and current:
            gone = rng.choice(current)
            remove(service, gone, f"q{n}")
            expected = [a for a in current if a != gone]
        elif kind == "adjust" and current:
            play(service, {"type": "adjust", "id": f"q{n}", "actor": rng.choice(current),
                           "track": "damage", "delta": 1})  # fmt: skip
            expected = current
        elif kind in ("undo", "redo"):
            mine, other = (undos, redos) if kind == "undo" else (redos, undos)
            try:
                play(service, {"type": kind, "id": f"q{n}"})
            except (NothingToUndo, NothingToRedo):
                assert not mine
                continue
            other.append(current)
            assert order(service) == mine.pop()
        else:
            continue
        if kind not in ("undo", "redo"):
            undos.append(current)
            redos.clear()
            assert order(service) == expected
        at_seq[service.table("t").info.seq] = order(service)
        if n % 7 == 0:
            follower.follow(service.store.events_after("t", follower.info.seq), kept_from=0)
            assert_same(follower, loaded(service))
    events = service.store.events_after("t", 0)
    restored = [
        e for e in events if e.kind == "undo" and e.changes[:1] and e.changes[0]["before"] is None
    ]
    assert len(restored) >= 5  # removals undone, the actor put back
    for seq, expected in at_seq.items():
        assert state_order(service, seq, f"s{seq}") == expected, seq
    service.store.close()
    reborn = TableService(SQLiteStore(path), host_with(tally))
    assert order(reborn) == at_seq[max(at_seq)]
    follower.follow(reborn.store.events_after("t", follower.info.seq), kept_from=0)
    assert_same(follower, loaded(reborn))
    reborn.store.close()
