"""The HTTP side of a real ``rollbridge serve`` fuzzed (tests/hostile/http_fuzzing.py):
every request gets a documented status (never 500) and a JSON error a documented
code, a refused request changes nothing, nothing reaches the server's log as an
error, and another table's client is still answered — on SQLite, and on two
``serve --redis`` processes sharing a real redis-server the test starts (each
request to one or the other; both list the same tables and tokens throughout).

Reproducible (``derandomize=True``, no example database) and bounded:
``ROLLBRIDGE_FUZZ_EXAMPLES`` examples (default 60, each one request) and
``ROLLBRIDGE_FUZZ_SECONDS`` seconds (default 600: past them the examples left send
nothing, and the run says how many); run it longer with e.g.
``ROLLBRIDGE_FUZZ_EXAMPLES=3000 ROLLBRIDGE_FUZZ_SECONDS=36000``, and with
``ROLLBRIDGE_FUZZ_SEED=N`` on other requests.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.hostile.fuzzing import check_logs, fuzzed
from tests.hostile.http_fuzzing import (
    HttpWorld,
    export_refusable,
    requests,
    start_http_cluster,
    start_http_world,
    unreached,
)
from tests.stores.conftest import REDIS_SERVER

#: Seconds a run sends requests for (``ROLLBRIDGE_FUZZ_SECONDS``; a bound, not a
#: measure: nothing asserts how long a request took).
SECONDS = float(os.environ.get("ROLLBRIDGE_FUZZ_SECONDS", "600"))


def _served(start: Callable[[Path], HttpWorld], folder: Path) -> Iterator[HttpWorld]:
    """The world ``start`` makes in ``folder`` for every example of a module; stopped
    after them, and then its logs and what it reached checked."""
    started = start(folder)
    started.until = time.monotonic() + SECONDS
    try:
        yield started
    finally:
        started.world.stop()
    other = getattr(started.world, "other", None)
    check_logs(started.world.log, *([other[2]] if other is not None else []))
    print(f"fuzzed {started.requests} HTTP requests: {sorted(started.outcomes.items())}")
    print(f"past the token check: {sorted(started.reached.items())}")
    if started.late:
        print(f"{started.late} examples sent nothing: ROLLBRIDGE_FUZZ_SECONDS={SECONDS:g} ran out")
    print(f"well-formed requests sent: {sorted(started.sent.items())}")
    if started.requests >= 60:  # the fuzzer got past the token check, so checked a name made
        assert started.reached and not unreached(started), (started.sent, started.reached)
    if started.requests >= 10:  # every process was sent requests
        assert started.sides_fuzzed == set(range(len(started.ports))), started.sides_fuzzed


@pytest.fixture(scope="module")
def http_world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpWorld]:
    """One server (SQLite) for every example."""
    yield from _served(start_http_world, Path(tmp_path_factory.mktemp("fuzz_http")))


@pytest.fixture(scope="module")
def http_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpWorld]:
    """A redis-server and two ``serve --redis`` processes for every example."""
    if not Path(REDIS_SERVER).exists():
        pytest.skip("redis-server is not installed (Debian: apt-get install redis-server)")
    yield from _served(start_http_cluster, Path(tmp_path_factory.mktemp("fuzz_http_redis")))


@fuzzed(60)
@given(data=st.data())
def test_every_http_request_gets_a_documented_answer_and_a_refusal_changes_nothing(
    http_world, data
):
    raw = requests(data, http_world)  # drawn when late too: every example draws alike
    if http_world.out_of_time():
        return
    http_world.trim()
    http_world.check(raw)


@fuzzed(60)
@given(data=st.data())
def test_over_redis_either_process_answers_alike_and_a_refusal_changes_nothing(http_cluster, data):
    """The same requests, each to one of two ``serve --redis`` processes: the same
    properties, the witness answered on both, and both list the same tables, seqs
    and tokens before and after a refusal."""
    http_cluster.side = data.draw(st.integers(0, 1))
    raw = requests(data, http_cluster)  # drawn when late too: every example draws alike
    if http_cluster.out_of_time():
        return
    http_cluster.trim()
    http_cluster.check(raw)


def test_a_server_whose_admin_token_was_not_made_is_stopped(tmp_path, monkeypatch):
    """start_http_world started the server, then made the admin token: had that
    failed, the server was left running past the test (review of the fuzzers, 5
    December)."""
    import subprocess

    from tests.conftest import stop_process
    from tests.hostile import http_fuzzing

    started = []
    real = http_fuzzing.start_world

    def failing(*args: Any, **kwargs: Any) -> Any:
        raise subprocess.CalledProcessError(1, "rollbridge admin-token")

    def start(*args: Any) -> Any:
        started.append(real(*args))
        monkeypatch.setattr(http_fuzzing.subprocess, "run", failing)  # the admin token's
        return started[-1]

    monkeypatch.setattr(http_fuzzing, "start_world", start)
    try:
        with pytest.raises(subprocess.CalledProcessError):
            http_fuzzing.start_http_world(tmp_path)
        assert started and started[0].process.poll() is not None, "the server still runs"
    finally:
        for world in started:
            stop_process(world.process)


def test_only_an_export_a_right_refuses_is_counted_refusable():
    """The merge's check counted every export with ``as=`` (and any ``since`` not 0)
    as one the server may refuse: a GM's ``as=observer`` or a player's ``as=player``
    refused would no longer fail a run that drew only such exports. Only a view above
    the token's role, or a ``since`` past a seq the fuzzer cannot know, is refusable."""
    assert not export_refusable("gm", "format=jsonl&as=observer")
    assert not export_refusable("gm", "format=markdown&as=player&locale=de")
    assert not export_refusable("player", "format=jsonl&as=player")
    assert not export_refusable("observer", "format=jsonl&since=0&as=observer")
    assert not export_refusable("player", "format=jsonl")
    assert export_refusable("observer", "format=jsonl&as=player")
    assert export_refusable("player", "format=jsonl&since=99999")
    assert export_refusable("gm", "format=jsonl&since=5&as=observer")


def test_a_run_that_drew_no_export_is_not_taken_for_exports_refused():
    """Seed 57721's run over Redis: 200 requests, 22 made, 2 deleted, no export drawn.
    The check asked for an answered export all the same and failed the run; an export
    sent and never answered still fails it."""
    run = HttpWorld(world=None, admin="")  # type: ignore[arg-type]  # (not served)
    run.requests, run.reached = 200, {"made": 22, "deleted": 2}
    run.sent = {"table": 14, "token": 8, "delete": 3}
    assert unreached(run) == set()
    run.sent["export_refusable"] = 1  # seed 2912: its one export asked since=99999
    assert unreached(run) == set()
    run.sent["export"] = 1
    assert unreached(run) == {"exported"}
    run.reached["exported"] = 1
    assert unreached(run) == set()
    assert unreached(HttpWorld(world=None, admin="", sent={"token": 1})) == {"made"}  # type: ignore[arg-type]
