"""The fixture ruleset of the plugin author's tests (tests/plugins/rollunder.py) is
a ruleset the conformance suite passes: what its variants fail, they fail alone."""

from rollbridge.testing import RulesetConformance
from tests.plugins.rollunder import RollUnder


class TestRollUnderConforms(RulesetConformance):
    ruleset = RollUnder()
