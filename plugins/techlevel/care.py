"""Mending: ``repair`` (object layers), ``heal`` (KSK and GSK), ``recover``
(shock, TL-7) and the GM's direct ``adjust`` of a common track."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rollbridge.contract import ActionContext, Resolution
from rollbridge.exceptions import InvalidParams, RuleViolation

from .body import GSK, KSK, cross_lethal, heal_ksk, status_of
from .items import settle_item, settle_vehicle
from .layers import LAYER_LABELS, item_on, thaw
from .view import tracks_of

__all__ = ["adjust_state", "resolve_heal", "resolve_recover", "resolve_repair"]

ALL = 10_000


def _amount(boxes: int | None) -> int:
    return ALL if boxes is None else boxes


def _result(narration: str, actor_id: str, state: dict[str, Any], steps: list[str], **out: Any):
    out["status"] = status_of(state)
    return Resolution(narration=narration, outcome=out, states={actor_id: state}, steps=steps)


def _mend_sections(vehicle: dict[str, Any], section: str | None, amount: int) -> int:
    sections = vehicle["sections"]
    if section is not None:
        sections = [s for s in sections if s["name"] == section]
        if not sections:
            raise InvalidParams(
                f"params.section: {vehicle['name']!r} has no section {section!r}",
                details={"field": "params.section"},
            )
    mended = 0
    for s in sections:
        take = min(amount - mended, s["crossed"])
        s["crossed"] -= take
        mended += take
    settle_vehicle(vehicle)
    return mended


def resolve_repair(ctx: ActionContext) -> Resolution:
    target = ctx.targets[0]
    layer, section = ctx.params["layer"], ctx.params.get("section")
    amount = _amount(ctx.params.get("boxes"))
    state = thaw(target.state)
    if layer == "vehicle":
        vehicle = state.get("vehicle")
        if vehicle is None:
            raise RuleViolation(f"{target.name} is not mounted", code="not_mounted")
        mended = _mend_sections(vehicle, section, amount)
        name = vehicle["name"]
    else:
        if section is not None:
            raise InvalidParams(
                "params.section: only the vehicle layer has sections",
                details={"field": "params.section"},
            )
        if layer.startswith("vehicle_") and state.get("vehicle") is None:
            raise RuleViolation(f"{target.name} is not mounted", code="not_mounted")
        item = item_on(state, layer)
        if item is None:
            raise RuleViolation(
                f"{target.name} wears nothing on the {LAYER_LABELS[layer].lower()}",
                code="layer_empty",
            )
        mended = min(amount, item["crossed"])
        item["crossed"] -= mended
        settle_item(item)
        name = item["name"]
    steps = [f"{name}: {mended} box{'es' if mended != 1 else ''} repaired"]
    return _result(
        f"{target.name}'s {name}: {mended} boxes repaired",
        target.id,
        state,
        steps,
        layer=layer,
        name=name,
        section=section,
        repaired=mended,
    )


def resolve_heal(ctx: ActionContext) -> Resolution:
    target = ctx.targets[0]
    track, mark = ctx.params["track"], ctx.params["mark"]
    amount = _amount(ctx.params.get("boxes"))
    state = thaw(target.state)
    healed = {"shock": 0, "lethal": 0, "gsk": 0}
    if track == "mind":
        healed["gsk"] = min(amount, state["gsk"])
        state["gsk"] -= healed["gsk"]
        steps = [f"GSK: {healed['gsk']} cleared, now {state['gsk']} of {GSK}"]
    else:
        marks = ("shock", "lethal") if mark == "any" else (mark,)
        left = amount
        for m in marks:
            healed[m] = heal_ksk(state["ksk"], left, m)
            left -= healed[m]
        ksk = state["ksk"]
        steps = [
            f"KSK: {healed['shock']} shock and {healed['lethal']} lethal cleared, now "
            f"{ksk['lethal']} lethal + {ksk['shock']} shock of {KSK}"
        ]
    total = sum(healed.values())
    return _result(
        f"{target.name} heals {total} box{'es' if total != 1 else ''} ({track})",
        target.id,
        state,
        steps,
        track=track,
        healed=healed,
    )


def resolve_recover(ctx: ActionContext) -> Resolution:
    who = ctx.actor
    assert who is not None
    state = thaw(who.state)
    cleared = heal_ksk(state["ksk"], _amount(ctx.params.get("boxes")), "shock")
    steps = [f"{cleared} shock box{'es' if cleared != 1 else ''} cleared (TL-7)"]
    return _result(
        f"{who.name} recovers from shock: {cleared} cleared", who.id, state, steps, cleared=cleared
    )


def adjust_state(state_in: Mapping[str, Any], track: str, delta: int) -> dict[str, Any]:
    """A GM's direct damage (+) or healing (−) on a common track.

    Object tracks cross or clear boxes within capacity (excess lost). ``body``:
    damage is lethal (TL-7: free boxes, then shock turns lethal); healing
    clears shock first, then lethal. ``mind``: GSK within 0–10, no carry.
    """
    state = thaw(state_in)
    if track == "body":
        if delta >= 0:
            cross_lethal(state["ksk"], delta)
        else:
            left = -delta
            left -= heal_ksk(state["ksk"], left, "shock")
            heal_ksk(state["ksk"], left, "lethal")
        return state
    if track == "mind":
        state["gsk"] = max(0, min(GSK, state["gsk"] + delta))
        return state
    if track.startswith("vehicle:") and state.get("vehicle") is not None:
        name = track[len("vehicle:") :]
        for section in state["vehicle"]["sections"]:
            if section["name"] == name:
                section["crossed"] += delta
                settle_vehicle(state["vehicle"])
                return state
    elif track in ("vehicle_shield", "vehicle_armour", "shield", "armour"):
        item = item_on(state, track)
        if item is not None:
            item["crossed"] += delta
            settle_item(item)
            return state
    keys = ", ".join(t.key for t in tracks_of(state))
    raise RuleViolation(
        f"no track {track!r} on this actor (tracks: {keys})",
        code="unknown_track",
        details={"track": track},
    )
