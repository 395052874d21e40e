"""What players and observers see of a resolution that involved NPCs.

``player_view`` shows players an extra's common state and ``{wounded, out}``,
an NPC bandit's common state only, and never an NPC's sheet (stats, Steady,
Armour, Pierce) unless ``show_npc_details``. :func:`player_resolution` keeps
a resolution in step with it; the dice stay (they are rolled in the open):

* ``harm``: the hidden NPC's Armour, Steady and Pierce (from its sheet, or
  given for it in ``params.pierce``) become ``null`` in ``terms``, and the
  total they are part of is replaced by the harm table row it fell in;
* ``move``: the hidden NPC's stat becomes ``null``, and the modifier and total
  built from it are replaced by the band (miss, partial, full);
* ``harm``, ``medpack``, ``stabilise``, ``end_of_turn``: the new ``state`` of
  a hidden NPC is cut to what ``player_view`` shows (an extra's
  ``{wounded, out}``; nothing of a bandit's);
* the turn hooks (their results in ``encounter.*`` events, with the hook's name
  as the action): the BD-8 death at ``on_turn_end`` is cut like ``end_of_turn``.
  ``on_turn_start``'s report stays whole: it says only that the BD-4 choice is
  free again (the choice was shown in the harm terms) and that a dying NPC dies
  at the end of this turn unless stabilised — which follows from its public
  status and the turn order. The round hooks return nothing.

Slots, wounds and results stay: the conditions of the common state show them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rollbridge.plain import copy_plain

from .moves import BAND_TEXT
from .rolls import signed

__all__ = ["player_resolution"]

JSON = dict[str, Any]


def player_resolution(
    data: Mapping[str, Any], hidden: frozenset[str], settings: Mapping[str, Any]
) -> JSON:
    """The resolution ``data`` as players see it when ``hidden`` NPCs took part."""
    out = copy_plain(dict(data))
    if settings.get("show_npc_details", False):
        return out
    redact = _BY_ACTION.get(str(out.get("action")))
    if redact is not None:
        out["outcome"] = out.get("outcome") or {}
        redact(out, hidden)
    return out


def _public_state(state: Mapping[str, Any] | None) -> JSON | None:
    """An NPC's state as ``player_view`` shows it."""
    if not state or state.get("kind") != "extra":
        return None
    return {"wounded": state.get("wounded"), "out": state.get("out")}


def _state(out: JSON, hidden: frozenset[str], who: str) -> None:
    outcome = out["outcome"]
    if outcome.get(who) in hidden and "state" in outcome:
        outcome["state"] = _public_state(outcome["state"])


def _terms_text(terms: list[JSON]) -> str:
    """The terms after the dice as harm.resolve_harm writes them (``− 1 (Guard's
    Armour)``); a hidden one as ``− ? (Guard's Armour)``."""
    parts = []
    for term in terms:
        label, value = term["label"], term["value"]
        if value is None:
            sign = "+" if str(label).endswith("'s Pierce") else "−"
            parts.append(f" {sign} ? ({label})")
        else:
            parts.append(f" {'+' if value >= 0 else '−'} {abs(value)} ({label})")
    return "".join(parts)


def _harm(out: JSON, hidden: frozenset[str]) -> None:
    outcome, params = out["outcome"], out.get("params") or {}
    attacker_hidden = outcome.get("attacker") in hidden
    target_hidden = outcome.get("target") in hidden
    _state(out, hidden, "target")
    gm_terms = copy_plain(outcome.get("terms") or [])
    changed = False
    for term in outcome.get("terms") or ():
        label = str(term.get("label", ""))
        if (target_hidden and label.endswith(("'s Steady", "'s Armour"))) or (
            attacker_hidden and label.endswith("'s Pierce")
        ):
            term["value"] = None
            changed = True
    if attacker_hidden and params.get("pierce") is not None:
        pierce = params.pop("pierce")
        out["steps"] = [
            line.replace(f"'s Pierce {pierce} given with", "'s Pierce given with")
            for line in out.get("steps") or ()
        ]
    if not changed:
        return
    total = outcome.pop("total", None)
    row = (outcome.get("table") or {}).get("range")
    dice = outcome.get("dice") or []
    roll = sum(dice)
    faces = ", ".join(str(d) for d in dice)
    said = f": {roll} (2d6 [{faces}]){_terms_text(gm_terms[1:])} = {total} (no ±4 clamp on harm)"
    public = f": {roll} (2d6 [{faces}]){_terms_text(outcome['terms'][1:])} → {row} on the table"
    steps = []
    for line in out.get("steps") or ():
        head, found, tail = line.rpartition(said)
        steps.append(head + public + tail if found else line)
    out["steps"] = steps
    head, found, tail = str(out.get("narration", "")).rpartition(f"): {total} → ")
    if found:
        out["narration"] = f"{head}): {row} → {tail}"
    for group in out.get("dice") or ():
        group.pop("total", None)
        group["formula"] = "2d6+?"


def _move(out: JSON, hidden: frozenset[str]) -> None:
    outcome = out["outcome"]
    if out.get("actor") not in hidden or outcome.get("stat") is None:
        return
    terms = outcome.get("terms") or []
    stat_label = f"stat {outcome['stat']}"
    for term in terms:
        if term.get("label") == stat_label:
            term["value"] = None
    total = outcome.pop("total", None)
    for key in ("modifier_raw", "modifier", "clamped"):
        outcome.pop(key, None)
    band = outcome.get("band")
    result = BAND_TEXT.get(str(band), str(band)) + (
        ", 12+: the extra result" if outcome.get("extra_result") else ""
    )
    built = ", ".join(
        f"{t['label']} {'?' if t['value'] is None else signed(t['value'])}" for t in terms
    )
    steps = []
    for line in out.get("steps") or ():
        if line.startswith("modifier: "):
            line = f"modifier: {built}; the NPC's stat is hidden (the sum is clamped to ±4, BD-1)"
        elif line.startswith(f"total {outcome.get('dice_total')} ") and line.endswith("(BD-1)"):
            line = f"total: {result} (BD-1)"
        steps.append(line)
    out["steps"] = steps
    head, found, tail = str(out.get("narration", "")).rpartition(f": {total}, {result}")
    if found:
        out["narration"] = f"{head}: {result}{tail}"
    base = {"advantage": "3d6kh2", "disadvantage": "3d6kl2"}.get(str(outcome.get("dice_mode")))
    for group in out.get("dice") or ():
        group.pop("total", None)
        group["formula"] = (base or "2d6") + "+?"


def _actor_state(out: JSON, hidden: frozenset[str]) -> None:
    _state(out, hidden, "actor")


_BY_ACTION: dict[str, Callable[[JSON, frozenset[str]], None]] = {
    "harm": _harm,
    "move": _move,
    "medpack": lambda out, hidden: _state(out, hidden, "target"),
    "stabilise": lambda out, hidden: _state(out, hidden, "target"),
    "end_of_turn": _actor_state,
    # turn hooks: a state in their outcome is the actor's (BD-8's death at the turn end)
    "on_turn_start": _actor_state,
    "on_turn_end": _actor_state,
    "on_round_start": _actor_state,
    "on_round_end": _actor_state,
}
