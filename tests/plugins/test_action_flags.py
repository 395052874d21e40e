"""``ActionSpec.gm_only`` and ``every_actor`` are ``True`` or ``False`` (review
plugins-24's closing note: they were not checked at load as ``secret`` is, and a
``"no"`` read as true). Refusing them would stop servers whose third-party rulesets
load today, so for a release one that is no bool is taken as Python reads its truth,
with a WARNING at load naming the plugin, the ruleset, the action, the field, the
value and what it is read as; the welcome says it as a bool, as the server reads
it. One whose truth cannot be read is refused (every request for the action, and
every welcome, failed on it). docs/plugins.md, "The contract"."""

from __future__ import annotations

import dataclasses
import logging

import pytest

from rollbridge.exceptions import PluginError
from tests.plugins.listener import Listener
from tests.plugins.test_secret_actions import joined, listener_host, served


def flagged(**flags: object) -> Listener:
    """A Listener whose ``test`` has ``flags``."""
    actions = {**Listener.actions, "test": dataclasses.replace(Listener.actions["test"], **flags)}
    return type("Flagged", (Listener,), {"actions": actions})()


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "rollbridge.host"]


async def test_gm_only_no_loads_with_a_warning_and_reads_as_it_is_read(tmp_path, caplog):
    """``gm_only="no"``: the author meant players may ask; Python reads it true, as
    the server always has. It loads with a WARNING saying so; the welcome says
    ``true`` (it said ``"no"``, which a client comparing with ``true`` read as
    players' own); the player is refused as the GM's action, the GM answered."""
    with caplog.at_level(logging.WARNING, logger="rollbridge.host"):
        server, store, tokens = await served(tmp_path, flagged(gm_only="no"))
    try:
        assert warnings_of(caplog) == [
            "plugin 'listener': ruleset 'listener' action 'test': gm_only 'no' is not True "
            "or False: taken as True (only the GM may ask for it), as Python reads its "
            "truth, until a later release refuses it: write True"
        ]
        player, welcome = await joined(server, tokens["player"])
        assert welcome["ruleset"]["actions"]["test"]["gm_only"] is True
        test = {"type": "resolve", "action": "test", "actor": "hero", "targets": ["bandit"]}
        refused = await player.request(test)
        assert refused["code"] == "forbidden" and "for the GM only" in refused["message"]
        gm, _ = await joined(server, tokens["gm"])
        assert (await gm.request(test))["status"] == "done"
        for peer in (player, gm):
            await peer.close()
    finally:
        await server.stop()
        store.close()


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        ({"every_actor": 0}, "every_actor 0 is not True or False: taken as False (a request "
                             "names its targets)"),
        ({"gm_only": None}, "gm_only None is not True or False: taken as False (players may "
                            "ask for it too)"),
    ],
    ids=["every-actor-zero", "gm-only-none"],
)  # fmt: skip
async def test_a_flag_that_reads_false_loads_with_a_warning(tmp_path, caplog, flags, said):
    """A falsy value (0, None) reads as ``False``: the action plays as before, the
    WARNING says so, the welcome says ``false`` (it said 0, None)."""
    with caplog.at_level(logging.WARNING, logger="rollbridge.host"):
        server, store, tokens = await served(tmp_path, flagged(**flags))
    try:
        (warning,) = warnings_of(caplog)
        assert said in warning and warning.endswith("write False"), warning
        player, welcome = await joined(server, tokens["player"])
        (field,) = flags
        assert welcome["ruleset"]["actions"]["test"][field] is False
        test = {"type": "resolve", "action": "test", "actor": "hero", "targets": ["bandit"]}
        assert (await player.request(test))["status"] == "done"
        await player.close()
    finally:
        await server.stop()
        store.close()


@pytest.mark.parametrize("field", ["gm_only", "every_actor"])
def test_a_flag_whose_truth_cannot_be_read_is_refused_at_load(field):
    """Its ``__bool__`` raises: every request for the action answered ``internal``
    and every welcome failed; refused at load, naming the action and the field."""
    unsure = type("Unsure", (), {"__bool__": lambda self: 1 / 0, "__repr__": lambda s: "Unsure"})
    with pytest.raises(PluginError) as refused:
        listener_host(flagged(**{field: unsure()}))
    assert str(refused.value) == (
        f"plugin 'listener': ruleset 'listener' action 'test': {field} Unsure is not True "
        "or False, and what it means cannot be read (ZeroDivisionError: division by zero)"
    )


def test_bools_load_without_a_warning(caplog):
    with caplog.at_level(logging.WARNING, logger="rollbridge.host"):
        listener_host(flagged(gm_only=True, every_actor=False))
    assert warnings_of(caplog) == []


class ReadOnce:
    """A flag whose truth reads once (``False``), then raises: what load reads is
    what every later reader must get, not a second reading of the value."""

    def __init__(self) -> None:
        self.reads = 0

    def __bool__(self) -> bool:
        self.reads += 1
        if self.reads > 1:
            raise RuntimeError("read twice")
        return False

    def __repr__(self) -> str:
        return "ReadOnce"


@pytest.mark.parametrize("field", ["gm_only", "every_actor"])
async def test_a_flag_is_read_once_at_load_and_held_as_that_bool(tmp_path, caplog, field):
    """The action holds the bool load read (the WARNING's "taken as False"): the
    welcome, a player's request and ``describe`` read it, not the value again (they
    were answered ``internal``, "ruleset 'listener' failed", at every welcome)."""
    ruleset = flagged(**{field: ReadOnce()})
    with caplog.at_level(logging.WARNING, logger="rollbridge.host"):
        server, store, tokens = await served(tmp_path, ruleset)
    try:
        (warning,) = warnings_of(caplog)
        assert f"{field} ReadOnce is not True or False: taken as False" in warning, warning
        player, welcome = await joined(server, tokens["player"])
        assert welcome["type"] == "welcome", welcome
        assert welcome["ruleset"]["actions"]["test"][field] is False
        test = {"type": "resolve", "action": "test", "actor": "hero", "targets": ["bandit"]}
        assert (await player.request(test))["status"] == "done"
        assert ruleset.describe("en")["actions"]["test"][field] is False
        assert getattr(ruleset.actions["test"], field) is False  # the plugin's code reads it
        await player.close()
    finally:
        await server.stop()
        store.close()
