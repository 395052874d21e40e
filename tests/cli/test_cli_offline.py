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


def test_roll_dividing_by_a_constant_zero_is_one_error_line(capsys):
    code, out, err = run(capsys, "roll", "2d6/0")
    assert code != 0 and out == ""
    assert err.splitlines() == ["rollbridge: error: invalid_notation: '2d6 / 0' divides by zero"]


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


@pytest.mark.parametrize("targets", [5, "Guard", {"a": {"sheet": {}}}, True])
def test_resolve_refuses_targets_that_are_not_a_list(capsys, targets):
    """``--actors '{"targets": 5}'`` ended with a traceback (``list(5)``), and a
    text or a map was taken letter by letter, key by key, for actors ("actor #2
    needs a sheet"), a ``true`` as none at all (the offline CLI's fuzzer, 5 December).
    Now each is one line naming ``targets``."""
    actors = json.dumps({"actor": {"name": "A", "sheet": {}}, "targets": targets})
    code, out, err = run(capsys, "resolve", "sr2", "attack", "--actors", actors)
    assert (code, out) == (1, "")
    assert err == (
        'rollbridge: error: invalid_request: --actors: "targets" must be a list of actors\n'
    )
    code, out, err = run(capsys, "resolve", "sr2", "attack", "--actors", actors, "--json")
    assert (code, err) == (1, "")
    assert json.loads(out)["details"] == {"field": "--actors.targets"}


def test_a_seed_that_is_not_utf8_rolls(tmp_path):
    """A seed of bytes that are not UTF-8, as a shell passes them: Python holds them
    as lone surrogates, which seeding could not encode: ``rollbridge roll 1d6 --seed
    $'\\xff'`` printed a traceback (the offline CLI's fuzzer, 5 December). Now it
    rolls, the same each time, and ``resolve`` too."""
    said = []
    resolve = ["resolve", "sr2", "success_test", "--params", '{"dice": 3, "tn": 4}']
    for argv in (["roll", "3d6"], ["roll", "3d6"], resolve):
        result = subprocess.run(
            [sys.executable, "-m", "rollbridge", *argv, "--seed", b"\xff\xfe", "--json"],
            capture_output=True, check=False, timeout=120,
        )  # fmt: skip
        assert (result.returncode, result.stderr) == (0, b""), result.stderr.decode()
        said.append(json.loads(result.stdout))
    assert said[0] == said[1]


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


@pytest.mark.parametrize(
    "command",
    [("table", "export", "t", "--as", "gm"), ("table", "stats", "t"), ("migrate", "--to", "x")],
    ids=lambda c: " ".join(c[:2]),
)
@pytest.mark.parametrize("value", ["0", "-4", "many"])
def test_every_retain_is_at_least_one(capsys, command, value):
    """``table export`` and ``table stats`` took ``--retain 0`` or ``-4`` (a log of no
    events, read as if none were kept); ``migrate`` said its own words for it, and a
    traceback-free but English "invalid int value" for ``many``. One check for every
    ``--retain``, as ``serve``'s, before anything is opened."""
    with pytest.raises(SystemExit) as exited:
        main([*command, "--retain", value])
    assert exited.value.code == 2
    assert f"expected a whole number of at least 1, not '{value}'" in capsys.readouterr().err


@pytest.mark.parametrize(
    "command",
    [
        ("serve", "--retain"),
        ("serve", "--max-pending"),
        ("serve", "--lease-ms"),
        ("table", "stats", "t", "--retain"),
        ("table", "export", "t", "--as", "gm", "--retain"),
        ("migrate", "--to", "x", "--retain"),
    ],
    ids=lambda c: " ".join((*c[:2], c[-1])),
)
def test_a_limit_too_large_for_the_store_is_refused(capsys, command):
    """``--retain 99999999999999999999999`` passed the check of at least 1, and
    ``serve`` started: every table it then loaded failed, ``store_error: … a value
    could not be read or written (OverflowError: Python int too large to convert to
    SQLite INTEGER)`` (its reply window, ten times it, subtracted from a seq). Each
    such limit is at most a billion, refused as a usage error before anything opens."""
    huge = "99999999999999999999999"
    with pytest.raises(SystemExit) as exited:
        # --port 0x: a usage error after it, so a value taken serves nothing
        main([*command, huge, "--port", "0x"])
    assert exited.value.code == 2
    said = f"expected a whole number of at most 1000000000, not '{huge}'"
    assert said in capsys.readouterr().err


@pytest.mark.parametrize("value", ["1", "1000000000"])
def test_the_bounds_of_a_limit_are_taken(value):
    from rollbridge.cli.values import positive

    assert positive(value) == int(value)


# -- the offline driver as a rules bench (Core issue, item 7) -------------------------


