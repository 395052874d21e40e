"""pyproject.toml allows pluggy 1.3, and pluggy 1.3 to 1.6 find a hook implementation
with ``PluginManager.parse_hookimpl_opts(plugin, name)`` reading ``getattr(plugin,
name)`` without a default: pluggy itself asks only of the names a plugin has. The
host asked of every hook for every plugin, so on those versions every start failed
(``AttributeError: module 'rollbridge.plugins.bandits' has no attribute
'actor_state_changed'``: found running the suite on the lowest versions allowed,
docs/operations.md, "The libraries it needs"). The suite runs pluggy 1.7, which
reads the name as it stands; the stand-in below is pluggy 1.6's method, as written
there, put in its place for the test (the documented way to change it: a subclass
may override it)."""

from __future__ import annotations

import inspect

import pluggy
import pytest

import rollbridge
from rollbridge.host import PluginHost


def _parse_hookimpl_opts_of_pluggy_1_6(self, plugin, name):  # a stand-in: pluggy 1.6's
    method = getattr(plugin, name)
    if not inspect.isroutine(method):
        return None
    try:
        res = getattr(method, self.project_name + "_impl", None)
    except Exception:
        res = {}
    if res is not None and not isinstance(res, dict):
        res = None
    return res


@pytest.fixture
def older_pluggy(monkeypatch):
    monkeypatch.setattr(
        pluggy.PluginManager, "parse_hookimpl_opts", _parse_hookimpl_opts_of_pluggy_1_6
    )


@pytest.mark.usefixtures("older_pluggy")
def test_the_built_in_plugins_load_with_an_older_pluggy():
    host = PluginHost(environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert {"sr2", "techlevel", "bandits", "wilddie", "foundry"} <= set(host.plugins)
    assert {"sr2", "techlevel", "bandits", "wilddie"} <= set(host.rulesets)


@pytest.mark.usefixtures("older_pluggy")
def test_an_unmarked_hook_is_still_refused_with_an_older_pluggy():
    """The check of a hook left unmarked goes on working: a plugin's function named as
    a hook without the mark is refused as before."""
    from rollbridge.exceptions import PluginLoadError

    class Forgetful:
        def table_created(self, table):  # no @hookimpl
            return None

    with pytest.raises(PluginLoadError):
        PluginHost({"forgetful": Forgetful()}, environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})


class _Unset:
    """A plugin whose class declares a hook's name it never sets (a slot): the name
    is there to look up, and reading it raises AttributeError."""

    __slots__ = ("table_created",)

    @rollbridge.hookimpl
    def register_rulesets(self, register):
        return None


@pytest.mark.usefixtures("older_pluggy")
def test_a_hook_name_that_cannot_be_read_is_refused_not_a_traceback_with_an_older_pluggy():
    """pluggy 1.3 to 1.6 read the name to see whether it is a hook: the host's check
    of its parameters asked first, outside the refusal of a plugin that could not be
    registered, and the start ended in an AttributeError's traceback. pluggy's own
    reading of it is refused as before, naming the plugin."""
    from rollbridge.exceptions import PluginLoadError

    with pytest.raises(PluginLoadError) as refused:
        PluginHost({"unset": _Unset()}, builtins=False,
                   environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})  # fmt: skip
    assert refused.value.details == {"plugin": "unset"}
    assert "plugin 'unset' could not be registered" in str(refused.value)


@pytest.mark.usefixtures("older_pluggy")
def test_a_misspelt_hook_is_still_refused_with_an_older_pluggy():
    """The host passes over the hooks a plugin does not have; a marked function under
    a name that is no hook (``register_ruleset``, no s) is refused as on pluggy 1.7,
    naming the plugin and the name: tests/host/test_host.py's test, run here with
    the older pluggy's lookup."""
    from tests.host.test_host import (
        test_a_misspelt_hook_is_refused_at_load_naming_plugin_and_hook as misspelt,
    )

    misspelt()
