"""Built-in ruleset ``techlevel``: damage boxes, armour layers and tech levels.

See docs/rulesets/techlevel.md.
"""

from rollbridge.hookspecs import hookimpl

from .ruleset import TechLevel

__all__ = ["TechLevel", "register_rulesets"]


@hookimpl
def register_rulesets(register):  # type: ignore[no-untyped-def]
    """Register the techlevel ruleset."""
    register(TechLevel())
