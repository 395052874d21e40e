"""Shared fixtures: a tiny ruleset (``tally``) for testing the engine itself.

``tally`` is not a game: actors have hit points on their sheet and a damage
count in their state; ``hit`` rolls 1d6 and adds a bonus to one target's
damage; ``heal`` (GM only) removes damage; ``boom`` raises a plain Python
error to test how the engine contains a failing ruleset. Its turn hooks count
rounds and turns in the participants' states.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import settings

from rollbridge import (
    ActionContext,
    ActionSpec,
    Actor,
    CommonState,
    PlayerView,
    Resolution,
    Ruleset,
    Track,
    TurnContext,
)
from rollbridge.dice import DiceGroup, DiceSource, roll_die
from rollbridge.engine import Principal
from rollbridge.exceptions import RuleViolation
from rollbridge.offline import TableService
from rollbridge.stores import MemoryStore
from rollbridge.testing import host_with

# Tests never assert on time: Hypothesis's deadline (200 ms an example by default) is
# off for every property test, as it was for ten of them by hand. On a loaded machine
# an sr2 pool refusal's example once took longer and failed (review rev25p).
settings.register_profile("rollbridge", deadline=None)
settings.load_profile("rollbridge")

#: Every variable rollbridge itself reads (a test holds this list to the code's): a
#: tester's own store, token, reconnect and welcome waits, or plugin controls.
PROGRAM_VARIABLES = (
    "ROLLBRIDGE_REDIS",
    "ROLLBRIDGE_DB",
    "ROLLBRIDGE_TOKEN",
    "ROLLBRIDGE_RECONNECT_DELAY",
    "ROLLBRIDGE_WELCOME_TIMEOUT",
    "ROLLBRIDGE_PLUGINS",
    "ROLLBRIDGE_BLOCK_PLUGINS",
    "ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD",
    "ROLLBRIDGE_LOG_PRIVATE",
)
# Every test reads English unless it asks for a language, and uses the store, token
# and plugins it names: the machine's own locale variables, and a tester's own values of
# the program's variables, must not reach the tests nor the CLI and server processes
# they start (a tester's $ROLLBRIDGE_TOKEN joined tables with it, $ROLLBRIDGE_PLUGINS
# left rulesets out). The tests' own controls (``ROLLBRIDGE_CHROMIUM``, ``…_FUZZ_…``)
# stay.
for _variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", *PROGRAM_VARIABLES):
    os.environ.pop(_variable, None)
# A tester's proxies too (``http_proxy``, ``HTTPS_PROXY``, ``all_proxy``, ``no_proxy``:
# every ``…_proxy`` urllib reads, whatever its case): websockets' ``connect`` goes
# through them, ``rollbridge connect`` and the tests' own clients alike, and a
# connection to a test's server on 127.0.0.1 went to the tester's proxy instead.
for _variable in [name for name in os.environ if name.lower().endswith("_proxy")]:
    os.environ.pop(_variable)
os.environ["LANG"] = "C.UTF-8"


@pytest.fixture
def english_without_stores(monkeypatch: pytest.MonkeyPatch) -> None:
    """English, and neither ``$ROLLBRIDGE_REDIS`` nor ``$ROLLBRIDGE_DB`` from the
    machine: a command given no store option would use the tester's own. A module
    takes it for each of its tests with
    ``pytestmark = pytest.mark.usefixtures("english_without_stores")``."""
    monkeypatch.setenv("LANGUAGE", "en")
    monkeypatch.delenv("ROLLBRIDGE_REDIS", raising=False)
    monkeypatch.delenv("ROLLBRIDGE_DB", raising=False)


class Tally(Ruleset):
    id = "tally"
    name = "Tally (engine test ruleset)"
    version = "1.2.0"
    summary = "Hit points and a damage count."
    sheet_schema = {
        "type": "object",
        "properties": {"hp": {"type": "integer", "minimum": 1, "maximum": 100}},
        "required": ["hp"],
    }
    settings_schema = {
        "type": "object",
        "properties": {"show_damage": {"type": "boolean", "default": False}},
    }
    example_sheets = {"Ana": {"hp": 10}, "Guard": {"hp": 6}}
    actions = {
        "hit": ActionSpec(
            "hit",
            "Roll 1d6 + bonus damage against one target.",
            params={
                "type": "object",
                "properties": {"bonus": {"type": "integer", "minimum": 0, "default": 0}},
            },
            actor="optional",
            min_targets=1,
            max_targets=1,
            example={"bonus": 1},
        ),
        "heal": ActionSpec(
            "heal",
            "Remove damage.",
            params={
                "type": "object",
                "properties": {"amount": {"type": "integer", "minimum": 1}},
                "required": ["amount"],
            },
            actor="none",
            min_targets=1,
            max_targets=1,
            gm_only=True,
            example={"amount": 1},
        ),
        "boom": ActionSpec("boom", "Raises a plain error.", actor="none"),
    }

    def initial_state(self, sheet: Mapping[str, Any]) -> dict[str, Any]:
        return {"damage": 0, "rounds": 0, "turns": 0}

    def resolve(self, context: ActionContext, dice: DiceSource) -> Resolution:
        if context.action == "boom":
            raise ValueError("the ruleset broke")
        target = context.targets[0]
        damage = target.state["damage"]
        if context.action == "heal":
            if damage == 0:
                raise RuleViolation(f"{target.name} is not hurt", code="not_hurt")
            new = max(0, damage - context.params["amount"])
            return Resolution(
                f"{target.name} heals",
                {"healed": damage - new},
                states={target.id: {**target.state, "damage": new}},
            )
        die = roll_die(dice, 6)
        amount = die.value + context.params["bonus"]
        new = min(target.sheet["hp"], damage + amount)
        return Resolution(
            f"{target.name} takes {amount}",
            {"amount": amount},
            dice=[DiceGroup("damage", (die,), formula="1d6", total=die.value)],
            states={target.id: {**target.state, "damage": new}},
            steps=[f"{die.value} + bonus {context.params['bonus']} = {amount}"],
        )

    def common_state(self, actor: Actor) -> CommonState:
        damage, hp = actor.state["damage"], actor.sheet["hp"]
        status = "dead" if damage >= hp else "impaired" if damage else "ok"
        return CommonState(status, (Track("damage", "Damage", damage, hp),))

    def adjust(self, actor: Actor, track: str, delta: int) -> dict[str, Any]:
        if track != "damage":
            raise RuleViolation(f"no track {track!r}", code="unknown_track")
        value = max(0, min(actor.sheet["hp"], actor.state["damage"] + delta))
        return {**actor.state, "damage": value}

    def player_view(self, actor: Actor, settings: Mapping[str, Any]) -> PlayerView:
        common = self.common_state(actor)
        if settings.get("show_damage"):
            return PlayerView(common, state={"damage": actor.state["damage"]})
        return PlayerView(CommonState(common.status))

    def player_resolution(self, data, hidden, settings):
        if settings.get("show_damage"):
            return dict(data)
        return {**data, "outcome": {}, "steps": [], "narration": "someone is hit"}

    def on_round_start(self, context: TurnContext, dice: DiceSource) -> Resolution | None:
        return Resolution(
            f"round {context.round}",
            states={
                a.id: {**a.state, "rounds": a.state["rounds"] + 1} for a in context.participants
            },
        )

    def on_turn_start(self, context: TurnContext, dice: DiceSource) -> Resolution | None:
        actor = context.actor
        assert actor is not None
        die = roll_die(dice, 6)
        return Resolution(
            f"{actor.name}'s turn",
            dice=[DiceGroup("initiative", (die,))],
            states={actor.id: {**actor.state, "turns": actor.state["turns"] + 1}},
        )


GM = Principal("gm", "gm", "tok-gm")
ALICE = Principal("player", "alice", "tok-alice")
BOB = Principal("player", "bob", "tok-bob")
WATCHER = Principal("observer", "observer", "tok-obs")


@pytest.fixture
def tally() -> Tally:
    return Tally()


@pytest.fixture
def service(tally: Tally) -> TableService:
    """A service on a memory store with one table ``t`` of ruleset tally."""
    svc = TableService(MemoryStore(), host_with(tally))
    svc.create_table("Test table", "tally", table_id="t")
    return svc


@pytest.fixture
def seated(service: TableService) -> TableService:
    """The table with Ana (alice's), Bo (bob's) and an NPC guard."""
    for rid, actor in enumerate(
        [
            {"id": "ana", "name": "Ana", "sheet": {"hp": 10}, "controllers": ["alice"]},
            {"id": "bo", "name": "Bo", "sheet": {"hp": 8}, "controllers": ["bob"]},
            {"id": "guard", "name": "Guard", "sheet": {"hp": 6}},
        ]
    ):
        service.handle("t", {"type": "actor.create", "id": f"seat{rid}", "actor": actor}, GM)
    return service


#: The benchmark scripts (a folder of scripts, not a package).
BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="session")
def benchmark_script() -> Callable[[str], ModuleType]:
    """Import ``benchmarks/<name>.py`` afresh (its globals are the test's to patch).

    While it loads, the folder is on ``sys.path`` (the scripts import each other by
    name; those are imported once and shared, as any module) and the module is in
    ``sys.modules`` under its name (as a dataclass in it needs); both are put back
    as they were after. A script that puts its folder on ``sys.path`` itself, to
    import a sibling later, keeps it there."""

    def load(name: str) -> ModuleType:
        spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
        assert spec is not None and spec.loader is not None, name
        module = importlib.util.module_from_spec(spec)
        before = sys.modules.get(name)
        sys.modules[name] = module
        sys.path.insert(0, str(BENCHMARKS))
        try:
            spec.loader.exec_module(module)
        finally:
            sys.path.remove(str(BENCHMARKS))
            if before is None:
                del sys.modules[name]
            else:
                sys.modules[name] = before
        return module

    return load


def stop_process(process: subprocess.Popen, timeout: float = 20) -> int | None:
    """Stop a server a test started: SIGTERM, SIGKILL after ``timeout`` s; its exit status."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=timeout)
    return process.returncode


def installed_plugin(site: Path, name: str, source: str) -> Path:
    """``site`` (made) holding the plugin module ``rb_<name>`` of ``source`` (dedented)
    installed as a package, as pip leaves one: its ``dist-info`` naming the entry point
    ``name`` in the ``rollbridge`` group. Put ``site`` on ``PYTHONPATH`` to load it."""
    site.mkdir(parents=True, exist_ok=True)
    module = f"rb_{name}"
    (site / f"{module}.py").write_text(textwrap.dedent(source))
    info = site / f"{module}-1.0.0.dist-info"
    info.mkdir()
    dist = module.replace("_", "-")
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0.0\n")
    (info / "entry_points.txt").write_text(f"[rollbridge]\n{name} = {module}\n")
    return site


def created_table(db: Path, ruleset: str, name: str, env: Mapping[str, str]) -> dict[str, Any]:
    """``rollbridge table create --json`` of a ``ruleset`` table named ``name`` in the
    SQLite file ``db``, run as a process in ``env``: what it printed (``table``,
    ``tokens``, …)."""
    made = subprocess.run(
        [sys.executable, "-m", "rollbridge", "table", "create", "--ruleset", ruleset,
         "--name", name, "--json", "--db", str(db)],
        capture_output=True, text=True, check=True, env=dict(env), timeout=60,
    )  # fmt: skip
    return json.loads(made.stdout)
