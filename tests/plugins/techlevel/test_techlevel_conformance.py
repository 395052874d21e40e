"""The conformance suite of rollbridge.testing, run on techlevel."""

from rollbridge.plugins.techlevel import TechLevel
from rollbridge.testing import RulesetConformance


class TestTechLevelConforms(RulesetConformance):
    ruleset = TechLevel()
