"""System mappings: the common damage state onto an existing Foundry system's data.

A table that plays on an existing Foundry system (Shadowrun 5e, SWADE) can let
the module write the common state into that system's own fields, so the
system's sheets and token bars show the damage too. A mapping names, for each
track of the common state it knows, the system data path that receives the
track's ``value``, and for each condition it knows, a boolean path.

A mapping applies to an actor only when the actor's common state has every
track the mapping requires (an sr2 actor has ``physical`` and ``stun``, a
wilddie actor has ``wounds``); a limited view (an NPC seen by a player, with
no tracks) matches no mapping. The adapter computes the paths of every mapping
that applies and the module writes the one the GM chose (docs/foundry.md): with
``auto`` from the players' view of the actor, so an NPC's hidden values never
reach the system data every client receives; with a mapping chosen by hand from
the GM's view of every actor.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["MAPPINGS", "SystemMapping", "system_updates"]


@dataclass(frozen=True, slots=True)
class SystemMapping:
    """Where one Foundry system keeps the values of the common state."""

    #: The mapping's id, chosen in the module's settings (``sr5``).
    id: str
    #: The Foundry system it writes into (``shadowrun5e``).
    system: str
    #: A label for the settings menu.
    label: str
    #: Common track key → system data path receiving the track's value.
    tracks: Mapping[str, str]
    #: Common condition (as the ruleset words it) → boolean system data path.
    conditions: Mapping[str, str] = field(default_factory=dict)
    #: Track keys an actor must have for the mapping to apply.
    requires: tuple[str, ...] = ()

    def updates(self, common: Mapping[str, Any]) -> dict[str, Any] | None:
        """The ``Actor#update`` paths for this common state, or None when the
        mapping does not apply to it."""
        tracks = {t.get("key"): t for t in common.get("tracks") or () if isinstance(t, Mapping)}
        if not self.requires or not all(key in tracks for key in self.requires):
            return None
        out: dict[str, Any] = {}
        for key, path in self.tracks.items():
            if key in tracks:
                out[path] = tracks[key].get("value")
        present = {str(c).casefold() for c in common.get("conditions") or ()}
        for condition, path in self.conditions.items():
            out[path] = condition.casefold() in present
        return out

    def describe(self) -> dict[str, Any]:
        """The mapping as plain data (sent in the welcome)."""
        return {
            "id": self.id,
            "system": self.system,
            "label": self.label,
            "tracks": dict(self.tracks),
            "conditions": dict(self.conditions),
            "requires": list(self.requires),
        }


#: The built-in mappings, by id.
MAPPINGS: dict[str, SystemMapping] = {
    mapping.id: mapping
    for mapping in (
        SystemMapping(
            id="sr5",
            system="shadowrun5e",
            label="Shadowrun 5e (condition monitors and overflow)",
            tracks={
                "physical": "system.track.physical.value",
                "stun": "system.track.stun.value",
                "overflow": "system.track.physical.overflow.value",
            },
            requires=("physical", "stun"),
        ),
        SystemMapping(
            id="swade",
            system="swade",
            label="SWADE (wounds, Shaken, Incapacitated)",
            tracks={"wounds": "system.wounds.value"},
            conditions={
                "Shaken": "system.status.isShaken",
                "Incapacitated": "system.status.isIncapacitated",
            },
            requires=("wounds",),
        ),
    )
}


def system_updates(
    common: Mapping[str, Any], mappings: Mapping[str, SystemMapping] = MAPPINGS
) -> dict[str, dict[str, Any]]:
    """For each mapping that applies to ``common``, its update paths."""
    out = {}
    for mapping_id, mapping in mappings.items():
        paths = mapping.updates(common)
        if paths is not None:
            out[mapping_id] = paths
    return out
