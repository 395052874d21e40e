"""Every example action of the four built-in rulesets resolves in their conformance
suites (review plugins-23): sr2's ``bleed`` and ``stabilise`` (SR-13), bandits'
``stabilise`` (BD-8) and wilddie's ``recover`` (WD-9) need a dying or Shaken actor,
and the fresh example actors were refused them with every seed — so none of the
suite's checks of a resolution (texts, private values, dice) reached them, and the
suite warned (``NeverResolvedWarning``). ``action_states`` on each conformance class
puts the example actor in that state just before that action, leaving the others'
examples as they were (Tukan, dying from the start, could not attack)."""

from __future__ import annotations

import importlib
import warnings

import pytest

from rollbridge.exceptions import NeverResolvedWarning, RuleViolation

SUITES = {
    "sr2": ("tests.plugins.sr2.test_sr2_table", "TestSR2Conforms"),
    "bandits": ("tests.plugins.bandits.test_bandits_contract", "TestBanditsConforms"),
    "wilddie": ("tests.plugins.wilddie.test_wilddie_conformance", "TestWildDieConforms"),
    "techlevel": ("tests.plugins.techlevel.test_techlevel_conformance", "TestTechLevelConforms"),
}


@pytest.mark.parametrize("ruleset", sorted(SUITES))
def test_no_example_is_refused_with_every_seed(ruleset):
    module, name = SUITES[ruleset]
    suite = getattr(importlib.import_module(module), name)()
    with warnings.catch_warnings():
        warnings.simplefilter("error", NeverResolvedWarning)
        suite.test_actions_resolve_through_the_engine()


def refusals(suite, seed: int) -> dict[str, str]:
    """Each example action the rules refused at a fresh harness, with its code."""
    harness, ids = suite._harness(seed)
    found = {}
    for action, case in suite._cases():
        try:
            harness.resolve(
                action, params=case["params"], **suite._request_for(action, ids, harness)
            )
        except RuleViolation as exc:
            found[action] = exc.code
    return found


def test_an_action_state_is_set_before_its_example_alone():
    """sr2's ``attack`` still resolves with every seed (Tukan acts, not dying), and
    ``bleed`` and ``stabilise`` with every seed too: the state is the action's."""
    module, name = SUITES["sr2"]
    suite = getattr(importlib.import_module(module), name)()
    assert [refusals(suite, seed) for seed in suite.seeds] == [{}] * len(suite.seeds)
