"""The conformance suite of rollbridge.testing, run on wilddie."""

from __future__ import annotations

import pytest

from rollbridge.contract import Count, Statistics
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


def test_the_suite_reads_turn_hooks_statistics_too():
    """The conformance suite feeds every turn hook's result to ``statistics.count`` as
    a view of kind ``hook`` (a Shaken character's recovery at its turn, WD-4): a count
    that is wrong only there fails it, naming the hook."""

    class BadHookCounts(WildDieRuleset):
        def statistics(self) -> Statistics:
            real = super().statistics()

            def count(view):
                if view.get("kind") == "hook":
                    return [Count(None, real.keys[0][0], value="1")]
                return real.count(view)

            return Statistics(keys=real.keys, count=count)

    class TestBad(RulesetConformance):
        ruleset = BadHookCounts()

    with pytest.raises(AssertionError, match=r"turn hook on_turn_start: .* not an int"):
        TestBad().test_statistics_read_the_rulesets_own_events()
