"""The offline CLI (issue 2, item 6): plugins, rulesets, roll, resolve, errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from rollbridge.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_plugins_lists_versions(capsys):
    code, out, _ = run(capsys, "plugins", "--json")
    assert code == 0
    names = {p["name"]: p for p in json.loads(out)}
    assert {"sr2", "techlevel", "bandits", "wilddie"} <= set(names)
    assert all(p["version"] for p in names.values())


def test_rulesets_lists_ids_names_and_actions(capsys):
    code, out, _ = run(capsys, "rulesets", "--json")
    described = {r["id"]: r for r in json.loads(out)}
    assert "attack" in described["sr2"]["actions"]
    code, text, _ = run(capsys, "rulesets")
    assert code == 0 and "sr2 " in text and "  attack" in text


def test_roll_with_supplied_dice(capsys):
    code, out, _ = run(capsys, "roll", "4d6kh3+2", "--dice", "6,1,5,3", "--json")
    assert code == 0
    assert json.loads(out)["total"] == 6 + 5 + 3 + 2


def test_roll_with_a_seed_is_reproducible(capsys):
    first = run(capsys, "roll", "10d6", "--seed", "42")[1]
    second = run(capsys, "roll", "10d6", "--seed", "42")[1]
    assert first == second and "10d6" in first


def test_resolve_with_the_example_sheets(capsys):
    code, out, _ = run(
        capsys,
        "resolve",
        "sr2",
        "success_test",
        "--params",
        '{"dice": 3, "tn": 4}',
        "--dice",
        "6,2,4,1",
        "--json",
    )
    assert code == 0
    event = json.loads(out)
    assert event["kind"] == "resolution" and event["data"]["narration"]


def test_resolve_checks_the_actors_sheets(capsys):
    actors = json.dumps([{"name": "A", "sheet": {"hp": 5}}])
    code, _out, err = run(capsys, "resolve", "sr2", "success_test", "--actors", actors)
    assert code == 1 and "invalid_sheet" in err and "sheet.body" in err


def test_resolve_names_an_unknown_action(capsys):
    code, _out, err = run(capsys, "resolve", "sr2", "nonexistent")
    assert code == 1 and "unknown_action" in err and "'nonexistent'" in err


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["roll", "3d"], "invalid_notation"),
        (["roll", "1d6", "--dice", "7"], "dice_mismatch"),
        (["roll", "2d6", "--dice", "1"], "dice_exhausted"),
        (["roll", "1d6", "--dice", "1,2"], "dice_unused"),
        (["roll", "1d6", "--dice", "a"], "--dice"),
        (["roll", "1000d6"], "dice_limit"),
        (["resolve", "nope", "x"], "unknown_ruleset"),
        (["resolve", "sr2", "success_test", "--params", "{bad"], "--params: not valid JSON"),
        (["resolve", "sr2", "success_test", "--params", '{"dice": -1, "tn": 4}'], "invalid_params"),
    ],
)
def test_errors_are_one_line_and_non_zero(capsys, argv, fragment):
    code, _out, err = run(capsys, *argv)
    assert code == 1
    assert fragment in err
    assert err.count("\n") == 1 and err.startswith("rollbridge: error: ")


def test_no_traceback_from_the_real_command():
    result = subprocess.run(
        [sys.executable, "-m", "rollbridge", "roll", "d"], capture_output=True, text=True
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr and "invalid_notation" in result.stderr


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["roll"])
    assert caught.value.code == 2
    assert "--help" in capsys.readouterr().err


def test_foundry_release_builds_the_module_zip(tmp_path, capsys):
    import zipfile

    import rollbridge

    assert main(["foundry-release", "--out", str(tmp_path)]) == 0
    archive = tmp_path / f"rollbridge-foundry-{rollbridge.__version__}.zip"
    manifest = json.loads(zipfile.ZipFile(archive).read("module.json"))
    assert manifest["id"] == "rollbridge" and manifest["version"] == rollbridge.__version__
    assert str(archive) in capsys.readouterr().out


@pytest.mark.parametrize("option", ["--max-pending", "--retain"])
@pytest.mark.parametrize("value", ["0", "-4", "many"])
def test_serve_refuses_a_limit_below_one(capsys, option, value):
    with pytest.raises(SystemExit) as exited:
        main(["serve", option, value])
    assert exited.value.code == 2
    assert f"expected a whole number of at least 1, not '{value}'" in capsys.readouterr().err
