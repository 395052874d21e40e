"""A request does no packing, copying or walking it need not (issue 12 item 6:
docs/performance.md "Instructions cut on 7 December (afternoon)"): each test counts
the calls a cut removed over the throughput benchmark's request mix (a real SQLite
file, the real engine and sr2, six msgpack clients), and the bytes beside it stay
those of the reference codec. The mix's digest of every frame and commit
(tests/benchmarks/test_bench_instructions_smoke.py, docs/performance.md) holds the
bytes on the wire and in the store to what they were."""

from __future__ import annotations

import sys
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rollbridge import plain
from rollbridge.plain import Packed, dumps_json, pack, pack_map, reference_pack
from rollbridge.protocol import frames


@pytest.fixture(scope="module")
def bench(benchmark_script):
    return benchmark_script("bench_instructions")


def _counting(monkeypatch, module, name, wanted):
    """Count the calls of ``module.name`` whose first argument ``wanted`` accepts."""
    counted = {"n": 0}
    original = getattr(module, name)

    def counting(value, *args, **kwargs):
        if wanted(value):
            counted["n"] += 1
        return original(value, *args, **kwargs)

    monkeypatch.setattr(module, name, counting)
    return counted


def _event_head(value) -> bool:
    return value.__class__ is dict and value.get("type") == "event" and len(value) == 2


def test_a_table_s_event_frames_pack_their_head_once(bench, monkeypatch):
    """Every ``event`` frame of a table begins with ``{"type": "event", "table": id}``:
    packed once per table, not once per frame (the mix makes 12 frames a pair)."""
    getattr(frames, "_EVENT_HEADS", {}).clear()
    heads = _counting(monkeypatch, frames, "pack", _event_head)
    digest = bench.run_mix(3)
    assert heads["n"] <= 1
    monkeypatch.undo()
    assert bench.run_mix(3) == digest


def test_map_keys_are_packed_once(bench, monkeypatch):
    """A result's ``event`` key and a commit's ``actors`` key, put before bytes packed
    already, are packed once, not once per message."""
    bench.run_mix(1)  # each key met once
    keys = _counting(monkeypatch, plain, "pack", lambda value: value.__class__ is str)
    bench.run_mix(3)
    assert keys["n"] == 0


_plain = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    view=st.dictionaries(st.text(max_size=8), _plain, max_size=20),
    table=st.text(max_size=12),
    result=st.dictionaries(st.text(max_size=8), _plain, max_size=6),
    key=st.sampled_from(["event", "view", "type"]),
)
def test_frames_built_from_encoded_parts_are_the_reference_bytes(view, table, result, key):
    """An event frame from its view's bytes, a result with its event's bytes, a map
    with packed values and its keys packed once: the bytes (and JSON) the reference
    codec gives the whole message, a key among the fields kept in its place."""
    view = {k: v for k, v in view.items() if k not in ("type", "table")}
    whole = {"type": "event", "table": table, **view}
    for _ in range(2):  # the head packed, then kept
        assert frames.event_frame(table, Packed(pack(view)), "msgpack") == reference_pack(whole)
        assert frames.event_frame(table, dumps_json(view), "json") == dumps_json(whole)
    message = {**result, key: view}
    embedded = frames.encode_with(result, key, Packed(pack(view)), "msgpack")
    assert embedded == reference_pack(message)
    assert pack_map({**result, key: Packed(pack(view))}) == reference_pack(message)
    assert pack_map({key: Packed(pack(view)), **result}) == reference_pack({key: view, **result})


def test_a_commit_is_prepared_from_its_packed_parts_as_they_are(bench, monkeypatch):
    """A prepared commit's events, undos and records are the bytes its events and
    records packed once, joined as they are: no ``Packed`` copy of each, no
    ``pack_array`` or ``pack_map`` over them (the state's two fields written as
    they pack)."""
    from rollbridge.stores import sqlite

    arrays = _counting(monkeypatch, sqlite, "_array", lambda value: True)
    maps = _counting(monkeypatch, sqlite, "pack_map", lambda value: True)
    digest = bench.run_mix(3)
    assert (arrays["n"], maps["n"]) == (0, 0)
    monkeypatch.undo()
    assert bench.run_mix(3) == digest


@pytest.mark.parametrize(
    ("removed", "order", "undo"),
    [([], None, False), (["a", "b"], None, True), ([], ["b", "a"], False), (["c"], ["a"], True)],
)
def test_a_prepared_commit_holds_the_reference_bytes(removed, order, undo):
    """The log row's parts as the reference codec packs them: the state map with its
    removed actors, the order where given, the records; the events and the undos."""
    from rollbridge.engine.model import ActorRecord, Commit, Event, TableInfo
    from rollbridge.stores.sqlite import _prepare

    records = [ActorRecord("a", "A", {"body": 3}, {"stun": 1}, ["p"])]
    events = [
        Event(table="t", epoch=1, seq=5, kind="undo" if undo else "roll", data={"n": 1}),
        Event(table="t", epoch=1, seq=6, kind="roll", data={"n": 2}),
    ]
    info = TableInfo("t", "T", "sr2", "1.0.0", {"x": 1}, 1, 6)
    commit = Commit(
        events=events, actors=records, removed=removed, info=info, meta={"undo": [5]},
        replies={"k/r": {"ok": True}}, order=order,
    )  # fmt: skip
    prepared = _prepare(commit)
    state = {"removed": removed, **({"order": order} if order is not None else {})}
    state["actors"] = [r.as_data() for r in records]
    assert prepared.state == reference_pack(state)
    assert prepared.events == reference_pack([e.to_dict() for e in events])
    assert prepared.undos == (reference_pack([events[0].to_dict()]) if undo else None)
    assert prepared.seqs == (5, 6)
    assert prepared.replies == (("k/r", reference_pack({"ok": True})),)


