"""``rollbridge migrate`` of a log an older rollbridge wrote with a ruleset's stored
private forms in its outcomes (tests/fixtures/forms, eb0f4ee9^) to a real
``redis-server`` (review plugins-23): each event reaches Redis read as today's holds
it — the value in the data, the private mark beside it, ``"forms": true` — so the
Redis store gives players what the SQLite file gives them, and the digest the move
is verified with agrees."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

from rollbridge.cli import main
from rollbridge.plain import unpack
from rollbridge.stores.redis import RedisStore
from rollbridge.stores.sqlite import SQLiteStore
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
