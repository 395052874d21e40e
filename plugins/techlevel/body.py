"""The living being's boxes: 10 KSK (physical, at the body's TL) and 10 GSK
(mental, always TL 1).

KSK boxes are counted by mark: ``lethal`` and ``shock``; the rest are free.
TL-7 (Decision): lethal damage crosses free boxes first, then turns shock
boxes into lethal ones; shock damage crosses only free boxes, the rest is
lost. TL-8: mental damage crosses GSK; what GSK cannot take carries into KSK
as lethal damage, one for one (Decision).
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "GSK",
    "KSK",
    "cross_lethal",
    "cross_mental",
    "cross_shock",
    "heal_ksk",
    "status_of",
]

KSK = 10
GSK = 10


def _free(ksk: dict[str, int]) -> int:
    return KSK - ksk["lethal"] - ksk["shock"]


def cross_lethal(ksk: dict[str, int], boxes: int) -> dict[str, int]:
    """Cross ``boxes`` lethal KSK in place (TL-7); returns what happened:
    ``crossed`` (free boxes now lethal), ``converted`` (shock boxes turned
    lethal) and ``lost``."""
    boxes = max(0, boxes)
    crossed = min(boxes, _free(ksk))
    ksk["lethal"] += crossed
    converted = min(boxes - crossed, ksk["shock"])
    ksk["shock"] -= converted
    ksk["lethal"] += converted
    return {"crossed": crossed, "converted": converted, "lost": boxes - crossed - converted}


def cross_shock(ksk: dict[str, int], boxes: int) -> dict[str, int]:
    """Cross ``boxes`` shock KSK in place (TL-7): free boxes only, never lethal."""
    boxes = max(0, boxes)
    crossed = min(boxes, _free(ksk))
    ksk["shock"] += crossed
    return {"crossed": crossed, "converted": 0, "lost": boxes - crossed}


def cross_mental(state: dict[str, Any], boxes: int, carry: bool) -> dict[str, Any]:
    """Cross ``boxes`` GSK in place (TL-8). With ``carry`` the excess crosses
    KSK as lethal damage one for one; otherwise it is lost."""
    boxes = max(0, boxes)
    crossed = min(boxes, GSK - state["gsk"])
    state["gsk"] += crossed
    excess = boxes - crossed
    result: dict[str, Any] = {"crossed": crossed, "excess": excess, "body": None, "lost": 0}
    if excess and carry:
        result["body"] = cross_lethal(state["ksk"], excess)
    else:
        result["lost"] = excess
    return result


def heal_ksk(ksk: dict[str, int], boxes: int, mark: str) -> int:
    """Clear up to ``boxes`` KSK marked ``mark`` (``lethal`` or ``shock``); returns how many."""
    cleared = min(max(0, boxes), ksk[mark])
    ksk[mark] -= cleared
    return cleared


def status_of(state: dict[str, Any]) -> str:
    """``dead``: all 10 KSK lethal. ``down`` (unconscious): all KSK crossed with
    some shock, or all 10 GSK crossed. ``impaired``: any KSK or GSK crossed.
    Otherwise ``ok``. (The seed knows no dying state.)"""
    ksk = state["ksk"]
    if ksk["lethal"] >= KSK:
        return "dead"
    if ksk["lethal"] + ksk["shock"] >= KSK or state["gsk"] >= GSK:
        return "down"
    if ksk["lethal"] or ksk["shock"] or state["gsk"]:
        return "impaired"
    return "ok"
