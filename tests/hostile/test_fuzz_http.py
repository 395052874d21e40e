"""The HTTP side of a real ``rollbridge serve`` fuzzed (tests/hostile/http_fuzzing.py):
every request gets a documented status (never 500) and a JSON error a documented
code, a refused request changes nothing, nothing reaches the server's log as an
error, and another table's client is still answered.

Reproducible (``derandomize=True``, no example database) and bounded:
``ROLLBRIDGE_FUZZ_EXAMPLES`` examples (default 60, each one request); run it
longer with e.g. ``ROLLBRIDGE_FUZZ_EXAMPLES=3000``, and with
``ROLLBRIDGE_FUZZ_SEED=N`` on other requests.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.hostile.fuzzing import check_logs, fuzzed
from tests.hostile.http_fuzzing import HttpWorld, requests, start_http_world


@pytest.fixture(scope="module")
def http_world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpWorld]:
    """One server for every example."""
    started = start_http_world(Path(tmp_path_factory.mktemp("fuzz_http")))
    try:
        yield started
    finally:
        started.world.stop()
    check_logs(started.world.log)
    print(f"fuzzed {started.requests} HTTP requests: {sorted(started.outcomes.items())}")
    print(f"past the token check: {sorted(started.reached.items())}")
    if started.requests >= 60:  # the fuzzer got past the token check, so checked a name made
        assert {"made", "exported"} <= set(started.reached), started.reached


@fuzzed(60)
@given(data=st.data())
def test_every_http_request_gets_a_documented_answer_and_a_refusal_changes_nothing(
    http_world, data
):
    http_world.trim()
    http_world.check(requests(data, http_world))


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
