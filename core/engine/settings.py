"""Table settings: the core ones every table has, and the ruleset's own.

``approval``
    players' rolls and actions wait for the GM's approval (default off).
``player_dice``
    players may supply their own die results (default off: the server rolls).
``verifiable``
    the server's dice derive from seeds it commits to first and reveals later, so
    anyone can check them (default off; docs/dice.md, "Verifiable dice").
``locale``
    the language of the table's texts for clients that ask for none in their
    ``hello`` (``cs``, ``de``, ``ru``, ``en``; left out: English).
``ruleset``
    the ruleset's settings, validated by its ``settings_schema``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rollbridge.contract import Ruleset
from rollbridge.exceptions import InvalidSettings
from rollbridge.i18n import known_locales, negotiate
from rollbridge.plain import JSON
from rollbridge.schema import validate
from rollbridge.text import Messages

__all__ = ["CORE_SETTINGS_SCHEMA", "default_settings", "merge_settings"]

say = Messages("rollbridge")


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
        "verifiable": {
            "type": "boolean",
            "default": False,
            "description": "The server's dice derive from committed seeds that anyone can "
            "check once revealed (docs/dice.md, Verifiable dice).",
        },
        "locale": {
            "type": "string",
            "maxLength": 35,
            "description": "The language of texts for clients that ask for none (cs, de, ru, en).",
        },
        "ruleset": {"type": "object", "additionalProperties": True, "default": {}},
    },
}
#: A ``settings`` request's ``ruleset``: an object (its keys are the ruleset's to check).
_RULESET_PATCH: JSON = {"type": "object", "additionalProperties": True}


def merge_settings(current: Mapping[str, Any], change: Mapping[str, Any]) -> JSON:
    """The partial update ``change`` laid over the settings ``current``: its core
    settings replace theirs, its ``ruleset`` settings are merged key by key.

    :raises InvalidSettings: ``change``'s ``ruleset`` is not an object (nothing else
        is checked here: :func:`default_settings` validates the result whole).
    """
    if "ruleset" in change:
        validate(_RULESET_PATCH, change["ruleset"], where="settings.ruleset", error=InvalidSettings)
    merged = {**current, **{k: v for k, v in change.items() if k != "ruleset"}}
    merged["ruleset"] = {**current.get("ruleset", {}), **change.get("ruleset", {})}
    return merged


def default_settings(ruleset: Ruleset, settings: Mapping[str, Any] | None = None) -> JSON:
    """Validate table settings (core and the ruleset's), defaults filled in.

    :raises InvalidSettings: naming the offending setting.
    """
    given: Any = {} if settings is None else settings  # anything else but a map: refused
    merged = validate(
        CORE_SETTINGS_SCHEMA,
        dict(given) if isinstance(given, Mapping) else given,
        where="settings",
        error=InvalidSettings,
    )
    if "locale" in merged:
        chosen = negotiate(merged["locale"])
        if chosen is None:
            known = ", ".join(sorted(known_locales()))
            raise InvalidSettings(
                say("settings.locale", "settings.locale: {locale} is not a language rollbridge "
                    "speaks (known: {known})")(locale=repr(merged["locale"]), known=known),
                details={"field": "locale"},
            )  # fmt: skip
        merged["locale"] = chosen
    merged["ruleset"] = validate(
        ruleset.settings_schema,
        merged.get("ruleset") or {},
        where="settings.ruleset",
        error=InvalidSettings,
    )
    return merged
