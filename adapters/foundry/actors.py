"""Each touched actor's new state, shaped for Foundry.

Every actor view the core sends (in events, the welcome's table and ``state``
replies) gets a ``foundry`` field:

.. code-block:: json

    {"flags": {"rollbridge": {"actorId": "guard", "name": "Guard", "table": "t-1",
                              "epoch": 1, "seq": 12, "limited": false,
                              "common": {"status": "impaired", "tracks": [...], ...}}},
     "systems": {"sr5": {"system.track.physical.value": 6, "...": 0}}}

``flags`` replaces the Foundry actor's flags.rollbridge; ``systems`` holds,
for every system mapping that applies to the actor (mappings.py), the update
paths of that system — the module writes the one its GM chose. Foundry hands
every actor to every client, so the GM's client writes the flags (and, unless the
GM chose a mapping by hand, the system paths) from the actor's view in the
``players`` copy of its event (adapter.py, ``public_view``), never from the GM's
view of an NPC (docs/foundry.md, "What every client may read of an actor"). A removed actor
is ``{"flags": {"rollbridge": {"actorId": ..., "removed": true}}, "systems": {}}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rollbridge.plain import JSON

from .mappings import system_updates

__all__ = ["actor_payload", "with_foundry"]


def actor_payload(actor: Mapping[str, Any], context: Mapping[str, Any] | None = None) -> JSON:
    """The ``foundry`` field of one actor view; ``context`` adds ``table``, ``epoch``
    and ``seq`` (the event or welcome that produced it) when known: a seq alone says
    nothing of its order against another epoch's (docs/foundry.md, "The panels")."""
    flags: JSON = {"actorId": actor.get("id")}
    for key in ("table", "epoch", "seq"):
        if context and context.get(key) is not None:
            flags[key] = context[key]
    if actor.get("removed"):
        flags["removed"] = True
        return {"flags": {"rollbridge": flags}, "systems": {}}
    common = actor.get("common")
    if not isinstance(common, Mapping):
        common = {}
    flags["name"] = actor.get("name")
    flags["limited"] = bool(actor.get("limited", False))
    flags["common"] = dict(common)
    return {"flags": {"rollbridge": flags}, "systems": system_updates(common)}


def with_foundry(actor: Any, context: Mapping[str, Any] | None = None) -> Any:
    """A copy of an actor view with its ``foundry`` field (other values unchanged)."""
    if not isinstance(actor, Mapping) or "id" not in actor:
        return actor
    return {**actor, "foundry": actor_payload(actor, context)}
