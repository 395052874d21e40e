"""The Store contract, one suite for every store (issue "Live server", item 5).

Each test runs on :class:`MemoryStore` (the reference), :class:`SQLiteStore` and
:class:`RedisStore` (on a real ``redis-server``, ``tests/stores/conftest.py``; each
test under a key prefix of its own). ``kit.reopen()`` is a restart: the same
MemoryStore object (nothing survives a process there), a new SQLiteStore on the
same file, a new RedisStore on the same server.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rollbridge.dice import ScriptedDice, SeededDice
from rollbridge.engine import (
    ActorRecord,
    Commit,
    Encounter,
    Event,
    Principal,
    TableInfo,
    TableSnapshot,
)
from rollbridge.exceptions import Conflict, StoreError, UnknownTable
from rollbridge.offline import TableService
from rollbridge.stores import DEFAULT_RETAIN, MemoryStore, SQLiteStore, Store
from rollbridge.stores.actor_changes import KEPT
from rollbridge.stores.base import changes_after
from rollbridge.testing import host_with
from rollbridge.tokens import TokenRecord, hash_token, new_admin_token, new_token

GM = Principal("gm", "gm", "tok-gm")
ALICE = Principal("player", "alice", "tok-alice")


class Kit:
    """Opens the store under test, and re-opens it as a restart would."""

    def __init__(self, kind: str, path: Path, redis: tuple[str, str] | None = None) -> None:
        self.kind = kind
        self.path = path
        self.redis = redis  # (url, key prefix) for the redis kind
        self.retain = DEFAULT_RETAIN
        self.current: Any = None
        self.opened: list[Any] = []

    def open(self, *, retain: int = DEFAULT_RETAIN) -> Store:
        self.retain = retain
        if self.kind == "memory":
            self.current = MemoryStore(retain=retain)
        elif self.kind == "redis":
            from rollbridge.stores.redis import RedisStore

            url, prefix = self.redis
            self.current = RedisStore(url, retain=retain, prefix=prefix)
        else:
            self.current = SQLiteStore(self.path, retain=retain)
        self.opened.append(self.current)
        return self.current

    def reopen(self) -> Store:
        if self.kind == "memory":
            return self.current
        self.current.close()
        return self.open(retain=self.retain)

    def and_restarted(self, store: Store) -> Iterator[Store]:
        """The store, then (lazily) the store after a restart."""
        yield store
        yield self.reopen()

    def close(self) -> None:
        for store in self.opened:
            store.close()


@pytest.fixture(params=["memory", "sqlite", "redis"])
def kit(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Kit]:
    redis = None
    if request.param == "redis":
        server = request.getfixturevalue("redis_server")
        redis = (server.url, request.getfixturevalue("redis_prefix"))
    made = Kit(request.param, tmp_path / "rollbridge.db", redis)
    yield made
    made.close()


@pytest.fixture
def store(kit: Kit) -> Store:
    return kit.open()


def make_info(table_id: str = "t", **fields: Any) -> TableInfo:
    settings = {"approval": False, "player_dice": False, "ruleset": {"show_damage": True}}
    return TableInfo(table_id, f"Table {table_id}", "tally", "1.2.0", settings, **fields)


def actor(actor_id: str, damage: int = 0) -> ActorRecord:
    return ActorRecord(actor_id, actor_id.title(), {"hp": 10}, {"damage": damage}, ["alice"])


def meta(**fields: Any) -> dict[str, Any]:
    return {"encounter": None, "pending": {}, "undo": [], "redo": [], **fields}


def make_commit(
    store: Store,
    table_id: str = "t",
    *,
    events: int = 1,
    actors: list[ActorRecord] | None = None,
    removed: list[str] | None = None,
    meta_: dict[str, Any] | None = None,
    replies: dict[str, Any] | None = None,
    settings: dict[str, Any] | None = None,
    data: dict[str, Any] | None = None,
    order: list[str] | None = None,
) -> Commit:
    """A commit that continues the table's log by ``events`` events."""
    info = next(i for i in store.tables() if i.id == table_id)
    new = [
        Event(table_id, info.epoch, info.seq + n, "roll",
              data=data or {"dice": [{"sides": 6, "value": n}], "total": n},
              changes=[{"actor": "ana", "before": None, "after": None}], request=f"r{n}")
        for n in range(1, events + 1)
    ]  # fmt: skip
    info.seq += events
    if settings is not None:
        info.settings = settings
    return Commit(new, actors or [], removed or [], info, meta_ or meta(), replies or {}, order)


