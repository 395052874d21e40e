"""A newcomer's plugin made from docs/plugins.md's own snippets: the guide's Coin as
the module an entry point of the group the guide names points to, found and used by
the CLI in another process, tested with the guide's own test and conformance snippets
(written into the author's test file and run by pytest there), so the guide cannot
drift from what rollbridge loads and what its suite passes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from rollbridge.exceptions import InvalidState
from rollbridge.testing import RulesetConformance, RulesetHarness

DOCS = Path(__file__).resolve().parents[1] / "docs"
GUIDE = (DOCS / "plugins.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", GUIDE, re.S)


def _block(defining: str) -> str:
    (source,) = [block for block in BLOCKS if defining in block]
    return source


# The guide's Coin, its odds and statistics, run as the guide writes them.
exec(compile(_block("class Coin("), "docs/plugins.md", "exec"))
exec(compile(_block("class CoinWithOdds("), "docs/plugins.md", "exec"))
exec(compile(_block("class CoinWithStats("), "docs/plugins.md", "exec"))


class TestTheGuidesCoinWithOddsConforms(RulesetConformance):
    ruleset = CoinWithOdds()  # noqa: F821 (defined by the guide's block above)


class TestTheGuidesCoinWithStatisticsConforms(RulesetConformance):
    ruleset = CoinWithStats()  # noqa: F821 (defined by the guide's block above)


def test_the_guides_schema_cache_is_bounded():
    """The guide's one schema object per bound is a sheet's value, a GM's choice: its
    cache had no bound (``functools.cache``) and grew with every distinct value for as
    long as the server ran; it keeps at most 1,024."""
    for lives in range(1, 3_000):
        assert lost_schema(lives)["properties"]["lost"]["maximum"] == lives  # noqa: F821
    assert lost_schema.cache_info().currsize <= 1_024  # noqa: F821 (the guide's block)


def test_the_guides_coin_loses_no_more_lives_than_the_sheet_has():
    """The guide's Coin counted a tails past the last life: a fourth tails of a Hero
    of 3 lives made its track read 4 of 3, which clients draw past its end (and the
    conformance suite refuses, once the state schema the guide recommends is given).
    Nor does a GM's supplied state lose more than the sheet has."""
    table = RulesetHarness(Coin())  # noqa: F821 (defined by the guide's block above)
    table.add_actor("Hero", {"lives": 3}, actor_id="hero", player=True)
    for _ in range(4):
        table.resolve("flip", actor="hero", dice=[2])
    (track,) = table.actor("hero")["common"]["tracks"]
    assert (track["value"], track["max"]) == (3, 3)
    assert table.actor("hero")["common"]["status"] == "dead"
    with pytest.raises(InvalidState, match=r"state\.lost"):
        table.add_actor("Ghost", {"lives": 3}, actor_id="ghost", state={"lost": 4})


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The guide's Coin block as the module ``rollbridge_coin`` of an installed
    distribution whose entry point is the guide's ``[project.entry-points.rollbridge]``
    table with its names made the Coin's."""
    root = tmp_path_factory.mktemp("coin-site")
    package = root / "rollbridge_coin"
    package.mkdir()
    (package / "__init__.py").write_text(_block("class Coin("), encoding="utf-8")
    (toml,) = re.findall(r"```toml\n(.*?)```", GUIDE.split("## Publishing", 1)[1], re.S)
    table = tomllib.loads(toml)["project"]["entry-points"]
    (group,) = table
    ((name, value),) = table[group].items()
    assert (group, name, value) == ("rollbridge", "hitpoints", "rollbridge_hitpoints")
    info = root / "rollbridge_coin-1.0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: rollbridge-coin\nVersion: 1.0.0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        f"[{group}]\ncoin = {value.replace('hitpoints', 'coin')}\n", encoding="utf-8"
    )
    return root


def _run(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, "PYTHONPATH": str(site), "LANG": "C", "LC_ALL": "C"}
    environ.pop("LANGUAGE", None)
    return subprocess.run(
        [sys.executable, "-m", "rollbridge", *args],
        capture_output=True, text=True, env=environ, cwd=site, check=True, timeout=120,
    )  # fmt: skip


def test_the_guides_plugin_is_listed_and_resolves_from_the_cli(site):
    """ "`pip install` your package and `rollbridge plugins` lists it"; then
    `rollbridge rulesets` and `rollbridge resolve` take its id like a built-in's."""
    assert (
        "coin 1.0.0 (entry point (rollbridge-coin)): ruleset coin" in _run(site, "plugins").stdout
    )
    assert "flip: Flip for your life." in _run(site, "rulesets", "coin").stdout
    resolved = _run(site, "resolve", "coin", "flip", "--params", "{}", "--dice", "2").stdout
    assert "Hero flips tails" in resolved and "1 = heads, 2 = tails" in resolved


def test_the_guides_tests_pass_as_the_authors_own_test_file(site):
    """The guide's ``test_flip`` and its conformance snippet, copied into the author's
    test file beside the installed plugin and run by pytest as the author runs it
    (the fixture from rollbridge's pytest plugin, no conftest). The snippets used
    ``Coin`` without importing it — run here in a namespace that had it, they passed,
    and in the author's file each failed with a NameError."""
    tests = site / "tests"
    tests.mkdir()
    (tests / "test_coin.py").write_text(
        _block("def test_flip(") + "\n\n" + _block("(RulesetConformance):"), encoding="utf-8"
    )
    environ = {**os.environ, "PYTHONPATH": str(site)}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_coin.py"],
        capture_output=True, text=True, env=environ, cwd=site, check=False, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert re.search(r"\b\d+ passed\b", done.stdout) and " failed" not in done.stdout
