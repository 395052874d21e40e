"""``rollbridge migrate`` of a log an older rollbridge wrote with a ruleset's stored
private forms in its outcomes (tests/fixtures/forms, eb0f4ee9^) to a real
``redis-server`` (review plugins-23): each event reaches Redis read as today's holds
it — the value in the data, the private mark beside it, ``"forms": true` — so the
Redis store gives players what the SQLite file gives them, and the digest the move
is verified with agrees."""

from __future__ import annotations

import io
import sqlite3
from contextlib import redirect_stderr, redirect_stdout

import pytest
import redis as redis_py

from rollbridge.cli import main
from rollbridge.plain import pack, unpack
from rollbridge.stores.redis import RedisStore
from rollbridge.stores.sqlite import SQLiteStore
from tests.engine.test_old_forms_of_no_actor import _of_no_actor
from tests.engine.test_old_stored_forms import old_log


def test_an_old_log_moves_to_redis_with_its_forms_read(tmp_path, redis_factory):
    path = old_log(tmp_path)
    source = SQLiteStore(path)
    try:
        before = [(e.seq, e.data, e.texts, e.private) for e in source.events_after("keeper", 0)]
    finally:
        source.close()
    redis = redis_factory()
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["migrate", "--from", str(path), "--to", redis.url])
    assert status == 0, err.getvalue()
    target = RedisStore(redis.url)
    try:
        events = target.events_after("keeper", 0)
        after = [(e.seq, e.data, e.texts, e.private) for e in events]
    finally:
        target.close()
    assert after == before
    guard = next(e for e in events if e.seq == 3)
    assert guard.data["outcome"]["guard"] == 4000
    assert [["outcome", "guard"], "bandit", "sheet"] in guard.private
    assert unpack(guard.packed())["forms"] is True


@pytest.mark.parametrize("str8", [False, True], ids=["of_in_fixstr", "of_in_str8"])
def test_redis_reads_a_marked_events_form_of_no_actor_as_private(tmp_path, redis_factory, str8):
    """Review ops29's untested path: a Redis log holding the bytes the versions from
    eb0f4ee9 until 615ab8e7 wrote — marked, a form of no actor kept as data — read by
    ``Event.unpacked`` (its ``NOBODYS`` pre-check on one event's bytes, as Redis keeps
    each): the form is read as private, as the SQLite reader reads it; ``of`` written
    as a str8 key too (rev29o). The log's members are put back as those versions left
    them, after a migrate that wrote them read."""
    path = old_log(tmp_path)
    _of_no_actor(path, marked=True)
    with sqlite3.connect(path) as plain:
        old = {e["seq"]: e for (blob,) in plain.execute("SELECT events FROM log")
               for e in unpack(blob)}  # fmt: skip
    redis = redis_factory()
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        assert main(["migrate", "--from", str(path), "--to", redis.url]) == 0, err.getvalue()
    target, admin = RedisStore(redis.url), redis_py.Redis.from_url(redis.url)
    try:
        key = target.keys.table("keeper").log
        for seq in (3, 4):
            blob = pack(old[seq])
            assert old[seq]["forms"] is True and b"\xa2of\xc0" in blob
            if str8:
                blob = blob.replace(b"\xa2of\xc0", b"\xd9\x02of\xc0")
            admin.zremrangebyscore(key, seq, seq)
            admin.zadd(key, {blob: seq})
        events = {e.seq: e for e in target.events_after("keeper", 2)}
    finally:
        target.close()
        admin.close()
    guard, hook = events[3], events[4]
    assert guard.data["outcome"]["guard"] == 4000
    assert [["outcome", "guard"], None, "sheet"] in guard.private
    assert hook.data["hooks"][0]["outcome"]["guards"]["bandit"] == 4000
    assert [["hooks", 0, "outcome", "guards", "bandit"], None, "sheet"] in hook.private