def resolve_json(capsys, *argv):
    code, out, err = run(capsys, "resolve", *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def test_resolve_takes_the_tables_settings(capsys):
    # SR-3: every die shows 1 — a botch by default, not with rule_of_one off
    test = ["sr2", "success_test", "--params", '{"dice": 2, "tn": 4}', "--dice", "1,1"]
    assert resolve_json(capsys, *test)["data"]["outcome"]["botch"] is True
    off = resolve_json(capsys, *test, "--settings", '{"rule_of_one": false}')
    assert off["data"]["outcome"]["botch"] is False
    explicit = resolve_json(capsys, *test, "--settings", '{"ruleset": {"rule_of_one": false}}')
    assert explicit["data"]["outcome"]["botch"] is False
    code, _, err = run(capsys, "resolve", *test, "--settings", '{"rule_of_one": "no"}')
    assert code == 1 and "invalid_settings" in err and "rule_of_one" in err
    code, _, err = run(capsys, "resolve", *test, "--settings", "[1]")
    assert code == 1 and "--settings" in err


def test_resolve_as_a_player_and_as_an_observer(capsys):
    # the player acts with the first actor (Tukan), whom it controls by default
    shot = ["sr2", "attack", "--params", '{"weapon": "Hackler", "range": "short"}', "--seed", "4"]
    event = resolve_json(capsys, *shot, "--as", "player")
    assert event["by"] == "player" and event["kind"] == "resolution"
    # players see an NPC target without its boxes (the GM sees them)
    guard = next(a for a in event["actors"] if a["id"] != "tukan") if event["actors"] else None
    if guard is not None:
        assert guard.get("limited") is True and guard["state"] is None
    code, _, err = run(capsys, "resolve", *shot, "--as", "observer")
    assert code == 1 and "forbidden" in err and "player role" in err
    heal = ["sr2", "heal", "--params", '{"monitor": "stun", "boxes": 1}', "--as", "player"]
    code, _, err = run(capsys, "resolve", *heal)
    assert code == 1 and "forbidden" in err and "GM only" in err


def test_a_player_controls_only_what_the_actors_say(capsys):
    actors = json.dumps(
        [
            {"name": "Mine", "sheet": {"body": 4}, "controllers": ["someone-else"]},
            {"name": "Target", "sheet": {"body": 3}},
        ]
    )
    code, _, err = run(
        capsys, "resolve", "sr2", "success_test", "--params", '{"dice": 2, "tn": 4}',
        "--actors", actors, "--as", "player", "--dice", "5,4",
    )  # fmt: skip
    assert code == 1 and "forbidden" in err and "do not control" in err


def test_with_approval_on_a_players_action_waits_for_the_gm(capsys):
    code, out, _ = run(
        capsys, "resolve", "sr2", "success_test", "--params", '{"dice": 2, "tn": 4}',
        "--as", "player", "--settings", '{"approval": true}', "--dice", "5,4",
    )  # fmt: skip
    assert code == 0 and out.startswith("pending: waiting for the GM's approval")


def test_every_call_uses_fresh_request_ids(capsys):
    test = ["sr2", "success_test", "--params", '{"dice": 2, "tn": 4}', "--dice", "5,4"]
    first, second = resolve_json(capsys, *test), resolve_json(capsys, *test)
    assert first["request"] != second["request"]
    assert first["request"].startswith("r-") and len(first["request"]) > 4


def test_offline_commands_do_not_load_the_server_stack():
    probe = (
        "import sys; from rollbridge.cli import main; main(['roll', '2d6', '--seed', '1']);"
        "main(['resolve', 'sr2', 'success_test', '--params', '{\"dice\": 2, \"tn\": 4}',"
        " '--seed', '3']);"
        "loaded = [m for m in ('websockets', 'asyncio', 'sqlite3', 'rollbridge.server.app')"
        " if m in sys.modules]; print('LOADED', loaded)"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "LOADED []" in result.stdout


@pytest.mark.parametrize(
    "argv",
    [
        ("resolve", "wilddie", "trait"),  # a required parameter missing: invalid_params
        ("resolve", "sr2", "nope"),  # unknown_action
        ("odds", "sr2", "attack", "--params", "{}"),
    ],
)
def test_a_refused_action_points_to_the_rulesets_parameters(capsys, argv):
    """The error stays one line with its head unchanged for scripts; it ends by
    naming the command that lists the ruleset's actions, parameters and examples."""
    code, _, err = run(capsys, *argv, "--locale", "en")
    assert code == 1 and err.count("\n") == 1 and err.startswith("rollbridge: error: ")
    assert err.endswith(
        f" (the actions, parameters and examples of {argv[1]}: see rollbridge rulesets {argv[1]})\n"
    )


def test_other_refusals_get_no_parameters_hint(capsys):
    code, _, err = run(capsys, "resolve", "nope", "x")
    assert code == 1 and err == (
        "rollbridge: error: unknown_ruleset: no ruleset 'nope' is loaded "
        "(loaded: bandits, sr2, techlevel, wilddie)\n"
    )
    code, _, err = run(capsys, "odds", "3d")
    assert code == 1 and "rollbridge rulesets" not in err
