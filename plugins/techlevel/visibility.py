"""What players and observers see of a resolution that touched an NPC.

``player_view`` shows players which layers an NPC has and how damaged they
are, never the names, TLs, magic or immunities of its items, vehicle and
body (unless ``show_npc_details``). :func:`player_resolution` keeps a
resolution in step with it. For the NPC whose layers the action is about
(the target of ``hit``, ``enchant``, ``dispel``, ``destroy``, ``repair``,
``heal``; the actor of ``don``, ``doff``, ``mount``, ``dismount``,
``recover``):

* ``hit``: the layer struck, its section, the boxes crossed, whether it was
  destroyed and the new status stay; the item's or vehicle's name, the layer's
  TL, the TL factor, the immunity, the boxes the factor gave and the boxes
  lost (which would give the factor away) go;
* gear actions: items and vehicles are shown as players see them in
  ``player_view`` — kind, boxes and crossed boxes, sections — without names,
  TLs, magic, spells or immunities, in params as in the outcome.

The dice stay: they are rolled in the open. The narration and steps are
rewritten from the same pieces :mod:`.damage` and :mod:`.wearing` build them
from.

The engine also passes turn hooks' results here (``encounter.*`` events, with
the hook's name as the action). techlevel has no turn hooks — shock recovery
(TL-7) is the ``recover`` action — so no hook name is handled: a hook added to
the ruleset must get a redactor in ``_BY_ACTION``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rollbridge.plain import copy_plain

from .damage import hit_words
from .items import SECTION_BOXES
from .layers import LAYER_LABELS

__all__ = ["player_resolution", "public_item", "public_vehicle"]

JSON = dict[str, Any]

#: Whose layers each action changes: the first target, or the acting actor.
_ABOUT_ACTOR = ("don", "doff", "mount", "dismount", "recover")


def player_resolution(
    data: Mapping[str, Any], hidden: frozenset[str], settings: Mapping[str, Any]
) -> JSON:
    """The resolution ``data`` as players see it when ``hidden`` NPCs took part."""
    out = copy_plain(dict(data))
    if settings.get("show_npc_details", False):
        return out
    action = str(out.get("action"))
    if action in _ABOUT_ACTOR:
        owner = out.get("actor")
    else:
        targets = out.get("targets") or ()
        owner = targets[0] if targets else None
    redact = _BY_ACTION.get(action)
    if owner in hidden and redact is not None:
        out["outcome"] = out.get("outcome") or {}
        out["params"] = out.get("params") or {}
        redact(out)
    return out


def _label(layer: Any) -> str:
    return LAYER_LABELS.get(str(layer), str(layer)).lower()


def _swap(text: str, said: str, public: str) -> str:
    """``text`` with the last ``said`` replaced by ``public``."""
    head, found, tail = text.rpartition(said)
    return head + public + tail if found else text


def _plural(count: int, word: str = "box") -> str:
    return f"{count} {word}{'es' if count != 1 else ''}"


def public_item(item: Mapping[str, Any] | None) -> JSON | None:
    """An item as players see it: its kind and boxes (``player_view``'s shape)."""
    if item is None:
        return None
    return {
        "kind": item.get("kind"),
        "boxes": item.get("boxes"),
        "crossed": item.get("crossed", 0),
    }


def public_vehicle(vehicle: Mapping[str, Any] | None) -> JSON | None:
    """A vehicle as players see it: kind, sections and the public items it wears."""
    if vehicle is None:
        return None
    return {
        "kind": vehicle.get("kind", "vehicle"),
        "sections": [dict(s) for s in vehicle.get("sections") or ()],
        "worn": [public_item(item) for item in vehicle.get("worn") or ()],
    }


# -- hit ----------------------------------------------------------------------------


def _hit_steps(outcome: Mapping[str, Any], steps: list[str]) -> list[str]:
    layer, name = outcome["layer"], outcome.get("name")
    crossed, lost = outcome["crossed"], outcome["lost"]
    weapon_tl = outcome["weapon"]["tl"]
    immune_line = f"{_label(layer)} is immune to {outcome['weapon']['type']}: 0 boxes (TL-6)"
    mind = outcome.get("mind") or {}
    body = mind.get("body") or {}
    out = []
    for line in steps:
        if line == immune_line or line.startswith(f"weapon TL{weapon_tl} against TL"):
            line = (
                "immunities of the mind are hidden (TL-6)"
                if layer == "mind"
                else f"TL and immunities of the {_label(layer)} are hidden (TL-4, TL-6)"
            )
        elif mind and line.startswith(f"{mind.get('excess')} GSK excess carried into KSK"):
            line = (
                f"GSK excess carried into KSK as lethal (TL-8): {body.get('crossed')} crossed, "
                f"{body.get('converted')} shock turned lethal"
            )
        elif mind and line == f"{mind.get('excess')} GSK excess lost (table setting)":
            line = "GSK excess lost (table setting)"
        elif layer == "body":
            line = _swap(line, f", {lost} lost (TL-7)", " (TL-7)")
        elif layer == "vehicle":
            line = _swap(line, f": {lost} boxes lost (TL-10)", ": nothing crossed (TL-10)")
            line = _swap(line, f"; {lost} lost (TL-5, TL-10)", " (TL-5, TL-10)")
        elif name and line.startswith(f"{name}: {crossed} crossed"):
            line = LAYER_LABELS[layer] + line[len(name) :]
            line = _swap(line, f"; {lost} lost, nothing passes inward", "; nothing passes inward")
        out.append(line)
    return out


def _hit(out: JSON) -> None:
    outcome = out["outcome"]
    said, public = hit_words(outcome), hit_words(outcome, public=True)
    out["narration"] = _swap(str(out.get("narration", "")), f" → {said}", f" → {public}")
    out["steps"] = _hit_steps(outcome, list(out.get("steps") or ()))
    for key in ("name", "layer_tl", "factor", "immune", "boxes", "lost"):
        outcome.pop(key, None)
    for skipped in outcome.get("skipped") or ():
        skipped.pop("name", None)
    mind = outcome.get("mind")
    if mind:
        mind.pop("lost", None)
        mind.pop("excess", None)
        if mind.get("body"):
            mind["body"].pop("lost", None)


# -- gear ---------------------------------------------------------------------------


def _don(out: JSON) -> None:
    outcome, params = out["outcome"], out["params"]
    item, label = outcome.get("item") or {}, _label(outcome.get("layer"))
    out["narration"] = _swap(
        str(out.get("narration", "")),
        f" puts on {item.get('name')} ({label})",
        f" puts on an item ({label})",
    )
    out["steps"] = [
        f"the {label} was empty: an item is worn there, {item.get('crossed')} of "
        f"{item.get('boxes')} boxes crossed (TL-9)"
    ]
    outcome["item"] = public_item(item)
    if params.get("item") is not None:
        params["item"] = public_item(params["item"])
    if params.get("name") is not None:
        params["name"] = None


def _doff(out: JSON) -> None:
    outcome = out["outcome"]
    item, label = outcome.get("item") or {}, _label(outcome.get("layer"))
    out["narration"] = _swap(
        str(out.get("narration", "")),
        f" takes off {item.get('name')} ({label})",
        f" takes off the {label}",
    )
    where = "dropped" if outcome.get("dropped") else "carried"
    out["steps"] = [f"the {label} is taken off and {where}"]
    outcome["item"] = public_item(item)


def _enchant(out: JSON) -> None:
    outcome, params = out["outcome"], out["params"]
    item, label = outcome.get("item") or {}, _label(outcome.get("layer"))
    narration = str(out.get("narration", ""))
    if outcome.get("mode") == "cast":
        narration = _swap(narration, f" casts {item.get('spell')} on ", " casts magic on ")
        steps = [f"the {label} was empty: magic is cast there, {item.get('boxes')} boxes (TL-9)"]
    else:
        narration = _swap(
            narration, f"'s {item.get('name')} with {item.get('spell')}", f"'s {label} with magic"
        )
        steps = [
            f"the {label} is improved by magic: {item.get('boxes')} boxes, "
            f"{item.get('crossed')} crossed (TL-9)"
        ]
    out["narration"], out["steps"] = narration, steps
    outcome["item"] = public_item(item)
    for key in ("spell", "tl", "immune"):
        params.pop(key, None)


def _dispel(out: JSON) -> None:
    outcome = out["outcome"]
    label = _label(outcome.get("layer"))
    spell = outcome.pop("spell", None)
    item = outcome.get("item")
    narration = str(out.get("narration", ""))
    if item is None:
        narration = _swap(narration, f"'s {spell} ({label})", f"'s magic ({label})")
        steps = [f"the magic on the {label} is dispelled: the {label} is empty"]
    else:
        narration = _swap(narration, f"'s {item.get('name')}", f"'s {label}")
        steps = [
            f"the magic on the {label} is dispelled: {item.get('boxes')} boxes, "
            f"{item.get('crossed')} crossed"
        ]
        outcome["item"] = public_item(item)
    out["narration"], out["steps"] = narration, steps


def _destroy(out: JSON) -> None:
    outcome = out["outcome"]
    layer, name, section = outcome.get("layer"), outcome.pop("name", None), outcome.get("section")
    label = _label(layer)
    if layer == "vehicle":
        what = f"{name} ({section})" if section else f"{name}"
        public = f"{label} ({section})" if section else label
        steps = [f"the {public}: every box crossed"]
    else:
        what, public = f"{name}", label
        steps = [f"the {label}: every box crossed; it stays on the layer until taken off"]
    out["narration"] = _swap(
        str(out.get("narration", "")), f"'s {what} is destroyed", f"'s {public} is destroyed"
    )
    out["steps"] = steps


def _mount(out: JSON) -> None:
    outcome, params = out["outcome"], out["params"]
    vehicle = outcome.get("vehicle") or {}
    kind = vehicle.get("kind", "vehicle")
    verb, public = ("mounts", " mounts up") if kind == "mount" else ("boards", " boards a vehicle")
    out["narration"] = _swap(
        str(out.get("narration", "")), f" {verb} {vehicle.get('name')}", public
    )
    sections = vehicle.get("sections") or []
    crossed = sum(int(s.get("crossed", 0)) for s in sections)
    size = SECTION_BOXES * len(sections)
    worn = [_label(i.get("kind")) for i in vehicle.get("worn") or ()]
    out["steps"] = [
        f"a {kind}: {len(sections)} section(s), {crossed} of {size} boxes crossed"
        + (f", wearing {' and '.join(worn)}" if worn else ""),
        "its layers now lie above the rider's own (TL-2)",
    ]
    outcome["vehicle"] = public_vehicle(vehicle)
    if params.get("vehicle") is not None:
        params["vehicle"] = public_vehicle(params["vehicle"])
    if params.get("name") is not None:
        params["name"] = None


def _dismount(out: JSON) -> None:
    outcome = out["outcome"]
    vehicle = outcome.get("vehicle") or {}
    name, kind = vehicle.get("name"), vehicle.get("kind", "vehicle")
    out["narration"] = _swap(
        str(out.get("narration", "")), f" gets off {name}", f" gets off the {kind}"
    )
    steps = []
    for line in out.get("steps") or ():
        if name and line.startswith(f"{name} leaves the stack"):
            line = f"the {kind}" + line[len(name) :]
        steps.append(line)
    out["steps"] = steps
    outcome["vehicle"] = public_vehicle(vehicle)
    damage = outcome.get("damage")
    if damage:
        damage["shield"] = public_item(damage.get("shield"))
        damage["armour"] = public_item(damage.get("armour"))


def _repair(out: JSON) -> None:
    outcome = out["outcome"]
    name, label = outcome.pop("name", None), _label(outcome.get("layer"))
    mended = int(outcome.get("repaired", 0))
    out["narration"] = _swap(
        str(out.get("narration", "")),
        f"'s {name}: {mended} boxes repaired",
        f"'s {label}: {mended} boxes repaired",
    )
    out["steps"] = [
        f"{LAYER_LABELS.get(str(outcome.get('layer')), label)}: {_plural(mended)} repaired"
    ]


_BY_ACTION: dict[str, Callable[[JSON], None]] = {
    "hit": _hit,
    "don": _don,
    "doff": _doff,
    "enchant": _enchant,
    "dispel": _dispel,
    "destroy": _destroy,
    "mount": _mount,
    "dismount": _dismount,
    "repair": _repair,
}
