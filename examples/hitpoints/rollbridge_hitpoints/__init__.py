"""rollbridge-hitpoints: an example ruleset plugin (d20 against AC, hit points)."""

from collections.abc import Callable

import rollbridge
from rollbridge_hitpoints.ruleset import HitPoints

__version__ = "1.0.0"


@rollbridge.hookimpl
def register_rulesets(register: Callable[[rollbridge.Ruleset], None]) -> None:
    """Hand our one ruleset to rollbridge."""
    register(HitPoints())
