"""TL-9 and TL-10: what is worn, changed by actions.

``don``, ``doff``, ``enchant``, ``dispel`` and ``destroy`` (``mount`` and
``dismount`` are in :mod:`.riding`). Every refusal raises :class:`RuleViolation` with a stable code
before anything is written, and works on a copy of the state, so a refused
action changes nothing.
"""

from __future__ import annotations

from typing import Any, NoReturn

from rollbridge.contract import ActionContext, Actor, Resolution
from rollbridge.exceptions import InvalidParams, RuleViolation
from rollbridge.text import Text

from . import messages as m
from .details import detail, detail_or, item_details
from .items import (
    check_armour_boxes,
    item_data,
    item_state,
    normalise_immune,
    settle_item,
    settle_vehicle,
)
from .layers import own_state, slot_of

__all__ = [
    "gear_resolution",
    "invalid",
    "resolve_destroy",
    "resolve_dispel",
    "resolve_doff",
    "resolve_don",
    "resolve_enchant",
]


def invalid(path: str, problem: Text) -> InvalidParams:
    """A parameter problem: ``invalid_params`` naming the field (``problem``: a text
    of :mod:`.messages`)."""
    return InvalidParams(m.INVALID(path=path, problem=problem), details={"field": path})


def _holder(state: dict[str, Any], layer: str, who: Actor) -> dict[str, Any]:
    """The dict that holds a wearable layer's item: the state or the mounted vehicle."""
    on_vehicle, _ = slot_of(layer)
    if not on_vehicle:
        return state
    vehicle = state.get("vehicle")
    if vehicle is None:
        raise RuleViolation(
            m.NOT_MOUNTED_LAYER(actor=who.name, layer=m.LAYER[layer]),
            code="not_mounted",
            details={"layer": layer},
        )
    return vehicle


def _magical(item: dict[str, Any]) -> bool:
    """TL-9: whether an item is magical and intact (it stays until destroyed or dispelled)."""
    return bool(item["magical"]) and not item["destroyed"]


def _refuse_magical(item: dict[str, Any], layer: str, doing: Text) -> None:
    """TL-9: an intact magical item stays until destroyed or dispelled (``don``,
    ``doff``: the asker's own actor, whose items it sees, so the message names it)."""
    if _magical(item):
        raise RuleViolation(
            m.MAGICAL_STAYS(doing=doing, item=repr(item["name"]), layer=m.LAYER[layer]),
            code="magical_armour_present",
            details={"layer": layer, "item": item["name"]},
        )


def _told(full: Text, owner: str, public: Text) -> Text:
    """A refusal about a layer of ``owner``, the target of ``enchant`` or ``dispel``:
    ``full`` (naming its item) to those who may see ``owner``'s details, ``public``
    (naming the layer only) to the others. Such a refusal's ``details`` name only
    the layer: details reach every asker as they are."""
    return m.LINE(line=detail_or(full, owner, public))


def _refuse_cast_onto(item: dict[str, Any], layer: str, spell: str, owner: str) -> NoReturn:
    """TL-9: no magical armour is cast onto a layer holding an item. One code,
    ``cast_onto_armour``, whether that item is magical or not, and for players who may
    not see ``owner``'s details one message: the refusal tells them no more than
    their view (which hides whether an NPC's item is magical)."""
    label, name = m.LAYER[layer], repr(item["name"])
    if _magical(item):
        full = m.MAGICAL_STAYS(doing=m.DOING_CAST(spell=repr(spell)), item=name, layer=label)
    else:
        full = m.CAST_ONTO_ARMOUR(spell=repr(spell), layer=label, item=name)
    raise RuleViolation(
        _told(full, owner, m.CAST_ONTO_WORN(spell=repr(spell), layer=label)),
        code="cast_onto_armour",
        details={"layer": layer},
    )


def _refuse_occupied(item: dict[str, Any], layer: str, new_name: str) -> None:
    """TL-9: one item per layer; no stacking, no swapping for the better."""
    wreck = m.STILL_WORN if item["destroyed"] else ""
    raise RuleViolation(
        m.OCCUPIED(new=repr(new_name), layer=m.LAYER[layer], item=repr(item["name"]), wreck=wreck),
        code="layer_occupied",
        details={"layer": layer, "item": item["name"]},
    )


