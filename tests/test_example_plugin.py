"""The third-party example (issue 2, item 7): installed as a package, found
through its entry point, listed, and used to resolve, all in a separate process."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "hitpoints"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> pathlib.Path:
    """The example installed with pip into its own directory (a real install:
    wheel built, dist-info with the entry point written). Built from a copy: pip
    builds in the source folder, and an ``egg-info`` left in examples/hitpoints would
    name the entry point to any test that puts that folder on ``sys.path``
    (tests/hostile/fuzzing.py does), adding ``hitpoints`` to its loaded rulesets."""
    target = tmp_path_factory.mktemp("site")
    source = tmp_path_factory.mktemp("source") / "hitpoints"
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("build", "*.egg-info"))
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--target",
            str(target),
            str(source),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    return target


def run(site, *args, env=None, check=True):
    environ = {**os.environ, "PYTHONPATH": str(site), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "rollbridge", *args],
        capture_output=True,
        text=True,
        env=environ,
        check=check,
        cwd=site,
    )


def test_the_host_finds_and_lists_it(site):
    plugins = json.loads(run(site, "plugins", "--json").stdout)
    hitpoints = next(p for p in plugins if p["name"] == "hitpoints")
    assert hitpoints == {
        "name": "hitpoints",
        "version": "1.0.0",
        "source": "entry point (rollbridge-hitpoints)",
        "rulesets": ["hitpoints"],
        "adapters": [],
    }
    assert "hitpoints 1.0.0: Hit points (example plugin)" in run(site, "rulesets").stdout


def test_it_resolves_with_supplied_dice(site):
    # Fighter attacks Goblin: 15 + 5 = 20 against AC 13 hits; 1d8+3 with a 3 = 6
    out = run(site, "resolve", "hitpoints", "attack", "--dice", "15,3", "--json").stdout
    event = json.loads(out)
    assert event["data"]["outcome"] == {
        "hit": True,
        "critical": False,
        "total": 20,
        "damage": 6,
        "lost": 6,
    }
    goblin = next(a for a in event["actors"] if a["name"] == "Goblin")
    assert goblin["state"] == {"lost": 6}
    assert goblin["common"]["status"] == "impaired"


def test_a_critical_hit_doubles_the_dice_not_the_penalty(site):
    """A natural 20 with a damage of ``1d8-1`` rolled ``(1d8-1)+(1d8-1)``: the
    penalty counted twice (README: a critical hit doubles the damage dice)."""
    actors = json.dumps([
        {"name": "Duelist", "sheet": {"hp": 9, "damage": "1d8-1"}},
        {"name": "Ogre", "sheet": {"hp": 30, "ac": 25}},
    ])  # fmt: skip
    out = run(site, "resolve", "hitpoints", "attack", "--actors", actors, "--dice", "20,5,3",
              "--json").stdout  # fmt: skip
    outcome = json.loads(out)["data"]["outcome"]
    assert (outcome["critical"], outcome["damage"]) == (True, 7)  # 5 + 3 - 1


def test_it_ships_its_catalogues_and_reads_in_each_language(site):
    """The example is the one to copy: it shows the whole of docs/plugins.md,
    "Languages" — texts of its domain, catalogues in ``locale/``, the ``.mo`` files
    installed as package data — where before it shipped none and refused in plain
    English strings."""
    for locale in ("cs", "de", "ru"):
        assert (site / "rollbridge_hitpoints" / "locale" / locale / "LC_MESSAGES"
                / "hitpoints.mo").is_file(), locale  # fmt: skip
    out = run(site, "resolve", "hitpoints", "attack", "--dice", "15,3", "--json",
              "--locale", "cs").stdout  # fmt: skip
    assert json.loads(out)["data"]["narration"] == "Fighter zasahuje cíl Goblin: zranění 6"
    refused = run(site, "resolve", "hitpoints", "heal", "--params", '{"amount": 1}',
                  "--locale", "de", check=False)  # fmt: skip
    assert refused.returncode != 0
    assert "not_hurt: Fighter hat keine Trefferpunkte verloren" in refused.stderr, refused.stderr


def test_operator_controls_apply_to_it(site):
    blocked = run(site, "plugins", "--json", env={"ROLLBRIDGE_BLOCK_PLUGINS": "hitpoints"})
    assert "hitpoints" not in {p["name"] for p in json.loads(blocked.stdout)}
    off = run(site, "plugins", "--json", env={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert "hitpoints" not in {p["name"] for p in json.loads(off.stdout)}
    only = run(site, "plugins", "--json", env={"ROLLBRIDGE_PLUGINS": "hitpoints"})
    assert [p["name"] for p in json.loads(only.stdout)] == ["hitpoints"]


def test_its_own_tests_pass_with_the_shipped_harness(site):
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(EXAMPLE / "tests")],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(site)},
        cwd=site,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert " passed" in result.stdout