def everything(store: Store) -> Any:
    """All a store holds about its tables, as plain data, to compare."""
    out = {}
    for info in store.tables():
        snapshot, history = store.load(info.id)
        events = store.events_after(info.id, 0)
        out[info.id] = {
            "info": info.to_dict(),
            "actors": {a: r.to_dict() for a, r in snapshot.actors.items()},
            "actor_order": list(snapshot.actors),
            "meta": snapshot.meta(),
            "history": {s: e.to_dict() for s, e in history.items()},
            "events": None if events is None else [e.to_dict() for e in events],
            "tokens": store.list_tokens(info.id),
        }
    return copy.deepcopy(out)


class TestTables:
    def test_a_new_table_has_seq_0_no_actors_and_its_tokens(self, store):
        _, gm = new_token("t", "gm")
        store.create_table(make_info(), [gm])
        assert [i.to_dict() for i in store.tables()] == [make_info().to_dict()]
        snapshot, history = store.load("t")
        assert snapshot.info.to_dict() == make_info().to_dict()
        assert snapshot.actors == {} and history == {}
        assert snapshot.meta() == TableSnapshot(make_info(), {}).meta()
        assert store.list_tokens("t") == [gm]
        assert store.events_after("t", 0) == []

    def test_tables_oldest_first(self, store):
        for table_id in ("zeta", "alpha", "mid"):
            store.create_table(make_info(table_id), [])
        assert [i.id for i in store.tables()] == ["zeta", "alpha", "mid"]

    def test_delete_removes_the_table_and_everything_of_it(self, store):
        _, gm = new_token("t", "gm")
        store.create_table(make_info(), [gm])
        store.create_table(make_info("other"), [])
        store.commit("t", make_commit(store, actors=[actor("ana")], replies={"k": {"seq": 1}}))
        store.delete_table("t")
        assert [i.id for i in store.tables()] == ["other"]
        assert store.find_token("t", gm.hash) is None
        with pytest.raises(UnknownTable):
            store.load("t")
        with pytest.raises(UnknownTable):
            store.delete_table("t")
        store.create_table(make_info(), [])  # the id is free again, and empty
        assert store.load("t")[0].actors == {}
        assert store.reply("t", "k") is None and store.events_after("t", 0) == []

    def test_creating_an_existing_id_is_refused_and_keeps_the_table(self, store):
        _, gm = new_token("t", "gm")
        store.create_table(make_info(), [gm])
        store.commit("t", make_commit(store, actors=[actor("ana")], replies={"k": {"seq": 1}}))
        _, fresh = new_token("t", "gm")
        with pytest.raises(Conflict, match="already exists"):
            store.create_table(TableInfo("t", "Renamed", "tally", "1.2.0"), [fresh])
        assert [(i.id, i.name) for i in store.tables()] == [("t", "Table t")]
        assert set(store.load("t")[0].actors) == {"ana"} and store.reply("t", "k") == {"seq": 1}
        assert store.list_tokens("t") == [gm]

    def test_close_then_restart_keeps_everything(self, kit, store):
        _, gm = new_token("t", "gm")
        store.create_table(make_info(), [gm])
        store.commit("t", make_commit(store, actors=[actor("ana")], meta_=meta(undo=[1])))
        before = everything(store)
        store.close()
        assert everything(kit.reopen()) == before

    @pytest.mark.parametrize(
        "call",
        [
            lambda s: s.delete_table("nope"),
            lambda s: s.load("nope"),
            lambda s: s.events_after("nope", 0),
            lambda s: s.reply("nope", "k"),
            lambda s: s.commit("nope", Commit([], [], [], make_info("nope"), meta())),
            lambda s: s.add_token(new_token("nope", "gm")[1]),
            lambda s: s.list_tokens("nope"),
            lambda s: s.revoke_token("nope", "x"),
        ],
        ids=["delete", "load", "events_after", "reply", "commit", "add_token", "list_tokens",
             "revoke_token"],
    )  # fmt: skip
    def test_unknown_table(self, store, call):
        store.create_table(make_info(), [])
        with pytest.raises(UnknownTable) as caught:
            call(store)
        assert caught.value.code == "unknown_table"
        assert caught.value.details == {"table": "nope"}