def _require_item(state: dict[str, Any], layer: str, who: Actor) -> dict[str, Any]:
    item = _holder(state, layer, who).get(slot_of(layer)[1])
    if item is None:
        raise RuleViolation(
            m.WEARS_NOTHING(actor=who.name, layer=m.LAYER[layer]),
            code="layer_empty",
            details={"layer": layer},
        )
    return item


def gear_resolution(
    narration: Text,
    who: Actor,
    state: dict[str, Any],
    steps: list[Any],
    params: dict[str, Any] | None = None,
    **outcome: Any,
) -> Resolution:
    """The resolution of a gear action on ``who``'s layers (``params``: the
    parameters with ``who``'s details marked, if any are)."""
    return Resolution(
        narration=narration, outcome=outcome, states={who.id: state}, steps=steps, params=params
    )


def _caster(ctx: ActionContext) -> Any:
    """Who casts or dispels: the acting actor's name, or "A spell"."""
    return ctx.actor.name if ctx.actor is not None else m.A_SPELL


# -- don / doff ------------------------------------------------------------------


def resolve_don(ctx: ActionContext) -> Resolution:
    """TL-9: put on an item (given, or carried by name) on its empty layer."""
    who = ctx.actor
    assert who is not None
    params = ctx.params
    state = own_state(who)
    by_name, data = params.get("name"), params.get("item")
    if (by_name is None) == (data is None):
        raise invalid("params", m.ITEM_OR_NAME)
    source = "params"
    if by_name is not None:
        carried = state["carried"]
        index = next((i for i, it in enumerate(carried) if it["name"] == by_name), None)
        if index is None:
            names: Any = ", ".join(repr(it["name"]) for it in carried) or m.NOTHING
            raise RuleViolation(
                m.CARRIES_NO(actor=who.name, name=repr(by_name), names=names),
                code="unknown_item",
                details={"name": by_name},
            )
        item = carried[index]
        source = "carried"
    else:
        item = item_state(data, "params.item", invalid)
    on_vehicle = params["on"] == "vehicle"
    layer = f"vehicle_{item['kind']}" if on_vehicle else item["kind"]
    holder = _holder(state, layer, who)
    current = holder.get(item["kind"])
    if current is not None:
        _refuse_magical(current, layer, m.DOING_PUT_ON(item=repr(item["name"])))
        _refuse_occupied(current, layer, item["name"])
    if source == "carried":
        del state["carried"][index]
    holder[item["kind"]] = item
    owner, where = who.id, m.LAYER[layer]
    named = m.MAGICAL_ITEM(name=item["name"]) if item["magical"] else item["name"]
    steps = [
        m.WORN_THERE(
            layer=where,
            item=detail_or(named, owner, m.AN_ITEM),
            crossed=item["crossed"],
            boxes=item["boxes"],
            tl=detail_or(m.AND_TL(tl=item["tl"]), owner, ""),
        )
    ]
    marked = {
        **params,
        "item": item_details(params.get("item"), owner),
        "name": detail_or(by_name, owner, None) if by_name is not None else None,
    }
    return gear_resolution(
        m.PUTS_ON(actor=who.name, item=detail_or(item["name"], owner, m.AN_ITEM), layer=where),
        who,
        state,
        steps,
        marked,
        layer=layer,
        item=item_details(item_data(item), owner),
        source=source,
    )


def resolve_doff(ctx: ActionContext) -> Resolution:
    """TL-9: take an item off its layer, to carry or to drop."""
    who = ctx.actor
    assert who is not None
    layer = ctx.params["layer"]
    state = own_state(who)
    item = _require_item(state, layer, who)
    _refuse_magical(item, layer, m.DOING_TAKE_OFF(item=repr(item["name"])))
    _holder(state, layer, who)[slot_of(layer)[1]] = None
    drop = bool(ctx.params.get("drop", False))
    if not drop:
        state["carried"].append(item)
    owner, label = who.id, m.LAYER[layer]
    where = m.DROPPED if drop else m.CARRIED
    steps = [
        detail_or(
            m.TAKEN_OFF(item=item["name"], layer=label, where=where),
            owner,
            m.TAKEN_OFF_PUBLIC(layer=label, where=where),
        )
    ]
    what = detail_or(m.ITEM_ON_LAYER(name=item["name"], layer=label), owner, m.THE(what=label))
    return gear_resolution(
        m.TAKES_OFF(actor=who.name, item=what),
        who,
        state,
        steps,
        layer=layer,
        item=item_details(item_data(item), owner),
        dropped=drop,
    )


