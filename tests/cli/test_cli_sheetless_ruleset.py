"""`rollbridge resolve` and `rollbridge odds` of a plugin's ruleset that gives no
example sheets (they are "recommended"): without `--actors` the actors come from
nowhere, and the refusal says so, in the reader's language."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import installed_plugin

RULESET = """
    import rollbridge
    from rollbridge import ActionSpec, CommonState, Resolution, Ruleset
    from rollbridge.odds import Odds

    class Sheetless(Ruleset):
        id = "sheetless"
        name = "Sheetless"
        version = "1.0.0"
        actions = {
            "act": ActionSpec("act", "Act.", params={"type": "object"}, example={}),
            "call": ActionSpec("call", "Call.", actor="none", params={"type": "object"},
                               example={}),
        }
        def initial_state(self, sheet): return {}
        def resolve(self, context, dice): return Resolution("done")
        def common_state(self, actor): return CommonState()
        def odds(self, context): return Odds({"done": 1})

    @rollbridge.hookimpl
    def register_rulesets(register):
        register(Sheetless())
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return installed_plugin(tmp_path_factory.mktemp("sheetless"), "sheetless", RULESET)


def _run(site, *args, language="C"):
    environ = {k: v for k, v in os.environ.items()
               if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")}  # fmt: skip
    environ.update(PYTHONPATH=str(site), LANG=language)
    return subprocess.run(
        [sys.executable, "-m", "rollbridge", *args],
        capture_output=True, text=True, env=environ, cwd=site, check=False, timeout=120,
    )  # fmt: skip


@pytest.mark.parametrize("command", ["resolve", "odds"])
def test_an_action_of_a_ruleset_without_example_sheets_asks_for_actors(site, command):
    """It was refused with "actor: action 'act' needs an acting actor", which said
    nothing of where the actors come from."""
    done = _run(site, command, "sheetless", "act", "--params", "{}")
    assert done.returncode != 0
    assert done.stderr == (
        "rollbridge: error: invalid_request: --actors: ruleset 'sheetless' has no example "
        "sheets to make the actors of 'act' from: give them with --actors, or give the "
        "ruleset example_sheets\n"
    )
    czech = _run(site, command, "sheetless", "act", "--params", "{}", language="cs_CZ.UTF-8")
    assert czech.stderr.startswith("rollbridge: error: invalid_request: --actors: ")
    assert "example_sheets" in czech.stderr and "has no example" not in czech.stderr


def test_with_actors_or_an_action_of_no_actor_it_resolves(site):
    given = _run(site, "resolve", "sheetless", "act", "--params", "{}", "--actors",
                 '[{"name": "Ana", "sheet": {}}]')  # fmt: skip
    assert given.returncode == 0, given.stderr
    assert "done" in given.stdout
    nobody = _run(site, "resolve", "sheetless", "call", "--params", "{}")
    assert nobody.returncode == 0, nobody.stderr