def test_a_reply_is_packed_once_and_stored_as_staged(bench, monkeypatch):
    """The table packs each reply when it stages the request (the check that it can
    be stored); SQLite's prepare writes those bytes, not a second packing of it: the
    reference codec's bytes of the reply the table answers a repeat with."""
    from rollbridge.engine.table import Table
    from rollbridge.stores import sqlite

    preparing = {"now": False}
    replies = _counting(
        monkeypatch,
        sqlite,
        "pack",
        lambda v: preparing["now"] and v.__class__ is dict and "ruleset_version" not in v,
    )
    prepared: list = []
    plain_prepare = sqlite._prepare

    def keeping(commit):
        preparing["now"] = True
        try:
            found = plain_prepare(commit)
        finally:
            preparing["now"] = False
        prepared.append((commit, found))
        return found

    monkeypatch.setattr(sqlite, "_prepare", keeping)
    staged = _counting(monkeypatch, Table, "_stage", lambda draft: True)
    bench.run_mix(3)
    assert replies["n"] == 0 and staged["n"] == len(prepared) > 0
    for commit, found in prepared:
        assert found.replies == tuple((k, reference_pack(r)) for k, r in commit.replies.items())


def test_redis_and_memory_store_the_replies_as_staged(bench, monkeypatch):
    """The Redis store's prepare (``serve --redis``) and the memory store write the
    reply bytes the table staged too (they packed each reply a second time): a
    reply's mark, then the reference codec's bytes of it."""
    from rollbridge.stores import redis

    preparing: dict[str, set[int]] = {"replies": set()}
    replies = _counting(monkeypatch, redis, "pack", lambda v: id(v) in preparing["replies"])
    prepared: list = []
    plain_prepare = redis.prepare

    def keeping(commit):
        preparing["replies"] = {id(reply) for reply in commit.replies.values()}
        try:
            found = plain_prepare(commit)
        finally:
            preparing["replies"] = set()
        prepared.append((commit, found))
        return found

    monkeypatch.setattr(redis, "prepare", keeping)
    bench.run_mix(3, redis=True)
    assert replies["n"] == 0 and prepared
    for commit, found in prepared:
        assert commit.packed_replies is not None
        assert [(k, b[1:]) for k, b in found.replies] == [
            (k, reference_pack(r)) for k, r in commit.replies.items()
        ]
    # the memory store: a commit's staged bytes are what it keeps and answers with
    from rollbridge.stores import MemoryStore, memory

    commit, _ = prepared[0]
    store = MemoryStore()
    store.create_table(replace(commit.info, seq=0), [])
    ids = {id(reply) for reply in commit.replies.values()}
    packed = _counting(monkeypatch, memory, "pack", lambda v: id(v) in ids)
    store.commit(commit.info.id, commit)
    assert packed["n"] == 0
    for key, reply in commit.replies.items():
        assert store.reply(commit.info.id, key) == reply


def test_staging_calls_the_ruleset_without_a_closure_per_call(bench, monkeypatch):
    """Staging shows each event to each audience through the ruleset (its actors'
    common states, the players' views) guarded as ``call_ruleset`` guards a call,
    without a closure made and called through it per call; tests/engine/
    test_ruleset_failures.py holds a failure there to ``internal``, logged."""
    from rollbridge.engine.table import Table

    staging = {"now": False}
    plain_stage = Table._stage

    def flagged(self, *args):
        staging["now"] = True
        try:
            return plain_stage(self, *args)
        finally:
            staging["now"] = False

    monkeypatch.setattr(Table, "_stage", flagged)
    calls = _counting(monkeypatch, Table, "call_ruleset", lambda table: staging["now"])
    bench.run_mix(3)
    assert calls["n"] == 0


def test_a_staged_players_view_makes_no_hides_it_does_not_use(bench, monkeypatch):
    """The players' view of a staged event takes its data as the pair walk left it
    (private values hidden already): no ``hides`` is made for it unless the event
    holds raw dice (``draws``), which players may get withheld."""
    from rollbridge.engine import views

    made = _counting(  # (the pair walk's own, in staged_data, is needed: not counted)
        monkeypatch,
        views,
        "hides_for",
        lambda event: sys._getframe(2).f_code.co_name == "event_view",
    )
    digest = bench.run_mix(3)
    assert made["n"] == 0
    monkeypatch.undo()
    assert bench.run_mix(3) == digest


@pytest.mark.parametrize("records", [0, 1, 2])
@pytest.mark.parametrize("kind", ["roll", "undo"])
def test_a_commit_of_one_event_holds_the_reference_bytes(records, kind):
    """A commit of one event (nearly every one), with no, one or two records: its
    array of one written as it packs, the same bytes as the reference codec's."""
    from rollbridge.engine.model import ActorRecord, Commit, Event, TableInfo
    from rollbridge.stores.sqlite import _prepare

    actors = [ActorRecord(f"a{n}", "A", {"body": n}, {"stun": n}, []) for n in range(records)]
    event = Event(table="t", epoch=2, seq=9, kind=kind, data={"n": [1, 2]})
    info = TableInfo("t", "T", "sr2", "1.0.0", {}, 2, 9)
    commit = Commit(events=[event], actors=actors, removed=[], info=info, meta={})
    prepared = _prepare(commit)
    assert prepared.events == reference_pack([event.to_dict()])
    assert prepared.undos == (reference_pack([event.to_dict()]) if kind == "undo" else None)
    assert prepared.seqs == (9,)
    assert prepared.state == reference_pack(
        {"removed": [], "actors": [r.as_data() for r in actors]}
    )
