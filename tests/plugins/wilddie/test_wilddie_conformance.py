"""The conformance suite of rollbridge.testing, run on wilddie."""

from __future__ import annotations

from rollbridge.host import PluginHost
from rollbridge.plugins.wilddie import WildDieRuleset
from rollbridge.testing import RulesetConformance


class TestWildDieConforms(RulesetConformance):
    ruleset = WildDieRuleset()


def test_registered_as_a_builtin_plugin():
    host = PluginHost(
        environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1", "ROLLBRIDGE_PLUGINS": "wilddie"}
    )
    ruleset = host.ruleset("wilddie")
    assert isinstance(ruleset, WildDieRuleset)
    assert ruleset.version == "1.1.0"
