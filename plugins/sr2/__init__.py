"""Built-in ruleset ``sr2``: dice pools and staged damage, Shadowrun 2nd edition
style. Rules SR-1 to SR-16 (../shared/rulesets/sr2.md); user docs in
docs/rulesets/sr2.md.

Modules, one job each:

``codes``     damage codes, rounds fired, recoil, staging (SR-4 to SR-7, SR-10)
``rolls``     open-ended success tests (SR-1 to SR-3, SR-16)
``monitor``   condition monitors, wound modifiers, status, healing (SR-11 to SR-13, SR-15)
``sheet``     sheet and settings schemas, weapons, fresh state
``actions``   action specs and parameter schemas
``checks``    parameter and Combat Pool checks (SR-14)
``messages``  every text the ruleset says, declared once in English (``sr2.*`` ids)
``privacy``   what of an NPC players may see: the aspects and the settings revealing them
``words``     the small shared texts lines are built from (counts, TNs, levels)
``explain``   the steps of an attack and of resistance, as texts
``narrate``   the narration and dice group labels of an attack and of damage
``told``      what one test's numbers say, memoised (texts and marks of a test)
``combat``    attack and resistance-only damage (SR-6 to SR-11)
``success``   the success test (SR-16)
``care``      heal, bleed, stabilise (SR-13, SR-15)
``refill``    a new combat turn refills every Combat Pool (SR-14)
``ruleset``   the Ruleset object: dispatch, turn hooks, views, direct adjustment
"""

from collections.abc import Callable

from rollbridge.contract import Ruleset
from rollbridge.hookspecs import hookimpl

from .ruleset import SR2Ruleset

__all__ = ["SR2Ruleset", "register_rulesets"]


@hookimpl
def register_rulesets(register: Callable[[Ruleset], None]) -> None:
    """Register the sr2 ruleset."""
    register(SR2Ruleset())
