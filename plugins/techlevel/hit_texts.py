"""What a hit says: its narration and the texts of its steps (TL-3, TL-4).

Each builder returns a :class:`~rollbridge.text.Text` of :mod:`.messages`; where
it names a detail of the target (``owner``) — an item's name, the TL factor, an
immunity, the boxes lost — the argument is marked private (:mod:`.details`)
with the wording players read instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from rollbridge.text import Text

from . import messages as m
from .details import detail_or
from .tl import TlFactor

__all__ = ["MENTAL_WHY", "hidden_tl_step", "narration", "tl_step", "why_struck"]


def why_struck(layer: str, skipped: list[dict[str, Any]]) -> tuple[Text, str]:
    """TL-3: the step saying why ``layer`` was struck (each outer layer absent or
    destroyed), and the reason in English (the outcome's ``why``)."""
    return _why(layer, tuple((s["layer"], s["reason"]) for s in skipped))


@cache
def _why(layer: str, skipped: tuple[tuple[str, str], ...]) -> tuple[Text, str]:
    # a few dozen layer and reason combinations: each text is built and rendered once
    if not skipped:
        why = m.OUTERMOST(layer=m.LAYER[layer])
    else:
        passed = [m.PASSED[outer, reason] for outer, reason in skipped]
        why = m.OUTERMOST_PASSING(layer=m.LAYER[layer], passed=passed)
    return m.LAYER_HIT(why=why), why.render()


#: The step and the outcome's ``why`` of a mental hit (TL-8).
MENTAL_WHY: tuple[Text, str] = (m.LAYER_HIT(why=m.MENTAL_BYPASSES), m.MENTAL_BYPASSES.render())


def tl_step(factor: TlFactor, weapon_tl: int, layer_tl: int, roll: int, boxes: int) -> Text:
    """TL-4: how the roll became boxes."""
    step = m.TL_TIMES if factor.op == "×" else m.TL_DIVIDED
    return step(
        weapon_tl=weapon_tl, layer_tl=layer_tl, factor=str(factor), roll=roll, n=factor.n,
        boxes=boxes,
    )  # fmt: skip


def hidden_tl_step(layer: str) -> Text:
    """What players read of an NPC's TL step: that the TL and immunities are hidden."""
    return _HIDDEN_TL[layer]


_HIDDEN_TL: dict[str, Text] = {
    layer: m.MIND_IMMUNITIES_HIDDEN if layer == "mind" else m.TL_HIDDEN(layer=text)
    for layer, text in m.LAYER.items()
}


def _where(layer: str, name: str | None, section: str | None, owner: str) -> Any:
    """The layer struck: ``armour 'Plate'`` (the name is the owner's detail), with
    the vehicle's section."""
    where: Any = m.LAYER[layer]
    if name:
        where = detail_or(m.NAMED_LAYER(layer=where, quoted=repr(name)), owner, where)
    if section:
        where = m.NAMED_SECTION(name=where, section=section)
    return where


def _effect(
    outcome: Mapping[str, Any], factor: TlFactor, immune: bool, lost: int, owner: str
) -> Any:
    """What the hit did to the layer: ``/4, 1 box crossed, 2 lost`` — players of an
    NPC read only ``1 box crossed`` (no TL factor, immunity or lost boxes)."""
    crossed = m.BOXES_CROSSED(count=outcome["crossed"])
    if immune:
        said = m.IMMUNE_EFFECT(type=outcome["weapon"]["type"])
    elif lost:
        said = m.FACTOR_EFFECT_LOST(factor=str(factor), crossed=crossed, lost=lost)
    else:
        said = m.FACTOR_EFFECT(factor=str(factor), crossed=crossed)
    return detail_or(said, owner, crossed)


def narration(
    attacker: str | None,
    target: str,
    outcome: Mapping[str, Any],
    *,
    owner: str,
    name: str | None,
    factor: TlFactor,
    immune: bool,
    lost: int,
    excess: Any,
    kind: str | None,
) -> Text:
    """``Ana hits Guard: 5 on 1d6 TL2 → armour 'Kevlar vest', /2, 2 boxes crossed``.

    :param outcome: the hit's outcome, for its public values (layer, section, crossed…).
    :param owner: the target's id: ``name``, ``factor``, ``immune`` and ``lost`` —
        what the outcome marks private — are its details.
    :param excess: the text of the GSK excess carried into KSK, or None.
    :param kind: the kind of the vehicle ridden (``vehicle``, ``mount``), or None.
    """
    layer = outcome["layer"]
    where = _where(layer, name, outcome["section"], owner)
    effect = _effect(outcome, factor, immune, lost, owner)
    struck = (
        m.STRUCK(layer=where, effect=effect)
        if excess is None
        else m.STRUCK_EXCESS(layer=where, effect=effect, excess=excess)
    )
    result: list[Text] = [struck]
    if outcome["destroyed"]:
        what = m.SECTION if layer == "vehicle" else m.LAYER[layer]
        result.append(m.DESTROYED(what=what))
    if outcome["vehicle_destroyed"] and kind is not None:
        result.append(m.DESTROYED(what=m.KIND[kind]))
    if outcome["status"] != outcome["status_before"]:
        result.append(m.NOW_STATUS(target=target, status=m.STATUS[outcome["status"]]))
    weapon = outcome["weapon"]
    said = {"target": target, "roll": outcome["roll"], "dice": weapon["dice"], "tl": weapon["tl"]}
    if attacker is not None:
        return m.HITS(attacker=attacker, result=result, **said)
    return m.STRIKES(result=result, **said)