# -- magic -------------------------------------------------------------------------


def resolve_enchant(ctx: ActionContext) -> Resolution:
    """TL-9: cast a magical armour on an empty layer, or improve the worn item."""
    target = ctx.targets[0]
    params = ctx.params
    layer, mode, spell = params["layer"], params["mode"], params["spell"]
    boxes = params["boxes"]
    state = own_state(target)
    holder = _holder(state, layer, target)
    _, kind = slot_of(layer)
    check_armour_boxes(kind, boxes, "params.boxes", invalid)
    current = holder.get(kind)
    caster = _caster(ctx)
    owner, label = target.id, m.LAYER[layer]
    marked = {
        **params,
        "spell": detail(spell, owner),
        "tl": detail(params.get("tl"), owner),
        "immune": detail(params.get("immune"), owner),
    }
    magic = detail_or(spell, owner, m.MAGIC)
    if mode == "cast":
        if current is not None:
            _refuse_cast_onto(current, layer, spell, owner)
        if params.get("tl") is None:
            raise invalid("params.tl", m.CAST_NEEDS_TL)
        item = item_state(
            {
                "name": spell,
                "kind": kind,
                "boxes": boxes,
                "tl": params["tl"],
                "magical": True,
                "spell": spell,
                "immune": params.get("immune", []),
            },
            "params",
            invalid,
        )
        holder[kind] = item
        tl = detail_or(m.AND_TL_MAGICAL(tl=item["tl"]), owner, "")
        steps = [m.CAST_THERE(layer=label, spell=magic, boxes=boxes, tl=tl)]
        narration = m.CASTS(caster=caster, spell=magic, target=target.name, layer=label)
        return gear_resolution(
            narration,
            target,
            state,
            steps,
            marked,
            layer=layer,
            mode=mode,
            item=item_details(item_data(item), owner),
        )
    if current is None:
        raise RuleViolation(
            m.NOTHING_TO_IMPROVE(actor=target.name, layer=m.LAYER[layer]),
            code="layer_empty",
            details={"layer": layer},
        )
    name = repr(current["name"])
    if _magical(current):  # improving tells the caster as much: it would have worked
        full = m.MAGICAL_STAYS(
            doing=m.DOING_IMPROVE(item=name, spell=repr(spell)), item=name, layer=label
        )
        raise RuleViolation(
            _told(full, owner, m.IMPROVE_MAGICAL_PUBLIC(layer=label, spell=repr(spell))),
            code="magical_armour_present",
            details={"layer": layer},
        )
    if current["destroyed"]:
        raise RuleViolation(
            _told(
                m.CANNOT_IMPROVE_DESTROYED(item=name),
                owner,
                m.IMPROVE_DESTROYED_PUBLIC(layer=label),
            ),
            code="item_destroyed",
            details={"layer": layer},
        )
    old_boxes, old_tl = current["boxes"], current["tl"]
    current["base"] = {
        "boxes": current["boxes"],
        "tl": current["tl"],
        "immune": list(current["immune"]),
    }
    current["boxes"] = boxes
    if params.get("tl") is not None:
        current["tl"] = params["tl"]
    current["immune"] = normalise_immune([*current["immune"], *params.get("immune", [])])
    current["magical"] = True
    current["spell"] = spell
    settle_item(current)
    steps = [
        detail_or(
            m.IMPROVED(
                item=current["name"],
                spell=spell,
                old_boxes=old_boxes,
                old_tl=old_tl,
                boxes=current["boxes"],
                tl=current["tl"],
                crossed=current["crossed"],
            ),
            owner,
            m.IMPROVED_PUBLIC(layer=label, boxes=current["boxes"], crossed=current["crossed"]),
        )
    ]
    narration = m.IMPROVES(
        caster=caster,
        target=target.name,
        item=detail_or(current["name"], owner, label),
        spell=magic,
    )
    return gear_resolution(
        narration,
        target,
        state,
        steps,
        marked,
        layer=layer,
        mode=mode,
        item=item_details(item_data(current), owner),
    )


