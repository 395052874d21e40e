"""The common damage state and what players see of an NPC.

Tracks, outermost first: one per worn item and per vehicle section, then
the body's KSK and the mind's GSK. ``value`` is the crossed boxes, ``max``
the capacity. Players see the layers and their damage but not names, TLs,
magic or immunities unless the table's ``show_npc_details`` is on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rollbridge.contract import CommonState, PlayerView, Track
from rollbridge.text import Text

from . import messages as m
from .body import GSK, KSK, status_of
from .items import DEFAULT_SECTION
from .layers import item_on

__all__ = ["common_state", "player_view", "tracks_of"]


#: The labels and conditions without arguments, made once.
_TITLE = {layer: (text) for layer, text in m.LAYER_TITLE.items()}
_DEAD = m.DEAD
_UNCONSCIOUS_SHOCK = m.UNCONSCIOUS_SHOCK
_UNCONSCIOUS_MIND = m.UNCONSCIOUS_MIND
_RIDING = {kind: (text) for kind, text in m.RIDING.items()}
_RIDDEN_DESTROYED = {kind: (text) for kind, text in m.RIDDEN_DESTROYED.items()}


def _label(layer: str, name: str | None, detailed: bool) -> Text:
    base = m.LAYER_TITLE[layer]
    if detailed and name:
        return m.TRACK_NAMED(layer=base, name=name)
    return _TITLE[layer]


def tracks_of(state: Mapping[str, Any], *, detailed: bool = True) -> list[Track]:
    """The box rows of a state, outermost layer first (labels are texts)."""
    tracks: list[Track] = []
    vehicle = state.get("vehicle")
    for layer in ("vehicle_shield", "vehicle_armour"):
        item = item_on(state, layer)
        if item is not None:
            label = _label(layer, item["name"], detailed)
            tracks.append(Track(layer, label, item["crossed"], item["boxes"]))
    if vehicle is not None:
        what = m.KIND_TITLE["mount" if vehicle["kind"] == "mount" else "vehicle"]
        head = m.TRACK_VEHICLE(what=what, name=vehicle["name"]) if detailed else what
        sections = vehicle["sections"]
        alone = len(sections) == 1 and sections[0]["name"] == DEFAULT_SECTION
        for section in sections:
            # a mount of the one section its sheet did not name: "Mount Nightmare", not
            # "Mount Nightmare: main" (the default's name is no word of any language)
            label = head if alone else m.TRACK_SECTION(head=head, section=section["name"])
            tracks.append(
                Track(f"vehicle:{section['name']}", label, section["crossed"], section["boxes"])
            )
    for layer in ("shield", "armour"):
        item = item_on(state, layer)
        if item is not None:
            tracks.append(
                Track(layer, _label(layer, item["name"], detailed), item["crossed"], item["boxes"])
            )
    ksk = state["ksk"]
    tracks.append(Track("body", _TITLE["body"], ksk["lethal"] + ksk["shock"], KSK))
    tracks.append(Track("mind", _TITLE["mind"], state["gsk"], GSK))
    return tracks


def _conditions(state: Mapping[str, Any], detailed: bool) -> list[Text]:
    ksk = state["ksk"]
    out: list[Text] = []
    if ksk["lethal"] >= KSK:
        out.append(_DEAD)
    elif ksk["lethal"] + ksk["shock"] >= KSK:
        out.append(_UNCONSCIOUS_SHOCK)
    if state["gsk"] >= GSK and ksk["lethal"] < KSK:
        out.append(_UNCONSCIOUS_MIND)
    if ksk["shock"]:
        out.append(m.SHOCK(count=ksk["shock"]))
    if ksk["lethal"] and ksk["lethal"] < KSK:
        out.append(m.WOUNDED(count=ksk["lethal"]))
    vehicle = state.get("vehicle")
    if vehicle is not None:
        kind = "mount" if vehicle["kind"] == "mount" else "vehicle"
        if detailed:
            out.append(m.RIDING_NAMED(what=m.RIDING[kind], name=vehicle["name"]))
        else:
            out.append(_RIDING[kind])
        if vehicle["destroyed"]:
            out.append(_RIDDEN_DESTROYED["vehicle" if vehicle["kind"] == "vehicle" else "mount"])
    for layer in ("vehicle_shield", "vehicle_armour", "shield", "armour"):
        item = item_on(state, layer)
        if item is not None and item["destroyed"]:
            out.append(m.LAYER_DESTROYED(layer=m.LAYER_TITLE[layer]))
        elif item is not None and item["magical"] and detailed:
            out.append(m.LAYER_MAGICAL(layer=m.LAYER_TITLE[layer]))
    return out


def common_state(state: Mapping[str, Any], *, detailed: bool = True) -> CommonState:
    """The common shape of a techlevel state."""
    return CommonState(
        status=status_of(state),  # type: ignore[arg-type]
        tracks=tuple(tracks_of(state, detailed=detailed)),
        conditions=tuple(_conditions(state, detailed)),
        modifier=0,
        modifier_note="",
    )


def _public_item(item: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if item is None:
        return None
    return {"boxes": item["boxes"], "crossed": item["crossed"], "destroyed": item["destroyed"]}


def player_view(
    sheet: Mapping[str, Any], state: Mapping[str, Any], settings: Mapping[str, Any]
) -> PlayerView:
    """Players see which layers an NPC has and how damaged they are; with
    ``show_npc_details`` also names, TLs, magic and immunities (the whole
    sheet and state)."""
    if settings.get("show_npc_details", False):
        return PlayerView(common=common_state(state), sheet=dict(sheet), state=dict(state))
    vehicle = state.get("vehicle")
    public_vehicle = None
    if vehicle is not None:
        public_vehicle = {
            "kind": vehicle["kind"],
            "destroyed": vehicle["destroyed"],
            "sections": [
                {"name": s["name"], "boxes": s["boxes"], "crossed": s["crossed"]}
                for s in vehicle["sections"]
            ],
            "shield": _public_item(vehicle.get("shield")),
            "armour": _public_item(vehicle.get("armour")),
        }
    public_state = {
        "ksk": dict(state["ksk"]),
        "gsk": state["gsk"],
        "shield": _public_item(state.get("shield")),
        "armour": _public_item(state.get("armour")),
        "vehicle": public_vehicle,
    }
    return PlayerView(common=common_state(state, detailed=False), sheet=None, state=public_state)
