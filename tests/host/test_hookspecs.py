"""Every hook is documented (parameters, calling mode) and exercised by a test.

Modelled on datasette's ``test_plugin_hooks_have_tests``.
"""

from __future__ import annotations

import inspect
import pathlib
import re

import pytest

import rollbridge
from rollbridge import hookspecs
from rollbridge.dice import ScriptedDice
from rollbridge.engine import Principal
from rollbridge.offline import TableService
from rollbridge.stores import MemoryStore
from rollbridge.testing import host_with

HOOKS = sorted(
    name
    for name, obj in vars(hookspecs).items()
    if inspect.isfunction(obj) and hasattr(obj, "rollbridge_spec")
)
TESTS = pathlib.Path(__file__).resolve().parents[1]


def test_the_contract_has_the_required_hooks():
    assert {
        "register_rulesets",
        "register_adapters",
        "table_created",
        "roll_resolved",
        "actor_state_changed",
    } <= set(HOOKS)


@pytest.mark.parametrize("hook", HOOKS)
def test_every_hook_is_documented(hook):
    function = getattr(hookspecs, hook)
    doc = inspect.getdoc(function) or ""
    assert "Calling mode:" in doc, f"{hook} does not state its calling mode"
    for parameter in inspect.signature(function).parameters:
        assert f":param {parameter}:" in doc, f"{hook} does not document {parameter!r}"
    hints = inspect.get_annotations(function)
    assert set(hints) == {*inspect.signature(function).parameters, "return"}, (
        f"{hook} is not fully typed"
    )


@pytest.mark.parametrize("hook", HOOKS)
def test_every_hook_has_a_test(hook):
    pattern = re.compile(rf"\bdef {hook}\(")
    uses = [p for p in TESTS.rglob("test_*.py") if pattern.search(p.read_text())]
    assert uses, f"no test implements the hook {hook}"


class Recorder:
    """Implements every observer hook and records the calls."""

    def __init__(self):
        self.calls = []

    @rollbridge.hookimpl
    def table_created(self, table):
        self.calls.append(("table_created", table["id"]))

    @rollbridge.hookimpl
    def roll_resolved(self, table_id, event):
        self.calls.append(("roll_resolved", table_id, event["kind"], event["seq"]))

    @rollbridge.hookimpl
    def actor_state_changed(self, table_id, actor_id, before, after, common, seq):
        self.calls.append(
            (
                "actor_state_changed",
                actor_id,
                before,
                after,
                common["status"] if common else None,
                seq,
            )
        )


class Failing:
    """An observer that raises: the table must go on."""

    @rollbridge.hookimpl
    def roll_resolved(self, event):
        raise RuntimeError("observer bug")


def test_observer_hooks_fire_after_each_durable_change(tally):
    recorder = Recorder()
    host = host_with(tally)
    host.manager.register(recorder, name="recorder")
    host.manager.register(Failing(), name="failing")
    service = TableService(MemoryStore(), host)
    gm = Principal("gm", "gm", "k")
    service.create_table("T", "tally", table_id="t")
    service.handle(
        "t",
        {"type": "actor.create", "id": "1", "actor": {"id": "g", "name": "G", "sheet": {"hp": 6}}},
        gm,
    )
    service.handle(
        "t",
        {"type": "resolve", "id": "2", "action": "hit", "targets": ["g"]},
        gm,
        ScriptedDice([4]),
    )
    service.handle("t", {"type": "roll", "id": "3", "formula": "1d6"}, gm, ScriptedDice([2]))
    assert recorder.calls == [
        ("table_created", "t"),
        ("actor_state_changed", "g", None, {"damage": 0, "rounds": 0, "turns": 0}, "ok", 1),
        ("roll_resolved", "t", "resolution", 2),
        (
            "actor_state_changed",
            "g",
            {"damage": 0, "rounds": 0, "turns": 0},
            {"damage": 4, "rounds": 0, "turns": 0},
            "impaired",
            2,
        ),
        ("roll_resolved", "t", "roll", 3),
    ]