def resolve_dispel(ctx: ActionContext) -> Resolution:
    """End the magic on a layer: a cast item vanishes, an improved one reverts."""
    target = ctx.targets[0]
    layer = ctx.params["layer"]
    state = own_state(target)
    item = _require_item(state, layer, target)
    owner, label = target.id, m.LAYER[layer]
    if not item["magical"]:  # a dispel that works tells as much: the magic is gone
        raise RuleViolation(
            _told(
                m.NOT_MAGICAL(item=repr(item["name"]), layer=label),
                owner,
                m.NOT_MAGICAL_PUBLIC(layer=label),
            ),
            code="not_magical",
            details={"layer": layer},
        )
    holder = _holder(state, layer, target)
    kind = slot_of(layer)[1]
    spell = item["spell"] or item["name"]
    base = item.get("base")
    if base:
        item.update(
            boxes=base["boxes"], tl=base["tl"], immune=list(base.get("immune", [])),
            magical=False, spell=None, base=None,
        )  # fmt: skip
        settle_item(item)
        said = {"boxes": item["boxes"], "crossed": item["crossed"]}
        steps = [
            detail_or(
                m.DISPELLED_BACK(spell=spell, item=item["name"], tl=item["tl"], **said),
                owner,
                m.DISPELLED_BACK_PUBLIC(layer=label, **said),
            )
        ]
        narration = m.DISPELS_MAGIC_ON(
            caster=_caster(ctx), target=target.name, item=detail_or(item["name"], owner, label)
        )
        result = "reverted"
    else:
        holder[kind] = None
        steps = [
            detail_or(
                m.DISPELLED_EMPTY(item=item["name"], layer=label),
                owner,
                m.DISPELLED_EMPTY_PUBLIC(layer=label),
            )
        ]
        narration = m.DISPELS(
            caster=_caster(ctx),
            target=target.name,
            spell=detail_or(spell, owner, m.MAGIC),
            layer=label,
        )
        result = "removed"
    return gear_resolution(
        narration,
        target,
        state,
        steps,
        layer=layer,
        result=result,
        spell=detail(spell, owner),
        item=item_details(item_data(item), owner) if result == "reverted" else None,
    )


def resolve_destroy(ctx: ActionContext) -> Resolution:
    """Cross every box of an item, a vehicle section or a whole vehicle (GM only)."""
    target = ctx.targets[0]
    layer, section_name = ctx.params["layer"], ctx.params.get("section")
    state = own_state(target)
    owner, label = target.id, m.LAYER[layer]
    if layer == "vehicle":
        vehicle = state.get("vehicle")
        if vehicle is None:
            raise RuleViolation(
                m.NOT_MOUNTED(actor=target.name), code="not_mounted", details={"layer": layer}
            )
        sections = vehicle["sections"]
        if section_name is not None:
            sections = [s for s in sections if s["name"] == section_name]
            if not sections:
                raise invalid("params.section", m.NO_SUCH_SECTION(vehicle=repr(vehicle["name"])))
        for section in sections:
            section["crossed"] = section["boxes"]
        settle_vehicle(vehicle)
        name = vehicle["name"]
        what: Any = detail_or(name, owner, label)
        said: Any = label
        if section_name:
            what = m.NAMED_SECTION(name=what, section=section_name)
            said = m.NAMED_SECTION(name=label, section=section_name)
        gm_what = m.NAMED_SECTION(name=name, section=section_name) if section_name else name
        steps = [
            detail_or(
                m.EVERY_BOX(what=gm_what, destroyed=vehicle["destroyed"]),
                owner,
                m.EVERY_BOX_PUBLIC(what=said),
            )
        ]
    else:
        if section_name is not None:
            raise invalid("params.section", m.ONLY_VEHICLE_SECTIONS)
        item = _require_item(state, layer, target)
        item["crossed"] = item["boxes"]
        settle_item(item)
        name = item["name"]
        what = detail_or(name, owner, label)
        steps = [m.EVERY_BOX_STAYS(item=detail_or(name, owner, m.THE(what=label)))]
    return gear_resolution(
        m.IS_DESTROYED(target=target.name, what=what),
        target,
        state,
        steps,
        layer=layer,
        name=detail(name, owner),
        section=section_name,
    )
