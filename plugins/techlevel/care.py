"""Mending: ``repair`` (object layers), ``heal`` (KSK and GSK), ``recover``
(shock, TL-7) and the GM's direct ``adjust`` of a common track."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rollbridge.contract import ActionContext, Resolution
from rollbridge.exceptions import InvalidParams, RuleViolation
from rollbridge.text import Text

from . import messages as m
from .body import GSK, KSK, cross_lethal, heal_ksk, status_of
from .damage import no_section
from .details import detail, detail_or
from .items import settle_item, settle_vehicle
from .layers import item_on, own_state, thaw
from .view import tracks_of

__all__ = ["adjust_state", "resolve_heal", "resolve_recover", "resolve_repair"]

ALL = 10_000


def _amount(boxes: int | None) -> int:
    return ALL if boxes is None else boxes


def _result(
    narration: Text, actor_id: str, state: dict[str, Any], steps: list[Any], **out: Any
) -> Resolution:
    out["status"] = status_of(state)
    return Resolution(narration=narration, outcome=out, states={actor_id: state}, steps=steps)


def _mend_sections(vehicle: dict[str, Any], section: str | None, amount: int, owner: str) -> int:
    sections = vehicle["sections"]
    if section is not None:
        sections = [s for s in sections if s["name"] == section]
        if not sections:
            raise no_section(vehicle, section, owner)
    mended = 0
    for s in sections:
        take = min(amount - mended, s["crossed"])
        s["crossed"] -= take
        mended += take
    settle_vehicle(vehicle)
    return mended


def resolve_repair(ctx: ActionContext) -> Resolution:
    """Repair object boxes of one layer (GM only): the name is the target's detail."""
    target = ctx.targets[0]
    layer, section = ctx.params["layer"], ctx.params.get("section")
    amount = _amount(ctx.params.get("boxes"))
    state = own_state(target)
    if layer == "vehicle":
        vehicle = state.get("vehicle")
        if vehicle is None:
            raise RuleViolation(m.NOT_MOUNTED(actor=target.name), code="not_mounted")
        mended = _mend_sections(vehicle, section, amount, target.id)
        name = vehicle["name"]
    else:
        if section is not None:
            raise InvalidParams(
                m.INVALID(path="params.section", problem=m.ONLY_VEHICLE_SECTIONS),
                details={"field": "params.section"},
            )
        if layer.startswith("vehicle_") and state.get("vehicle") is None:
            raise RuleViolation(m.NOT_MOUNTED(actor=target.name), code="not_mounted")
        item = item_on(state, layer)
        if item is None:
            raise RuleViolation(
                m.WEARS_NOTHING(actor=target.name, layer=m.LAYER[layer]),
                code="layer_empty",
            )
        mended = min(amount, item["crossed"])
        item["crossed"] -= mended
        settle_item(item)
        name = item["name"]
    owner = target.id
    steps = [m.REPAIRED_STEP(item=detail_or(name, owner, m.LAYER_TITLE[layer]), count=mended)]
    return _result(
        m.REPAIRED(target=target.name, item=detail_or(name, owner, m.LAYER[layer]), count=mended),
        target.id,
        state,
        steps,
        layer=layer,
        name=detail(name, owner),
        section=section,
        repaired=mended,
    )


def resolve_heal(ctx: ActionContext) -> Resolution:
    """Heal KSK or GSK (GM only); the counts are public, like the tracks."""
    target = ctx.targets[0]
    track, mark = ctx.params["track"], ctx.params["mark"]
    amount = _amount(ctx.params.get("boxes"))
    state = own_state(target)
    healed = {"shock": 0, "lethal": 0, "gsk": 0}
    if track == "mind":
        healed["gsk"] = min(amount, state["gsk"])
        state["gsk"] -= healed["gsk"]
        steps = [m.GSK_CLEARED(cleared=healed["gsk"], gsk=state["gsk"], of=GSK)]
    else:
        marks = ("shock", "lethal") if mark == "any" else (mark,)
        left = amount
        for kind in marks:
            healed[kind] = heal_ksk(state["ksk"], left, kind)
            left -= healed[kind]
        ksk = state["ksk"]
        steps = [
            m.KSK_CLEARED(
                shock=healed["shock"],
                lethal=healed["lethal"],
                now_lethal=ksk["lethal"],
                now_shock=ksk["shock"],
                of=KSK,
            )
        ]
    total = sum(healed.values())
    return _result(
        m.HEALS(target=target.name, count=total, track=m.HEALED_TRACK[track]),
        target.id,
        state,
        steps,
        track=track,
        healed=healed,
    )


def resolve_recover(ctx: ActionContext) -> Resolution:
    """TL-7: clear shock boxes of the acting actor."""
    who = ctx.actor
    assert who is not None
    state = own_state(who)
    cleared = heal_ksk(state["ksk"], _amount(ctx.params.get("boxes")), "shock")
    steps = [m.SHOCK_CLEARED(count=cleared)]
    return _result(m.RECOVERS(actor=who.name, count=cleared), who.id, state, steps, cleared=cleared)


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
        m.NO_TRACK(track=repr(track), keys=keys),
        code="unknown_track",
        details={"track": track},
    )
