"""The built-in ruleset ``wilddie``: trait dice that ace, the wild die and chips.

Rules WD-1 to WD-10 of rulesets/wilddie.md; docs/rulesets/wilddie.md explains
how to use it. Modules, one job each:

``traits``    WD-1 traits, WD-5 Defense and Toughness
``sheet``     the sheet schema and a fresh actor's state
``state``     the state and the pure functions that change it (WD-8 wounds, roll memory)
``messages``  every text the ruleset says, declared once in English (``wilddie.*`` ids)
``privacy``   what players see of an NPC: its view, its private values, ``reveals``
``rolling``   WD-2 aces, WD-3 trait tests as roll records
``damage``    WD-7 damage expressions and their effect against Toughness
``actions``   the action specs and the table settings
``action_texts`` the actions' labels, summaries, parameter labels, hints and choices
``checks``    trait, attack, recover, chip (WD-3, WD-4, WD-6, WD-9)
``harm``      damage, heal, award_chips (WD-4, WD-7, WD-8)
``ruleset``   the Ruleset object
"""

from collections.abc import Callable

from rollbridge.contract import Ruleset
from rollbridge.hookspecs import hookimpl
from rollbridge.plugins.wilddie.ruleset import WildDieRuleset

__all__ = ["WildDieRuleset", "register_rulesets"]


@hookimpl
def register_rulesets(register: Callable[[Ruleset], None]) -> None:
    """Register the wilddie ruleset."""
    register(WildDieRuleset())