class TestLoad:
    def test_round_trip_of_info_actors_meta_and_undo_history(self, kit, store):
        store.create_table(make_info(), [])
        store.commit("t", make_commit(store, actors=[actor("ana"), actor("guard")]))
        encounter = Encounter(["ana", "guard"], round=2, turn=1).to_dict()
        pending = {"p3": {"request": {"type": "roll", "formula": "1d6"}, "by": "player:alice"}}
        settings = {"approval": True, "player_dice": False, "ruleset": {"show_damage": False}}
        store.commit(
            "t",
            make_commit(store, events=3, actors=[actor("ana", 4)], settings=settings,
                        meta_=meta(encounter=encounter, pending=pending, undo=[1, 3],
                                   redo=[4])),
        )  # fmt: skip
        for current in kit.and_restarted(store):
            snapshot, history = current.load("t")
            assert snapshot.info.to_dict() == {**make_info(seq=4).to_dict(), "settings": settings}
            assert list(snapshot.actors) == ["ana", "guard"]
            assert snapshot.actors["ana"] == actor("ana", 4)
            assert snapshot.encounter == Encounter(["ana", "guard"], round=2, turn=1)
            assert snapshot.pending == pending
            assert (snapshot.undo, snapshot.redo) == ([1, 3], [4])
            assert sorted(history) == [1, 3, 4]
            assert history[3].to_dict() == current.events_after("t", 2)[0].to_dict()

    def test_undo_history_far_apart_and_close_together(self, kit, store):
        """The events the undo and redo stacks name are loaded, and only they, whether
        far apart in the log or close together."""
        store.create_table(make_info(), [])
        store.commit("t", make_commit(store, events=8, meta_=meta(undo=[1], redo=[8])))
        assert sorted(store.load("t")[1]) == [1, 8]
        store.commit("t", make_commit(store, events=1, meta_=meta(undo=[5, 6, 8], redo=[])))
        for current in kit.and_restarted(store):
            _, history = current.load("t")
            assert sorted(history) == [5, 6, 8]
            assert history[6].to_dict() == current.events_after("t", 5)[0].to_dict()

    def test_actor_order_is_insertion_order_like_a_dict(self, store):
        store.create_table(make_info(), [])
        store.commit("t", make_commit(store, actors=[actor("b"), actor("a"), actor("c")]))
        store.commit("t", make_commit(store, actors=[actor("b", 2)], removed=["a"]))
        store.commit("t", make_commit(store, actors=[actor("a", 1)]))
        actors = store.load("t")[0].actors
        assert list(actors) == ["b", "c", "a"]
        assert actors["b"].state == {"damage": 2}

    def test_a_commit_that_gives_the_order_puts_an_actor_back_where_it_stood(self, kit, store):
        """An undone removal's commit gives the whole order (core/engine/places.py):
        the actors come back in it; later commits without one add new actors last."""
        store.create_table(make_info(), [])
        store.commit("t", make_commit(store, actors=[actor("a"), actor("b"), actor("c")]))
        store.commit("t", make_commit(store, removed=["b"]))
        store.commit("t", make_commit(store, actors=[actor("b", 1)], order=["a", "b", "c"]))
        store.commit("t", make_commit(store, actors=[actor("d"), actor("a", 2)]))
        for current in kit.and_restarted(store):
            actors = current.load("t")[0].actors
            assert list(actors) == ["a", "b", "c", "d"]
            assert (actors["a"].state, actors["b"].state) == ({"damage": 2}, {"damage": 1})

    def test_an_actor_both_changed_and_removed_is_removed(self, store):
        store.create_table(make_info(), [])
        store.commit("t", make_commit(store, actors=[actor("ana")], removed=["ana"]))
        assert store.load("t")[0].actors == {}

    def test_loaded_data_is_a_copy(self, store):
        store.create_table(make_info(), [])
        store.commit("t", make_commit(store, actors=[actor("ana")]))
        snapshot, _ = store.load("t")
        snapshot.actors["ana"].state["damage"] = 99
        snapshot.info.settings["approval"] = True
        again, _ = store.load("t")
        assert again.actors["ana"].state == {"damage": 0}
        assert again.info.settings["approval"] is False


