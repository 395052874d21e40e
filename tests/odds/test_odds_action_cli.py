"""``rollbridge odds RULESET ACTION``: a ruleset's odds hook from the command line."""

from __future__ import annotations

import json
from fractions import Fraction

from rollbridge.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_move_with_the_example_actors(capsys):
    # Ana (the first example sheet) has cool +2: 2d6 + 2.
    code, out, err = run(capsys, "odds", "bandits", "move", "--params", '{"stat": "cool"}',
                         "--locale", "en")  # fmt: skip
    assert code == 0 and not err
    lines = out.splitlines()
    assert lines[0] == "bandits move: exact odds of the outcomes"
    assert lines[1].split() == ["outcome", "probability", "percent"]
    assert [line.split() for line in lines[2:6]] == [
        ["6-", "1/6", "16.6667%"],
        ["7-9", "5/12", "41.6667%"],
        ["10-11", "1/4", "25.0000%"],
        ["12+", "1/6", "16.6667%"],
    ]
    assert lines[6] == "the total rolls as 2d6 + 2"


def test_actors_state_and_another_locale(capsys):
    # Heavily wounded (BD-7): disadvantage, which the advantage asked cancels (BD-2);
    # the ±4 cap of BD-1 holds the +6 to +4.
    actors = [{"name": "Vera", "sheet": {"stats": {"cool": 3}},
               "state": {"slots": {"heavily": True}}}]  # fmt: skip
    params = {"stat": "cool", "modifiers": [3]}
    code, out, _ = run(capsys, "odds", "bandits", "move", "--params", json.dumps(params),
                       "--actors", json.dumps(actors), "--locale", "ru")  # fmt: skip
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "bandits move: точные вероятности исходов"
    assert lines[1].split() == ["исход", "вероятность", "процент"]
    assert lines[-1] == "сумма бросается как 3d6kl2 + 4"
    params["advantage"] = True
    _, out, _ = run(capsys, "odds", "bandits", "move", "--params", json.dumps(params),
                    "--actors", json.dumps(actors), "--locale", "de")  # fmt: skip
    assert out.splitlines()[-1] == "die Summe wird als 2d6 + 4 gewürfelt"


def test_harm_json(capsys):
    # Ana deals harm to Boris: 2d6 − Armour 2 + Pierce 2.
    code, out, _ = run(capsys, "odds", "bandits", "harm", "--params", '{"direction": "dealt"}',
                       "--json")  # fmt: skip
    assert code == 0
    data = json.loads(out)
    assert data["ruleset"] == "bandits" and data["action"] == "harm"
    outcomes = {o["outcome"]: Fraction(o["probability"]) for o in data["odds"]["outcomes"]}
    assert list(outcomes) == ["3-", "4-6", "7-9", "10-12", "13-15", "16-18", "19-21", "22+"]
    assert outcomes["7-9"] == Fraction(5, 12) and sum(outcomes.values()) == 1
    assert data["odds"]["totals"]["formula"] == "2d6"


def test_an_action_without_odds_and_an_unknown_one(capsys):
    code, out, _ = run(capsys, "odds", "bandits", "medpack", "--params", '{"n": 1}',
                       "--locale", "en")  # fmt: skip
    assert code == 0
    assert out.strip() == "ruleset bandits gives no odds for action medpack"
    code, out, err = run(capsys, "odds", "bandits", "fly", "--locale", "en")
    assert code == 1 and not out and "unknown_action" in err


def test_refusals_and_bad_params_are_errors(capsys):
    dead = [{"sheet": {"stats": {"cool": 1}}, "state": {"dead": True}}]
    code, _, err = run(capsys, "odds", "bandits", "move", "--params", '{"stat": "cool"}',
                       "--actors", json.dumps(dead), "--locale", "en")  # fmt: skip
    assert code == 1 and "actor_dead" in err
    code, _, err = run(capsys, "odds", "bandits", "move", "--params", "{", "--locale", "en")
    assert code == 1 and "--params: not valid JSON" in err
    code, _, err = run(capsys, "odds", "bandits", "move", "--params", '{"luck": 1}',
                       "--locale", "en")  # fmt: skip
    assert code == 1 and "invalid_params: params.luck" in err


def test_a_missing_actor_or_target_is_refused_as_resolve_refuses_it(capsys):
    code, _, err = run(capsys, "odds", "bandits", "move", "--actors", "[]", "--locale", "en")
    assert code == 1 and "invalid_request: actor: action 'move' needs an acting actor" in err
    code, _, err = run(capsys, "odds", "bandits", "harm", "--params", '{"direction": "dealt"}',
                       "--actors", '[{"sheet": {}}]', "--locale", "en")  # fmt: skip
    assert code == 1 and "invalid_request: targets:" in err


def test_a_formula_still_works(capsys):
    code, out, _ = run(capsys, "odds", "3d6kh2", "--locale", "en")
    assert code == 0 and out.startswith("3d6kh2: exact odds")
