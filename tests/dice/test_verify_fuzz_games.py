"""``rollbridge verify`` on random honest games and on forgeries of their logs.

Each example plays a random but valid game (tests/dice/games.py: several players,
rolls and secret rolls, the ruleset's actions, approvals and rejections, undo and
redo, settings changes, reveals, a backup restored and played on), exports the lost
history's file and the restored one as the GM and as a player, and checks that
every honest export verifies (exit 0, no problem) and that each forgery of it — one
die changed, two lines swapped, a line dropped, an approval forged, a revealed
segment's commitment changed — is reported with its code (exit 1).

Reproducible (``derandomize=True``, no example database) and bounded:
``ROLLBRIDGE_FUZZ_EXAMPLES`` games (default 3); run it longer with e.g.
``ROLLBRIDGE_FUZZ_EXAMPLES=200``, and with ``ROLLBRIDGE_FUZZ_SEED=N`` on other
games (docs/dice.md, "Checking").
"""

from __future__ import annotations

import random
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.dice.games import FORGERIES, exports, play, verify
from tests.hostile.fuzzing import fuzzed

pytestmark = pytest.mark.usefixtures("english_without_stores")


def _problems(report: dict) -> list[tuple[str, int | None]]:
    return [(p["code"], p["seq"]) for p in report["problems"]]


@pytest.fixture(scope="module")
def tally() -> Iterator[Counter[str]]:
    """What the games held and what was checked (printed with ``-s``)."""
    counted: Counter[str] = Counter()
    yield counted
    print(f"verify on random games: {sorted(counted.items())}")


@fuzzed(3)
@given(seed=st.integers(min_value=0, max_value=2**63))
def test_honest_games_verify_and_their_forgeries_do_not(tally, seed):
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        logs = exports(folder, play(seed, folder))
        rng = random.Random(seed)
        tally["games"] += 1
        for log, lines in logs.items():
            status, report = verify(folder, lines)
            assert (status, _problems(report)) == (0, []), (seed, log)
            tally["honest logs"] += 1
            tally["events"] += report["events"]
            tally["approved"] += report["approvals_held"] + report["approvals_unseen"]
            for forgery, forge in FORGERIES.items():
                forged = forge(rng, lines)
                if forged is None:
                    continue
                changed, codes = forged
                status, report = verify(folder, changed)
                found = {code for code, _ in _problems(report)}
                assert status == 1 and found & codes, (seed, log, forgery, report["problems"])
                tally[f"forged: {forgery}"] += 1