class TestEventsAfter:
    def test_events_in_order_and_empty_when_up_to_date(self, store):
        store.create_table(make_info(), [])
        assert store.events_after("t", 0) == []
        store.commit("t", make_commit(store, events=2))
        store.commit("t", make_commit(store, events=1))
        assert [e.seq for e in store.events_after("t", 0)] == [1, 2, 3]
        assert [e.seq for e in store.events_after("t", 1)] == [2, 3]
        assert store.events_after("t", 3) == []
        assert store.events_after("t", 10) == []
        event = store.events_after("t", 2)[0]
        assert event.to_dict() == {
            "table": "t", "epoch": 1, "seq": 3, "kind": "roll",
            "data": {"dice": [{"sides": 6, "value": 1}], "total": 1},
            "changes": [{"actor": "ana", "before": None, "after": None}],
            "table_change": None, "gm_only": False, "undoable": False, "request": "r1",
            "by": None,
        }  # fmt: skip

    def test_retention_prunes_the_oldest_and_says_none_past_the_log(self, kit):
        store = kit.open(retain=3)
        store.create_table(make_info(), [])
        store.create_table(make_info("quiet"), [])
        store.commit("quiet", make_commit(store, "quiet", events=2))
        for _ in range(5):
            store.commit("t", make_commit(store, meta_=meta(undo=[1, 2, 3, 4, 5])))
        for current in kit.and_restarted(store):
            assert [e.seq for e in current.events_after("t", 2)] == [3, 4, 5]
            assert current.events_after("t", 1) is None
            assert current.events_after("t", 0) is None
            assert current.events_after("t", 5) == []
            # another table's log is its own
            assert [e.seq for e in current.events_after("quiet", 0)] == [1, 2]
            # undo entries whose events left the log are not loaded
            assert sorted(current.load("t")[1]) == [3, 4, 5]

    def test_a_ranged_read_ends_at_until(self, kit):
        """``until`` (inclusive) bounds the read: what a repeated request reads to
        walk an old event's redaction back (up to where the table's holds)."""
        store = kit.open(retain=5)
        store.create_table(make_info(), [])
        store.commit("t", make_commit(store, events=3))  # one row of seqs 1-3
        for _ in range(4):
            store.commit("t", make_commit(store))  # 4, 5, 6, 7: the log holds 3-7
        for current in kit.and_restarted(store):
            assert [e.seq for e in current.events_after("t", 3, 5)] == [4, 5]
            assert [e.seq for e in current.events_after("t", 3, 4)] == [4]
            # from within a row of several commits' worth
            assert [e.seq for e in current.events_after("t", 2, 4)] == [3, 4]
            assert [e.seq for e in current.events_after("t", 5, 100)] == [6, 7]  # to the latest
            assert [e.seq for e in current.events_after("t", 5, None)] == [6, 7]
            assert current.events_after("t", 4, 4) == [] == current.events_after("t", 4, 2)
            assert current.events_after("t", 7, 9) == []
            assert current.events_after("t", 1, 4) is None  # seq 2 has left the log
            assert current.events_after("t", 1, 1) == []  # nothing asked for
            ranged, whole = current.events_after("t", 3, 5), current.events_after("t", 3)
            assert [e.to_dict() for e in ranged] == [e.to_dict() for e in whole[:2]]
            with pytest.raises(UnknownTable):
                current.events_after("nope", 0, 3)

    def test_changes_after_reads_each_event_for_its_changes_alone(self, kit):
        """What ``state`` at an earlier seq walks back through (hostile28): the
        events ``events_after`` reads — the same seqs, None and ``[]`` alike — with
        their seq, epoch, kind, changes and table change, and nothing else of them
        decoded (their dice, texts, request)."""
        store = kit.open(retain=5)
        store.create_table(make_info(), [])
        big = {"dice": [{"sides": 6, "value": n % 6 + 1} for n in range(500)], "total": 7}
        store.commit("t", make_commit(store, events=3, data=big))  # one row of seqs 1-3
        for n in range(4):
            made = make_commit(store, data=big, actors=[actor("ana", n)])
            made.events[0].table_change = {"before": {"settings": {"n": n}}, "after": {}}
            made.events[0].texts = [["total"]]
            store.commit("t", made)
        for current in kit.and_restarted(store):
            for seq, until in [(2, None), (3, 5), (5, 100), (4, 4), (7, 9), (1, 4), (1, 1),
                               (0, None), (6, None)]:  # fmt: skip
                whole = current.events_after("t", seq, until)
                alone = changes_after(current, "t", seq, until)
                if whole is None or not whole:
                    assert alone == whole, (seq, until)
                    continue
                assert [e.seq for e in alone] == [e.seq for e in whole]
                for read, full in zip(alone, whole, strict=True):
                    kept = {k: v for k, v in full.to_dict().items() if k in KEPT}
                    assert read.to_dict() == {**Event("t", 1, 0, "").to_dict(), **kept}
                    assert read.data == {} and read.texts == [] and read.request is None
            with pytest.raises(UnknownTable):
                changes_after(current, "nope", 0)

    def test_a_batch_larger_than_the_retention_keeps_the_newest(self, kit):
        store = kit.open(retain=3)
        store.create_table(make_info(), [])
        store.commit("t", make_commit(store, events=7))
        assert [e.seq for e in store.events_after("t", 4)] == [5, 6, 7]
        assert store.events_after("t", 3) is None


