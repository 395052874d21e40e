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

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from tests.hostile.fuzzing import RULESETS, Place, World, frames, start_world

EXAMPLES = int(os.environ.get("ROLLBRIDGE_FUZZ_EXAMPLES", "60"))
#: Another seed explores other requests (unset: derandomized, the same every run).
SEED = os.environ.get("ROLLBRIDGE_FUZZ_SEED")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    """One server for every example (its tables keep what the examples did)."""
    started = start_world(Path(tmp_path_factory.mktemp("fuzz")))
    try:
        yield started
    finally:
        started.stop()
    text = started.log.read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in text, text[-4000:]
    print(f"fuzzed {started.requests} requests: {sorted(started.kinds.items())}")
    print(f"answers: {sorted(started.outcomes.items())}")


@settings(
    max_examples=EXAMPLES,
    derandomize=SEED is None,
    database=None,
    deadline=None,
    phases=(Phase.explicit, Phase.generate),  # a server's state makes shrinking slow
    suppress_health_check=list(HealthCheck),
)
@seed(int(SEED or 0))
@given(data=st.data())
def test_every_request_is_answered_once_and_a_refusal_changes_nothing(world, data):
    ruleset = data.draw(st.sampled_from(RULESETS))
    table = world.tables[ruleset]
    state = world.trim(table)
    foreign = [a for t, ids in world.actors.items() if t != table for a in ids]
    welcome = world.client(table, "gm", "json").welcome
    place = Place(
        actors=[actor["id"] for actor in state["actors"]],
        foreign=foreign,
        actions=welcome["ruleset"]["actions"],
        names=sorted({*world.names[ruleset], *(a["id"] for a in state["actors"])}),
        sheets=list(world.sheets[ruleset].values()),
        seq=state["seq"],
        pending=[p.get("pending", p.get("id")) for p in state.get("pending", [])],
        schemas=welcome["ruleset"],
    )
    for who, message, kind in frames(data, world, place, table):
        world.check(table, who, message, kind)
    world.check_witness()
