"""The code in docs/plugins.md runs as it is written (a plugin author copies it)."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rollbridge.testing import RulesetHarness

DOCS = Path(__file__).resolve().parents[1] / "docs"


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.S)


def coin_with(extension: str | None = None) -> dict:
    """The namespace of the guide's Coin, with the block defining ``extension`` (a
    subclass of it) run after it."""
    blocks = python_blocks(DOCS / "plugins.md")
    names = ["Coin", *([extension] if extension else [])]
    namespace: dict = {}
    for name in names:
        (source,) = [b for b in blocks if f"class {name}(" in b]
        exec(compile(source, "docs/plugins.md", "exec"), namespace)
    return namespace


def test_the_coin_ruleset_of_the_plugin_guide_works():
    (coin_source,) = [b for b in python_blocks(DOCS / "plugins.md") if "class Coin(" in b]
    namespace: dict = {}
    exec(compile(coin_source, "docs/plugins.md", "exec"), namespace)
    table = RulesetHarness(namespace["Coin"]())
    table.add_actor("Hero", {"lives": 3}, actor_id="hero", player=True)
    event = table.resolve("flip", actor="hero", dice=[2])
    assert event["data"]["narration"] == "Hero flips tails"
    assert event["data"]["steps"] == ["1 = heads, 2 = tails"]
    assert event["data"]["dice"][0]["label"] == "coin"
    assert table.actor("hero")["common"]["status"] == "impaired"
    gm, player = table.views()
    assert player["data"] == gm["data"]  # nothing private in a coin flip


def test_the_first_plugin_path_says_what_a_private_reads_as():
    """docs/plugins.md, "Your first plugin": ``str()``, an f-string with a spec and
    ``%s`` of a ``Private`` read "(hidden)", ``.value`` and ``revealed()`` the number
    (an f-string with ``:d`` raised TypeError before author27)."""
    (source,) = [b for b in python_blocks(DOCS / "plugins.md") if "skill = Private(73" in b]
    exec(compile(source, "docs/plugins.md", "exec"), {})


def test_the_odds_example_of_the_plugin_guide_is_exact():
    """docs/plugins.md "Odds": the Coin with its odds gives heads and tails 1/2 each."""
    from fractions import Fraction

    from rollbridge.contract import ActionContext

    namespace = coin_with("CoinWithOdds")
    odds = namespace["CoinWithOdds"]().odds(ActionContext("flip", {}))
    assert dict(odds.outcomes) == {"heads": Fraction(1, 2), "tails": Fraction(1, 2)}
    assert odds.truncated == 0


def test_the_statistics_example_of_the_plugin_guide_counts_heads():
    """docs/plugins.md "Statistics": the Coin's outcome is ``{"tails": bool}``; the
    example counted heads by ``outcome.side``, which no flip has, so it counted none."""
    table = RulesetHarness(coin_with("CoinWithStats")["CoinWithStats"]())
    table.add_actor("Hero", {"lives": 3}, actor_id="hero", player=True)
    counts = []
    for die in (1, 2, 1):
        table.resolve("flip", actor="hero", dice=[die])
        counts += table.ruleset.statistics().count(table.views()[1])
    keys = [c.key for c in counts]
    assert keys.count("flips") == 3 and keys.count("heads") == 2


def test_the_plugin_guide_gives_the_odds_signature_in_full():
    import inspect

    from rollbridge.odds import Odds

    text = (DOCS / "plugins.md").read_text(encoding="utf-8")
    fields = ", ".join(
        name if p.default is inspect.Parameter.empty else f"{name}={p.default!r}"
        for name, p in inspect.signature(Odds).parameters.items()
    )
    assert "`Odds(outcomes, truncated=0, totals=None, labels={})`" in text, fields


def test_the_plugin_guide_gives_every_harness_method_with_its_parameters():
    """A plugin author writes tests from the guide alone: it showed ``resolve`` with
    no parameters or targets, and left out how to pass them (``resolve("attack",
    {"skill": "fight"}, ...)`` is a TypeError: they are keyword-only)."""
    import inspect

    text = (DOCS / "plugins.md").read_text(encoding="utf-8")
    methods = ["add_actor", "resolve", "actor", "state", "events", "request", "views"]
    for name in ["__init__", *methods]:
        params = list(inspect.signature(getattr(RulesetHarness, name)).parameters)[1:]
        shown = "ruleset_harness" if name == "__init__" else name
        pattern = rf"`{shown}\(" + r"[^`]*?".join(re.escape(p) for p in params) + r"[^`]*\)`"
        assert re.search(pattern, text), f"docs/plugins.md does not give {shown}({params})"


def test_the_plugin_guide_says_what_a_distribution_offers():
    """The guide's odds used a ``Distribution`` as ``totals[1]`` and said nothing
    more: an author's ``totals.items()`` (it reads like a dict) failed as
    ``internal``. Every public member is named, and the dice example runs."""
    from rollbridge.dice import ScriptedDice
    from rollbridge.odds import Distribution

    text = (DOCS / "plugins.md").read_text(encoding="utf-8")
    for member in ("outcomes", "at_least", "at_most", "mean", "truncated"):
        assert hasattr(Distribution, member)
        assert f"`totals.{member}" in text, member
    assert "`totals[7]`" in text
    (source,) = [b for b in python_blocks(DOCS / "plugins.md") if "def fate_dice(" in b]
    namespace: dict = {}
    exec(compile(source, "docs/plugins.md", "exec"), namespace)
    group = namespace["fate_dice"](ScriptedDice([1, 2, 3, 3]))
    assert [d.value for d in group.dice] == [-1, 0, 1, 1] and group.total == 1
    assert [d.rolls for d in group.dice] == [(1,), (2,), (3,), (3,)]


def test_the_plugin_guide_shows_a_map_of_the_sheets_own_keys():
    """The guide listed ``additionalProperties`` without saying it may be a schema,
    so a map of skills to ratings (a Fate-like sheet) was found by reading
    core/schema.py. Its example is the schema it says, and works as it says."""
    import json

    from rollbridge.contract import sheet_choices
    from rollbridge.exceptions import InvalidParams
    from rollbridge.schema import check_schema, validate

    text = " ".join((DOCS / "plugins.md").read_text(encoding="utf-8").split())
    (shown,) = re.findall(r'`(\{"type": "object", "additionalProperties": \{[^`]*\}\})`', text)
    skills = json.loads(shown)
    check_schema(skills, "skills")
    assert validate(skills, {"fight": 3, "lore": 4}) == {"fight": 3, "lore": 4}
    with pytest.raises(InvalidParams):
        validate(skills, {"fight": 9})
    param = {"type": "string", "choicesFrom": {"sheet": "skills"}}
    assert sheet_choices(param, {"skills": {"fight": 3, "lore": 4}}, {}) == ["fight", "lore"]


def test_the_plugin_guides_live_session_runs_on_the_example(monkeypatch):
    """docs/plugins.md, "Trying it live": a new table has no actors, and the guide did
    not say how to make them from a client. Each line it gives the terminal client,
    parsed as ``rollbridge connect`` parses it, is a request the example ruleset's
    table answers — the player's odds with the Goblin's sheet and state assumed too
    (typed as JSON, which connect sent as text before)."""
    from rollbridge.cli.terminal import parse_command
    from rollbridge.engine.model import Principal
    from rollbridge.offline import TableService
    from rollbridge.stores.memory import MemoryStore
    from rollbridge.testing import host_with

    monkeypatch.syspath_prepend(str(DOCS.parent / "examples" / "hitpoints"))
    from rollbridge_hitpoints.ruleset import HitPoints

    text = (DOCS / "plugins.md").read_text(encoding="utf-8")
    section = text.split("### Trying it live", 1)[1].split("\n## ", 1)[0]
    typed, players = re.findall(r"```text\n(.*?)```", section, re.S)
    assert "--ruleset hitpoints" in section
    service = TableService(MemoryStore(), host_with(HitPoints()))
    info, _tokens = service.create_table("Try-out", "hitpoints")
    gm = Principal("gm", "gm", "gm-token")
    replies = []
    for number, line in enumerate(typed.splitlines()):
        message = parse_command(line, f"r{number}")
        assert message is not None, line
        replies.append(service.handle(info.id, message, gm))
    assert list(service.table(info.id).actors) == ["f", "g"]
    assert service.table(info.id).actors["f"].controllers == ["player"]
    assert replies[2]["event"]["kind"] == "resolution"
    assert replies[3]["odds"]["outcomes"] is not None
    # the player's odds, the Goblin's hidden sheet and state stated as typed
    player = Principal("player", "player", "player-token")
    (line,) = players.splitlines()
    answer = service.handle(info.id, parse_command(line, "p1"), player)
    assert answer["assumed"] == answer["limited"] == ["g"], answer
    assert answer["odds"]["outcomes"] == replies[3]["odds"]["outcomes"]


def test_operations_warns_that_the_wal_files_are_part_of_the_database():
    """docs/operations.md: deleting the -wal (or copying the .db alone) loses
    acknowledged changes; the operator is told so, and told to use rollbridge backup."""
    text = (DOCS / "operations.md").read_text(encoding="utf-8")
    warning = text.split("**The `-wal` and `-shm` files are part of the database.**")[1]
    paragraph = warning.split("\n\n")[0]
    for said in ("Never delete", "never copy or move the `.db` file alone", "rollbridge backup"):
        assert said in paragraph


def test_the_rules_files_in_docs_are_the_projects_own():
    """docs/sources/rules/ is the copy of the project's rules files that the docs
    link to; where the shared originals sit beside the checkout (../shared), the copy
    must be theirs, byte for byte (the bandits copy once lacked BD-7's variant)."""
    shared = DOCS.parents[1] / "shared" / "rulesets"
    if not shared.is_dir():
        pytest.skip("../shared/rulesets is not beside this checkout")
    originals = sorted(p.name for p in shared.glob("*.md"))
    assert originals == sorted(p.name for p in (DOCS / "sources" / "rules").glob("*.md"))
    for name in originals:
        copy = (DOCS / "sources" / "rules" / name).read_bytes()
        assert copy == (shared / name).read_bytes(), name


def test_operations_lists_every_logger_of_the_server() -> None:
    """Every ``rollbridge.*`` logger the code writes to is in docs/operations.md's
    table of loggers, so an operator can set its level or filter it."""
    root = Path(__file__).resolve().parents[1]
    operations = (root / "docs" / "operations.md").read_text(encoding="utf-8")
    used = set()
    for path in (root / "core").rglob("*.py"):
        used |= set(re.findall(r'getLogger\("(rollbridge[a-z._]*)"\)', path.read_text("utf-8")))
    missing = sorted(name for name in used if f"`{name}`" not in operations)
    assert not missing, f"docs/operations.md does not name the loggers {missing}"


# -- docs/operations.md, "Running as a service": the units work as written ---------------

SERVICE_BIN = "/opt/rollbridge/.venv/bin/rollbridge"


def service_units() -> dict[str, dict[str, str]]:
    """The systemd units of docs/operations.md by the file each names, as key → value."""
    text = (DOCS / "operations.md").read_text(encoding="utf-8")
    units: dict[str, dict[str, str]] = {}
    for block in re.findall(r"```ini\n(.*?)```", text, re.S):
        name = re.match(r"# /etc/systemd/system/(\S+)\n", block)
        assert name, f"a unit in docs/operations.md names its file first: {block[:80]}"
        pairs = [line.split("=", 1) for line in block.splitlines() if "=" in line]
        units[name.group(1)] = {key: value for key, value in pairs}
    return units


def service_commands() -> list[list[str]]:
    """Every ``rollbridge`` command of the section, as its arguments after the program."""
    text = (DOCS / "operations.md").read_text(encoding="utf-8")
    section = text.split("## Running as a service", 1)[1].split("\n## ", 1)[0]
    commands = []
    for unit in service_units().values():
        commands.append(shlex.split(unit["ExecStart"].replace("%i", "8801")))
    for line in re.findall(rf"{re.escape(SERVICE_BIN)} ([^&'\n]*)", section):
        if not line.startswith("serve "):  # the units' own, read above
            commands.append([SERVICE_BIN, *shlex.split(line.replace("$d", "/b").split("#")[0])])
    return commands


def test_operations_shows_a_service_unit_and_its_template():
    """The operator's first question — how to run it as a service — had no answer
    but a mention of ``LimitNOFILE=``."""
    assert set(service_units()) == {"rollbridge.service", "rollbridge@.service"}


def test_every_rollbridge_command_of_the_service_section_parses():
    from rollbridge.cli import build_parser

    commands = service_commands()
    assert {c[1] for c in commands} >= {"serve", "table", "backup"}
    for command in commands:
        assert command[0] == SERVICE_BIN
        args = build_parser().parse_args(command[1:])  # a usage error exits: the test fails
        if command[1] == "serve":
            assert args.no_demo and args.public_url and args.limit_trusted_proxies
            assert args.log_format == "json"


def test_the_service_units_fit_the_servers_defaults():
    from rollbridge.server.file_limit import SPARE_FILES
    from rollbridge.server.limits import CLOSE_TIMEOUT, DRAIN_TIMEOUT, MAX_CONNECTIONS

    units = service_units()
    for unit in units.values():
        assert int(unit["LimitNOFILE"]) >= MAX_CONNECTIONS + SPARE_FILES
        assert int(unit["TimeoutStopSec"]) > DRAIN_TIMEOUT + CLOSE_TIMEOUT
        assert unit["ExecStart"].startswith(SERVICE_BIN + " serve ")
        assert unit["Restart"] == "on-failure"
    single = units["rollbridge.service"]
    db = shlex.split(single["ExecStart"])[shlex.split(single["ExecStart"]).index("--db") + 1]
    assert Path(db).parent == Path("/var/lib") / single["StateDirectory"]
    assert "--port %i" in units["rollbridge@.service"]["ExecStart"]


@pytest.mark.skipif(not shutil.which("systemd-analyze"), reason="systemd is not installed")
def test_systemd_verifies_the_service_units(tmp_path):
    """``systemd-analyze verify`` reads each unit as systemd would (an unknown key, a
    value it cannot parse, a program not there are each a line naming the file), with
    the program this test runs in the place of /opt/rollbridge's."""
    program = Path(sys.executable).with_name("rollbridge")
    assert program.exists(), program
    text = (DOCS / "operations.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```ini\n(.*?)```", text, re.S)
    assert len(blocks) == len(service_units()) == 2
    for block in blocks:
        name = re.match(r"# /etc/systemd/system/(\S+)\n", block).group(1)
        path = tmp_path / name.replace("@.", "@8801.")
        path.write_text(block.replace(SERVICE_BIN, str(program)), encoding="utf-8")
        checked = subprocess.run(
            ["systemd-analyze", "verify", str(path)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        said = [
            line for line in (checked.stdout + checked.stderr).splitlines() if name[:10] in line
        ]
        assert checked.returncode == 0 and not said, (name, checked.stdout, checked.stderr)


def test_the_service_runs_as_its_unit_starts_it_and_stops_on_sigterm(tmp_path):
    """The section's own commands, run for real with the database in a folder of the
    test: ``table create`` as given, then the unit's ``ExecStart``. It serves, prints
    the table's link at the ``--public-url``, logs JSON, and exits 0 on SIGTERM (what
    ``systemctl stop`` sends; ``Restart=on-failure`` then leaves it stopped)."""
    import json
    import os

    from tests.conftest import stop_process

    state = tmp_path / "var-lib-rollbridge"
    state.mkdir()
    env = {**os.environ, "ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1", "LANGUAGE": "en"}

    def here(command: list[str]) -> list[str]:
        argv = [a.replace("/var/lib/rollbridge", str(state)) for a in command[1:]]
        return [sys.executable, "-m", "rollbridge", *argv]

    (create,) = [c for c in service_commands() if c[1:3] == ["table", "create"]]
    made = subprocess.run(here(create), env=env, capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    table = made.stdout.split()[1]
    unit = service_units()["rollbridge.service"]
    argv = [*here(shlex.split(unit["ExecStart"])), "--port", "0"]
    process = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)  # fmt: skip
    try:
        assert process.stdout is not None
        lines = [process.stdout.readline() for _ in range(2)]
        assert "serving 1 table" in lines[0], lines
        assert lines[1].startswith(f"  web view  https://rb.example.org/tables/{table}"), lines
    finally:
        assert stop_process(process) == 0
    assert process.stderr is not None
    logged = [json.loads(line) for line in process.stderr.read().splitlines()]
    assert any(line["logger"] == "rollbridge.server" for line in logged)


def _contrast(foreground: str, background: str) -> float:
    """WCAG 2's contrast ratio of two ``#rrggbb`` colours."""

    def luminance(colour: str) -> float:
        channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    light, dark = sorted((luminance(foreground), luminance(background)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_the_web_docs_give_the_overlays_success_plate_its_contrast():
    """docs/web.md said a success's green plate gives 4.2:1 with the die's white digit;
    overlay.css's #2f8f3a gives 4.1:1."""
    css = (DOCS.parent / "core" / "server" / "webui" / "overlay.css").read_text("utf-8")
    (plate,) = re.findall(r"\.die-success \{ background: (#[0-9a-f]{6}); \}", css)
    web = (DOCS / "web.md").read_text("utf-8")
    said = re.search(r"a success's green plate gives ([0-9.]+):1", web)
    assert said is not None
    assert said.group(1) == f"{_contrast('#ffffff', plate):.1f}", (said.group(1), plate)


def test_operations_names_this_rollbridge_s_schema_version() -> None:
    """The section "Upgrading" quotes the refusal of a newer file with this rollbridge's schema
    version, and the steps the first open makes up to it (it said 4 after schema 5)."""
    from rollbridge.stores.sqlite import SCHEMA_VERSION

    text = " ".join((DOCS / "operations.md").read_text(encoding="utf-8").split())
    assert f"newer than this rollbridge's {SCHEMA_VERSION}: upgrade rollbridge" in text
    assert f"(`PRAGMA user_version`, 2 → {SCHEMA_VERSION}:" in text


def test_the_plugin_guides_advantage_keeps_the_higher_die_and_shows_both():
    """docs/plugins.md, "Dice", named ``keep`` and ``best_of`` without what they take
    and return or how a die not counted is shown (the walk of a sixth ruleset, d20
    advantage, from the guide alone): the expressions it gives now run as it says."""
    from rollbridge.dice import ScriptedDice, keep, roll_die

    text = (DOCS / "plugins.md").read_text(encoding="utf-8")
    section = text.split("### Dice", 1)[1].split("\n### ", 1)[0]
    advantage = re.search(r"advantage is `(keep\(.*?\))`", section).group(1)
    counted = re.search(r"\(`(next\(d\.value for d in rolled if d\.kept\))`\)", section).group(1)
    for supplied, highest, value in (([11, 19], True, 19), ([11, 19], False, 11)):
        written = advantage if highest else advantage.replace(", 1)", ", 1, highest=False)")
        rolled = eval(written, {"keep": keep, "roll_die": roll_die, "dice": ScriptedDice(supplied)})
        assert [d.value for d in rolled] == supplied
        assert eval(counted, {"rolled": rolled}) == value
        assert [d.kept for d in rolled].count(False) == 1
        assert next(d for d in rolled if not d.kept).tags == ("dropped",)


def test_the_plugin_guides_pool_counts_hits_and_hides_a_hidden_target():
    """docs/plugins.md, "Dice", named ``count_successes(dice, target)`` without what it
    returns: a newcomer's dice pool (author28's exploding d6 against a hidden guard,
    from the guide alone) added its tuple to a wound count and failed as "ruleset
    'surge' failed". The expression the guide gives runs as it says, and its hidden
    target's example tags no die (a die's tags would tell the guard) and marks the
    count."""
    from rollbridge.contract import Actor
    from rollbridge.dice import ScriptedDice, count_successes, roll_exploding
    from rollbridge.text import Private

    text = (DOCS / "plugins.md").read_text(encoding="utf-8")
    section = text.split("### Dice", 1)[1].split("\n### ", 1)[0]
    written = re.search(r"`(rolled, hits = count_successes\(.*?\))`", section).group(1)
    names = {"count_successes": count_successes, "roll_exploding": roll_exploding}
    namespace = {**names, "dice": ScriptedDice([6, 2, 5, 4])}
    exec(written, namespace)
    assert namespace["hits"] == 2  # 6 (exploded: 4 added), 2, 5, 4 against 5
    assert [d.tags for d in namespace["rolled"]] == [
        ("exploded", "success"), ("failure",), ("success",), ("explosion", "failure")
    ]  # fmt: skip
    (source,) = [b for b in python_blocks(DOCS / "plugins.md") if "def pool_against_hidden(" in b]
    exec(compile(source, "docs/plugins.md", "exec"), namespace)
    brute = Actor("brute", "Brute", {"guard": 5}, {})
    group, hits = namespace["pool_against_hidden"](ScriptedDice([6, 2, 5, 4]), 3, brute)
    assert hits == 2 and [d.value for d in group.dice] == [6, 2, 5, 4]
    assert not {"success", "failure"} & {tag for d in group.dice for tag in d.tags}
    assert isinstance(group.target, Private) and isinstance(group.successes, Private)
