"""Built-in ruleset ``sr2``: dice pools and staged damage, Shadowrun 2nd edition
style. Rules SR-1 to SR-16 (../shared/rulesets/sr2.md); user docs in
docs/rulesets/sr2.md.

Modules, one job each:

``codes``    damage codes, rounds fired, recoil, staging (SR-4 to SR-7, SR-10)
``rolls``    open-ended success tests (SR-1 to SR-3, SR-16)
``monitor``  condition monitors, wound modifiers, status, healing (SR-11 to SR-13, SR-15)
``sheet``    sheet and settings schemas, weapons, fresh state
``actions``  action specs and parameter schemas
``checks``   parameter and Combat Pool checks (SR-14)
``explain``  the human lines of a resolution's steps
``combat``   attack and resistance-only damage (SR-6 to SR-11)
``ruleset``  the Ruleset object: dispatch, bookkeeping actions, hooks, views
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
