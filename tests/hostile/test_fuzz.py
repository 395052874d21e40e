"""The wire protocol fuzzed against a real ``rollbridge serve``
(tests/hostile/fuzzing.py): every request gets one answer, a refused one changes
nothing, nothing reaches the server's log as an error, and another table's client
is still answered.

Reproducible (``derandomize=True``, no example database) and bounded:
``ROLLBRIDGE_FUZZ_EXAMPLES`` examples (default 60, each one to three requests);
run it longer with e.g. ``ROLLBRIDGE_FUZZ_EXAMPLES=3000 pytest tests/hostile/test_fuzz.py``,
and with ``ROLLBRIDGE_FUZZ_SEED=N`` on other requests.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.hostile.fuzzing import World, check_logs, fuzz_example, fuzzed, start_world


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    """One server for every example (its tables keep what the examples did)."""
    started = start_world(Path(tmp_path_factory.mktemp("fuzz")))
    try:
        yield started
    finally:
        started.stop()
    check_logs(started.log)
    print(f"fuzzed {started.requests} requests: {sorted(started.kinds.items())}")
    print(f"answers: {sorted(started.outcomes.items())}")


@fuzzed(60)
@given(data=st.data())
def test_every_request_is_answered_once_and_a_refusal_changes_nothing(world, data):
    fuzz_example(world, data)