class TestSingleEvents:
    def test_one_event_by_seq_while_it_is_retained(self, kit):
        store = kit.open(retain=3)
        store.create_table(make_info(), [])
        store.commit("t", make_commit(store, events=5))
        assert store.event("t", 5).seq == 5 and store.event("t", 3).seq == 3
        assert store.event("t", 2) is None  # left the log
        assert store.event("t", 9) is None


class TestReplies:
    def test_replies_by_key_survive_a_restart(self, kit, store):
        store.create_table(make_info(), [])
        reply = {"seq": 1, "status": "done", "event": {"dice": [[1, 6], [2, 6]], "n": None}}
        store.commit("t", make_commit(store, replies={"tok-gm/r1": reply, "tok-a/p1": {"x": 1}}))
        assert store.reply("t", "tok-gm/r1") == reply
        assert store.reply("t", "tok-gm/other") is None
        store.commit("t", make_commit(store, replies={"tok-a/p1": {"x": 2}}))
        restarted = kit.reopen()
        assert restarted.reply("t", "tok-gm/r1") == reply
        assert restarted.reply("t", "tok-a/p1") == {"x": 2}

    def test_replies_are_kept_for_ten_times_the_log_then_pruned(self, kit):
        store = kit.open(retain=2)  # replies are kept for 20 seqs
        store.create_table(make_info(), [])
        store.commit("t", make_commit(store, replies={"old": {"n": 1}}))  # seq 1
        store.commit("t", make_commit(store, events=19, replies={"new": {"n": 2}}))  # seq 20
        assert store.reply("t", "old") == {"n": 1}  # 20 - 1 < 20
        store.commit("t", make_commit(store))  # seq 21: seq 1 leaves the window
        assert store.reply("t", "old") is None
        assert store.reply("t", "new") == {"n": 2}

    def test_a_reply_is_a_copy(self, store):
        store.create_table(make_info(), [])
        store.commit("t", make_commit(store, replies={"k": {"list": [1]}}))
        store.reply("t", "k")["list"].append(2)
        assert store.reply("t", "k") == {"list": [1]}


