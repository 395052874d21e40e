"""What each viewer may see: actors, events and snapshots, redacted by role.

Two views exist. The GM sees everything. Everyone else — players and
observers — sees actors that some player controls in full, and actors no
player controls (NPCs) only through the ruleset's
:meth:`~rollbridge.contract.Ruleset.player_view`; GM-only events reach them
as a bare ``{"kind": "hidden"}`` placeholder that keeps the seq sequence
gap-free. Because the non-GM view is the same for every player, a server
computes at most two views of each event.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rollbridge.contract import Actor, Ruleset
from rollbridge.engine.model import Event

__all__ = ["actor_view", "event_view", "record_actor"]

JSON = dict[str, Any]


def record_actor(record: Mapping[str, Any]) -> Actor:
    """The ruleset's view of a stored actor record."""
    return Actor(record["id"], record["name"], record["sheet"], record["state"])


def actor_view(
    record: Mapping[str, Any], *, gm: bool, ruleset: Ruleset, settings: Mapping[str, Any]
) -> JSON:
    """An actor record as a viewer sees it, with its common damage state.

    :param record: the stored record (id, name, sheet, state, controllers).
    :param gm: whether the viewer is the GM.
    :param ruleset: the table's ruleset.
    :param settings: the ruleset's table settings.
    """
    actor = record_actor(record)
    if gm or record.get("controllers"):
        return {
            "id": record["id"],
            "name": record["name"],
            "sheet": record["sheet"],
            "state": record["state"],
            "controllers": list(record.get("controllers") or ()),
            "common": ruleset.common_state(actor).to_dict(),
        }
    view = ruleset.player_view(actor, settings)
    return {
        "id": record["id"],
        "name": record["name"],
        "sheet": view.sheet,
        "state": view.state,
        "controllers": [],
        "common": view.common.to_dict(),
        "limited": True,
    }


def event_view(
    event: Event,
    *,
    gm: bool,
    ruleset: Ruleset,
    settings: Mapping[str, Any],
    npcs: frozenset[str] = frozenset(),
) -> JSON:
    """An event as a viewer receives it: its place, what happened, and the
    new view of every actor it touched (``{"id": ..., "removed": true}`` for
    one removed). ``before`` records stay in the log; they never go out.

    For players, a resolution that involved NPCs (``npcs``: the ids of actors
    no player controls) passes through the ruleset's ``player_resolution``."""
    if event.gm_only and not gm:
        return {"kind": "hidden", "epoch": event.epoch, "seq": event.seq}
    actors: list[JSON] = []
    for change in event.changes:
        after = change["after"]
        if after is None:
            actors.append({"id": change["actor"], "removed": True})
        else:
            actors.append(actor_view(after, gm=gm, ruleset=ruleset, settings=settings))
    data = event.data
    if not gm and event.kind == "adjusted" and data.get("actor") in npcs:
        data = {"actor": data["actor"]}  # how many boxes the GM added is the GM's business
    if not gm and event.kind == "resolution":
        hidden = frozenset(
            change["actor"]
            for change in event.changes
            if change["after"] is not None and not change["after"].get("controllers")
        ) | frozenset(
            actor_id
            for actor_id in (data.get("actor"), *data.get("targets", ()))
            if actor_id is not None and actor_id in npcs
        )
        if hidden:
            data = ruleset.player_resolution(data, hidden, settings)
    if not gm and data.get("hooks") and npcs:
        hooks = [_hook_view(entry, ruleset, settings, npcs) for entry in data["hooks"]]
        data = {**data, "hooks": hooks}
    view: JSON = {
        "kind": event.kind,
        "epoch": event.epoch,
        "seq": event.seq,
        "data": data,
        "actors": actors,
        "request": event.request,
        "by": event.by,
    }
    if event.table_change:
        after_table = dict(event.table_change["after"])
        if not gm:
            after_table.pop("pending", None)
        if after_table:
            view["table"] = after_table
    if gm and event.gm_only:
        view["gm_only"] = True
    return view


def _hook_view(
    entry: JSON, ruleset: Ruleset, settings: Mapping[str, Any], npcs: frozenset[str]
) -> JSON:
    """A turn hook's result as players see it: passed through ``player_resolution``
    with the hook's name as the action (``on_round_start``…) and the NPCs hidden."""
    shown = ruleset.player_resolution({"action": entry["hook"], **entry}, npcs, settings)
    return {k: v for k, v in shown.items() if k != "action" or "action" in entry}
