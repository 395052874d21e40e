"""The conformance suite of rollbridge.testing, run on wilddie."""

from __future__ import annotations

import pytest

from rollbridge.contract import Count, Resolution, Statistics
from rollbridge.host import PluginHost
from rollbridge.plugins.wilddie import WildDieRuleset
from rollbridge.testing import RulesetConformance
from rollbridge.text import Text


class TestWildDieConforms(RulesetConformance):
    ruleset = WildDieRuleset()
    #: WD-9: only a Shaken character rolls to recover
    action_states = {"recover": {"Ana": {"shaken": True}}}
    #: Counts whose English reads right at every count they take (as
    #: tests/test_english_plurals.py holds them for rollbridge's own scan)
    never_one = {
        "wilddie.chips.award.capped": "at most {most} are held: a count a table sets, >= 2",
        "wilddie.refused.unknown_roll": "the last {count} are remembered: >= 2",
        "wilddie.refused.damage.too_many": "{count} dice more than {most}: count > most >= 1",
    }


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


@pytest.mark.parametrize(
    ("returned", "problem"),
    [
        (lambda: Resolution(Text("wilddie.never_declared", {"x": 1}), {}), "internal"),
        (lambda: Resolution("round", {"skills": {"fight", "will"}}), "internal"),
        (lambda: {"narration": "round"}, "internal"),
    ],
    ids=["undeclared-text", "a-set", "a-dict"],
)
def test_a_turn_hook_the_engine_refuses_fails_the_suite(returned, problem):
    """A turn hook whose result cannot be stored (an undeclared Text, a set) or is no
    Resolution: the engine refuses the step as ``internal``, and the suite's
    encounter fails naming the step (it skipped every refusal before, so such a
    ruleset passed); refusals by the rules are still skipped."""

    class BadRoundStart(WildDieRuleset):
        def on_round_start(self, context, dice):
            return returned()

    class TestBad(RulesetConformance):
        ruleset = BadRoundStart()

    with pytest.raises(AssertionError, match=rf"encounter\.(start|next): {problem}: "):
        TestBad().test_statistics_read_the_rulesets_own_events()
