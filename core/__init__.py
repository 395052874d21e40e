"""rollbridge: a plugin-based bridge between virtual tabletops and game rules.

The public API for plugin authors::

    import rollbridge
    from rollbridge import ActionSpec, Resolution, Ruleset, hookimpl

    @hookimpl
    def register_rulesets(register):
        register(MyRuleset())
"""

from rollbridge.contract import (
    STATUSES,
    ActionContext,
    ActionSpec,
    Actor,
    CommonState,
    PlayerView,
    Resolution,
    Ruleset,
    Track,
    TurnContext,
)
from rollbridge.hookspecs import hookimpl

__version__ = "0.1.0"

__all__ = [
    "STATUSES",
    "ActionContext",
    "ActionSpec",
    "Actor",
    "CommonState",
    "PlayerView",
    "Resolution",
    "Ruleset",
    "Track",
    "TurnContext",
    "__version__",
    "hookimpl",
]
