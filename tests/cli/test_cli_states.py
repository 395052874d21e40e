"""``rollbridge resolve --actors`` with an ill-typed state (issue 16, item 2): a one-line
``invalid_state`` error naming the field and a non-zero exit, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from rollbridge.cli import main
from rollbridge.plugins.wilddie.ruleset import WildDieRuleset

CASES = [
    # SR-11: the Stun monitor counts boxes
    ("sr2", "success_test", {"body": 4}, {"stun": "x"}, "state.stun"),
    # BD-6: a bandit's four status slots
    ("bandits", "move", {}, {"slots": "x"}, "state.slots"),
    # TL-2, TL-7: the KSK counts lethal and shock boxes
    ("techlevel", "hit", {"body_tl": 2}, {"ksk": "x"}, "state.ksk"),
]


@pytest.mark.parametrize(("ruleset", "action", "sheet", "state", "field"), CASES)
def test_an_ill_typed_state_is_one_line_and_non_zero(capsys, ruleset, action, sheet, state, field):
    actors = json.dumps([{"name": "A", "sheet": sheet, "state": state}])
    code = main(["resolve", ruleset, action, "--actors", actors])
    _out, err = capsys.readouterr()
    assert code == 1
    assert err.startswith("rollbridge: error: invalid_state: ") and err.count("\n") == 1
    assert field in err


@pytest.mark.parametrize(("ruleset", "action", "sheet", "state", "field"), CASES)
def test_no_traceback_from_the_real_command(ruleset, action, sheet, state, field):
    actors = json.dumps([{"name": "A", "sheet": sheet, "state": state}])
    result = subprocess.run(
        [sys.executable, "-m", "rollbridge", "resolve", ruleset, action, "--actors", actors],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and "invalid_state" in result.stderr
    assert field in result.stderr


def test_a_partial_state_resolves(capsys):
    """The wilddie docs: missing fields take fresh values (a KeyError before)."""
    wilddie = WildDieRuleset()
    sheet = next(iter(wilddie.example_sheets.values()))
    actors = json.dumps([{"name": "A", "sheet": sheet, "state": {"wounds": 1}}])
    params = json.dumps(wilddie.actions["trait"].example_in("en"))
    argv = ["resolve", "wilddie", "trait", "--actors", actors, "--params", params, "--json"]
    code = main([*argv, "--seed", "1"])
    out, err = capsys.readouterr()
    assert code == 0, err
    event = json.loads(out)
    assert event["kind"] == "resolution"
    # WD-8: one wound is -1 to the trait roll
    assert {"value": -1, "note": "1 wound"} in event["data"]["outcome"]["modifiers"]