class TestTokens:
    def test_add_find_list_revoke(self, kit, store):
        secret_gm, gm = new_token("t", "gm")
        store.create_table(make_info(), [gm])
        store.create_table(make_info("other"), [])
        secret_alice, alice = new_token("t", "player", "alice")
        store.add_token(alice)
        assert store.find_token("t", hash_token(secret_alice)) == alice
        assert store.find_token("t", hash_token(secret_gm)) == gm
        assert store.find_token("other", hash_token(secret_gm)) is None  # wrong table
        assert store.find_token("nope", hash_token(secret_gm)) is None  # no such table
        assert store.find_token("t", hash_token("rbt_guessed")) is None
        assert store.list_tokens("t") == [gm, alice]
        assert store.list_tokens("other") == []
        assert kit.reopen().list_tokens("t") == [gm, alice]
        store = kit.current
        assert store.revoke_token("t", alice.id) is True
        assert store.revoke_token("t", alice.id) is False
        assert store.revoke_token("other", gm.id) is False  # not that table's
        assert store.find_token("t", hash_token(secret_alice)) is None
        assert store.list_tokens("t") == [gm]

    def test_token_ids_of_every_table(self, kit, store):
        assert store.token_ids() == set()
        _, gm = new_token("t", "gm")
        _, other_gm = new_token("other", "gm")
        store.create_table(make_info(), [gm])
        store.create_table(make_info("other"), [other_gm])
        _, alice = new_token("t", "player", "alice")
        store.add_token(alice)
        assert store.token_ids() == {gm.id, other_gm.id, alice.id}
        store.revoke_token("t", alice.id)
        store.delete_table("other")
        assert store.token_ids() == {gm.id}
        assert kit.reopen().token_ids() == {gm.id}

    def test_only_the_hash_is_stored(self, kit, store):
        secret, gm = new_token("t", "gm")
        store.create_table(make_info(), [gm])
        assert all(secret not in repr(r) for r in store.list_tokens("t"))
        if kit.kind == "sqlite":
            kit.reopen().close()  # checkpoint the WAL into the file
            assert secret.encode() not in kit.path.read_bytes()
            assert gm.hash.encode() in kit.path.read_bytes()

    def test_re_adding_a_token_id_replaces_it(self, store):
        store.create_table(make_info(), [])
        _, first = new_token("t", "player", "alice")
        store.add_token(first)
        renamed = TokenRecord(first.id, "t", "observer", "alice", first.hash)
        store.add_token(renamed)
        assert store.list_tokens("t") == [renamed]


class TestAdminTokens:
    def test_add_find_list_revoke(self, kit, store):
        secret_ops, ops = new_admin_token("ops")
        secret_bot, bot = new_admin_token("bot")
        store.add_admin_token(ops)
        store.add_admin_token(bot)
        assert secret_ops.startswith("rba_") and ops.name == "ops"
        assert store.find_admin_token(hash_token(secret_bot)) == bot
        assert store.find_admin_token(hash_token("rba_guessed")) is None
        assert store.list_admin_tokens() == [ops, bot]
        store = kit.reopen()
        assert store.list_admin_tokens() == [ops, bot]
        assert store.revoke_admin_token(ops.id) is True
        assert store.revoke_admin_token(ops.id) is False
        assert store.find_admin_token(hash_token(secret_ops)) is None
        assert kit.reopen().list_admin_tokens() == [bot]

    def test_admin_tokens_open_no_table_and_join_tokens_no_admin(self, store):
        secret_gm, gm = new_token("t", "gm")
        store.create_table(make_info(), [gm])
        secret, admin = new_admin_token()
        store.add_admin_token(admin)
        assert store.find_token("t", hash_token(secret)) is None
        assert store.find_admin_token(hash_token(secret_gm)) is None
        assert admin.id not in store.token_ids()
        store.delete_table("t")
        assert store.list_admin_tokens() == [admin]  # not a table's

    def test_only_the_hash_is_stored(self, kit, store):
        secret, admin = new_admin_token("ops")
        store.add_admin_token(admin)
        assert secret not in repr(store.list_admin_tokens())
        assert set(admin.to_dict()) == {"id", "name", "created"}
        if kit.kind == "sqlite":
            kit.reopen().close()  # checkpoint the WAL into the file
            assert secret.encode() not in kit.path.read_bytes()
            assert admin.hash.encode() in kit.path.read_bytes()


