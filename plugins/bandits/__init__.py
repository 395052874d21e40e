"""The built-in ``bandits`` ruleset (BD-1..BD-11); docs/rulesets/bandits.md describes it."""

from rollbridge.hookspecs import hookimpl

from .ruleset import BanditsRuleset

__all__ = ["BanditsRuleset", "register_rulesets"]


@hookimpl
def register_rulesets(register):  # type: ignore[no-untyped-def]
    register(BanditsRuleset())
