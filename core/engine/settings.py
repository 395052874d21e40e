"""Table settings: the core ones every table has, and the ruleset's own.

``approval``
    players' rolls and actions wait for the GM's approval (default off).
``player_dice``
    players may supply their own die results (default off: the server rolls).
``ruleset``
    the ruleset's settings, validated by its ``settings_schema``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rollbridge.contract import Ruleset
from rollbridge.exceptions import InvalidSettings
from rollbridge.plain import JSON
from rollbridge.schema import validate

__all__ = ["CORE_SETTINGS_SCHEMA", "default_settings"]


#: Settings every table has, whatever its ruleset; ``ruleset`` holds the
#: ruleset's own settings (validated by its ``settings_schema``).
CORE_SETTINGS_SCHEMA: JSON = {
    "type": "object",
    "properties": {
        "approval": {
            "type": "boolean",
            "default": False,
            "description": "Players' rolls and actions wait for the GM's approval.",
        },
        "player_dice": {
            "type": "boolean",
            "default": False,
            "description": "Players may supply their own dice results.",
        },
        "ruleset": {"type": "object", "additionalProperties": True, "default": {}},
    },
}


def default_settings(ruleset: Ruleset, settings: Mapping[str, Any] | None = None) -> JSON:
    """Validate table settings (core and the ruleset's), defaults filled in.

    :raises InvalidSettings: naming the offending setting.
    """
    merged = validate(
        CORE_SETTINGS_SCHEMA, dict(settings or {}), where="settings", error=InvalidSettings
    )
    merged["ruleset"] = validate(
        ruleset.settings_schema,
        merged.get("ruleset") or {},
        where="settings.ruleset",
        error=InvalidSettings,
    )
    return merged