def test_ping_answers_and_a_closed_sqlite_store_does_not(kit, store):
    store.ping()
    if kit.kind == "sqlite":
        store.close()
        with pytest.raises(StoreError):
            store.ping()


def broken_event(seq: int) -> Event:
    return Event("t", 1, seq, "roll", data={"lock": threading.Lock()})


class ExplodingEvent(Event):
    """An event that fails when a store turns it into data."""

    def to_dict(self) -> dict[str, Any]:
        raise RuntimeError("disk on fire")


class TestAtomicity:
    def setup_table(self, store: Store) -> Any:
        _, gm = new_token("t", "gm")
        store.create_table(make_info(), [gm])
        store.commit("t", make_commit(store, actors=[actor("ana")], replies={"k1": {"seq": 1}},
                                      meta_=meta(undo=[1])))  # fmt: skip
        return everything(store)

    def bad_commit(self, store: Store, event: Event) -> Commit:
        good = make_commit(
            store, events=2, actors=[actor("ana", 5), actor("new")], removed=[],
            meta_=meta(undo=[1, 2, 3]), replies={"k2": {"seq": 3}},
        )  # fmt: skip
        good.events[1] = event
        return good

    @pytest.fixture
    def store_atomic(self, kit, request):
        return kit.open()

    def test_an_unserialisable_event_changes_nothing(self, kit, store_atomic):
        store = store_atomic
        before = self.setup_table(store)
        with pytest.raises(StoreError) as caught:
            store.commit("t", self.bad_commit(store, broken_event(3)))
        assert caught.value.code == "store_error"
        assert everything(store) == before
        assert store.reply("t", "k2") is None
        assert everything(kit.reopen()) == before

    def test_a_failure_midway_changes_nothing(self, kit, store_atomic, monkeypatch):
        store = store_atomic
        before = self.setup_table(store)
        if kit.kind == "sqlite":
            # fails inside the transaction, after every row of the commit was written
            from rollbridge.stores import sqlite as sqlite_module

            def snapshot(conn, table_id, extra):
                assert conn.execute("SELECT count(*) FROM log").fetchone()[0] == 2
                raise RuntimeError("disk on fire")

            monkeypatch.setattr(sqlite_module, "SNAPSHOT_EVERY", 1)
            monkeypatch.setattr(store, "_snapshot", snapshot)
            commit = self.bad_commit(store, make_commit(store, events=2).events[1])
        else:
            commit = self.bad_commit(store, ExplodingEvent("t", 1, 3, "roll"))
        with pytest.raises(StoreError, match="disk on fire"):
            store.commit("t", commit)
        assert everything(store) == before
        assert store.reply("t", "k2") is None
        monkeypatch.undo()
        assert everything(kit.reopen()) == before


def hit(rid: str, **extra: Any) -> dict[str, Any]:
    return {"type": "resolve", "id": rid, "action": "hit", "targets": ["guard"],
            "params": {"bonus": 1}, **extra}  # fmt: skip


#: (request, who, dice: scripted results or a seed) in order; the comment is its seq.
STEPS = [
    *[({"type": "actor.create", "id": f"seat{n}", "actor": spec}, GM, None)  # 1-3
      for n, spec in enumerate([
          {"id": "ana", "name": "Ana", "sheet": {"hp": 10}, "controllers": ["alice"]},
          {"id": "bo", "name": "Bo", "sheet": {"hp": 8}, "controllers": ["bob"]},
          {"id": "guard", "name": "Guard", "sheet": {"hp": 6}},
      ])],
    ({"type": "settings", "id": "set", "settings": {"approval": True}}, GM, None),  # 4
    (hit("h1"), GM, [2]),  # 5: the GM hits, guard 3
    ({"type": "roll", "id": "roll", "formula": "3d6", "secret": True}, GM, 7),  # 6
    ({"type": "encounter.start", "id": "enc", "order": ["ana", "guard"]}, GM, 1),  # 7
    ({"type": "encounter.next", "id": "next"}, ALICE, 2),  # 8
    (hit("p1", actor="ana"), ALICE, None),  # 9: pending approval
    ({"type": "adjust", "id": "adj", "actor": "bo", "track": "damage", "delta": 2}, GM, None),
    ({"type": "undo", "id": "u1"}, GM, None),  # 11: undoes 10
]  # fmt: skip


def dice_source(dice: list[int] | int | None) -> Any:
    if dice is None:
        return None
    return ScriptedDice(dice) if isinstance(dice, list) else SeededDice(dice)


class TestEngineRoundTrip:
    """A table driven through the real service, then opened again by a fresh
    service on a restarted store: nothing acknowledged is lost."""

    @staticmethod
    def state(service: TableService) -> dict[str, Any]:
        table = service.table("t")
        events = service.store.events_after("t", 0)
        return copy.deepcopy(
            {
                "info": table.info.to_dict(),
                "actors": {a: r.to_dict() for a, r in table.actors.items()},
                "order": list(table.actors),
                "encounter": table.encounter.to_dict() if table.encounter else None,
                "pending": table.pending,
                "undo": table.undo_stack,
                "redo": table.redo_stack,
                "gm_view": table.view(gm=True),
                "player_view": table.view(gm=False),
                "events": [e.to_dict() for e in events],
            }
        )

    def test_an_undone_removal_keeps_its_place_after_a_restart(self, kit, tally):
        service = TableService(kit.open(), host_with(tally))
        service.create_table("Order", "tally", table_id="t")
        for n, name in enumerate(["ana", "bo", "guard"]):
            actor_ = {"id": name, "name": name.title(), "sheet": {"hp": 4}}
            service.handle("t", {"type": "actor.create", "id": f"c{n}", "actor": actor_}, GM)
        service.handle("t", {"type": "actor.remove", "id": "rm", "actor": "ana"}, GM)
        service.handle("t", {"type": "undo", "id": "u"}, GM)
        before = self.state(service)
        assert before["order"] == ["ana", "bo", "guard"]
        reborn = TableService(kit.reopen(), host_with(tally))
        assert self.state(reborn) == before

    def test_everything_survives_a_restart(self, kit, tally):
        service = TableService(kit.open(), host_with(tally))
        service.create_table("Round trip", "tally", table_id="t")
        replies = []
        for message, who, dice in STEPS:
            replies.append(service.handle("t", message, who, dice_source(dice)))
        assert [r.get("seq") for r in replies] == [*range(1, 9), None, 10, 11]
        assert replies[8]["status"] == "pending"
        before = self.state(service)
        assert before["info"]["seq"] == 11 and before["redo"] == [10]
        assert before["pending"] and before["encounter"]["current"] == "guard"
        assert before["actors"]["guard"]["state"]["damage"] == 3

        reborn = TableService(kit.reopen(), host_with(tally))
        assert self.state(reborn) == before
        # idempotency: every acknowledged request answers with its first reply
        for (message, who, _), reply in zip(STEPS, replies, strict=True):
            assert reborn.handle("t", message, who, ScriptedDice([6, 6, 6])) == reply
        assert self.state(reborn) == before
        # the log goes on at seq + 1, and undo/redo still work
        approved = reborn.handle(
            "t", {"type": "approve", "id": "ok", "request": replies[8]["pending"]}, GM,
            ScriptedDice([1]),
        )  # fmt: skip
        assert approved["seq"] == 12
        assert reborn.handle("t", STEPS[8][0], ALICE)["seq"] == 12  # the player's retry
        assert reborn.table("t").actors["guard"].state["damage"] == 5
        assert reborn.handle("t", {"type": "undo", "id": "u2"}, GM)["seq"] == 13
        assert reborn.table("t").actors["guard"].state["damage"] == 3

        third = TableService(kit.reopen(), host_with(tally))
        assert [e.seq for e in third.store.events_after("t", 0)] == list(range(1, 14))
        assert third.table("t").actors["guard"].state["damage"] == 3
        assert third.handle("t", {"type": "redo", "id": "d1"}, GM)["seq"] == 14
        assert third.table("t").actors["guard"].state["damage"] == 5
