"""What players and observers see of a resolution that involved NPCs.

``player_view`` shows players an NPC's status, wound levels and modifier;
its boxes (the monitors and overflow, its state) only with
``show_npc_details`` and its sheet (Body, armour, Combat Pool, weapons) only
with ``show_npc_sheet``. :func:`player_resolution` keeps a resolution in
step with that: the dice stay as rolled (they are rolled in the open), but

* without ``show_npc_sheet``: an NPC's Body, armour and Combat Pool split
  (in params, outcome, dice notes and steps), the resistance TN built from
  its armour, and for an NPC attacker its skill, pool and recoil
  compensation (and the attack TN when recoil made it depend on that);
* without ``show_npc_details``: the boxes an NPC crossed, had or healed
  (``crossed``, ``defender_after`` boxes, ``removed``, ``overflow``, the pools
  refilled) — players get its status and wound levels instead.

Turn hooks' results in ``encounter.*`` events come here too, with the hook's
name as the action: ``on_round_start`` refills the pools as ``new_turn`` does
and is redacted the same way; sr2's other hooks return nothing.

The step lines rewritten here are the ones :mod:`.combat` and
:mod:`.ruleset` write; the tests drive every action through the engine.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rollbridge.plain import copy_plain

from .codes import LEVEL_NAMES
from .explain import tn_text
from .monitor import wound_level

__all__ = ["player_resolution"]

JSON = dict[str, Any]

#: Parameters that describe the defender's sheet, and the attacker's.
_DEFENDER_PARAMS = ("body", "armor", "defender_pool")
_ATTACKER_PARAMS = ("skill", "attacker_pool", "recoil_compensation")


def player_resolution(
    data: Mapping[str, Any], hidden: frozenset[str], settings: Mapping[str, Any]
) -> JSON:
    """The resolution ``data`` as players see it when ``hidden`` NPCs took part."""
    sheet = bool(settings.get("show_npc_sheet", False))
    details = bool(settings.get("show_npc_details", False))
    out = copy_plain(dict(data))
    if sheet and details:
        return out
    redact = _BY_ACTION.get(str(out.get("action")))
    if redact is not None:
        redact(out, hidden, sheet, details)
    return out


# -- attack and damage ------------------------------------------------------------


def _group(out: JSON, prefix: str) -> JSON | None:
    for group in out.get("dice") or ():
        if str(group.get("label", "")).startswith(prefix):
            return group
    return None


def _test_line(line: str, dice: int, tn: int | None) -> str:
    """``Attack: skill 6 + pool 1 = 7 dice vs TN 6: [...] -> 1 success`` without
    the split of the dice (and without the TN when ``tn`` is None)."""
    name, _, rest = line.partition(": ")
    _, _, rolled = rest.partition(" vs TN ")
    _, _, rolled = rolled.partition(": ")
    against = f" vs TN {tn}" if tn is not None else " vs a hidden TN"
    return f"{name}: {dice} dice{against}: {rolled}"


def _hide_attacker_sheet(out: JSON, steps: list[str]) -> None:
    outcome, params = out["outcome"], out.get("params") or {}
    attack = outcome.get("attack") or {}
    for key in _ATTACKER_PARAMS:
        params.pop(key, None)
    attack.pop("skill", None)
    attack.pop("pool", None)
    rounds = int(outcome.get("rounds", 1))
    tn: int | None = attack.get("tn")
    if rounds >= 2:
        # SR-7: the recoil part is rounds − the NPC's compensation.
        for key in ("tn", "tn_raw", "tn_parts"):
            attack.pop(key, None)
        tn = None
    else:
        for part in attack.get("tn_parts") or ():
            if str(part.get("part", "")).startswith("recoil"):
                part["part"] = "recoil (1 round)"
    group = _group(out, "Attack test")
    if group is not None:
        group.pop("note", None)
        if tn is None:
            group.pop("target", None)
    for index, line in enumerate(steps):
        if line.startswith("Attack TN "):
            if tn is None:
                steps[index] = "Attack TN hidden: it depends on the attacker's recoil (SR-7, SR-8)"
            else:
                parts, raw = attack["tn_parts"], attack["tn_raw"]
                steps[index] = f"Attack TN {tn_text(parts, raw, tn)} (SR-7, SR-8)"
        elif line.startswith("Attack: "):
            steps[index] = _test_line(line, int(attack.get("dice", 0)), tn)


def _hide_defender_sheet(out: JSON, steps: list[str]) -> None:
    outcome, params = out["outcome"], out.get("params") or {}
    for key in _DEFENDER_PARAMS:
        params.pop(key, None)
    resistance = outcome.get("resistance")
    if not resistance:
        return
    for key in ("body", "pool", "armor", "tn", "tn_raw"):
        resistance.pop(key, None)
    parts = resistance.get("tn_parts") or []
    for part in parts:
        if "armour" in str(part.get("part", "")):
            part["value"] = None
    group = _group(out, "Resistance test")
    if group is not None:
        group.pop("note", None)
        group.pop("target", None)
    shown = _parts_text(parts)
    for index, line in enumerate(steps):
        if line.startswith("Resistance TN "):
            steps[index] = f"Resistance TN hidden: {shown} (SR-9)"
        elif line.startswith("Resistance: "):
            steps[index] = _test_line(line, int(resistance.get("dice", 0)), None)


def _parts_text(parts: list[JSON]) -> str:
    """``power 10 - ballistic armour (hidden) + wound modifier 0`` (as explain.tn_text
    writes a TN, with the armour left out)."""
    built = []
    for index, part in enumerate(parts):
        label, value = part.get("part"), part.get("value")
        if value is None:
            built.append(f"- {label} (hidden)")
        elif index == 0:
            built.append(f"{label} {value}")
        else:
            built.append(f"+ {label} {value}" if value >= 0 else f"- {label} {-value}")
    return " ".join(built)


def _levels(after: Mapping[str, Any]) -> JSON:
    levels = {}
    for monitor in ("stun", "physical"):
        level = wound_level(int(after.get(monitor, 0)))
        levels[monitor] = None if level is None else LEVEL_NAMES[level]
    return levels


def _hide_defender_boxes(out: JSON, steps: list[str]) -> None:
    outcome = out["outcome"]
    crossed = outcome.pop("crossed", None) or {}
    after = outcome.get("defender_after")
    level = outcome.get("level")
    if after is not None:
        levels = _levels(after)
        outcome["defender_after"] = {
            "status": after.get("status"),
            "wound_modifier": after.get("wound_modifier"),
            "wound_levels": levels,
        }
        shown = ", ".join(f"{k.title()} {v}" for k, v in levels.items() if v) or "none"
        for index, line in enumerate(steps):
            if line.startswith("Boxes crossed: "):
                steps[index] = (
                    f"Wound levels now: {shown}; status {after.get('status')} (SR-12, SR-13)"
                )
    over = int(crossed.get("overflow", 0))
    if level in LEVEL_NAMES and over:
        # combat._damage_words: "Deadly, 2 overflow; Guard is dying"
        said, public = f"{LEVEL_NAMES[level]}, {over} overflow; ", f"{LEVEL_NAMES[level]}; "
        narration = str(out.get("narration", ""))
        head, found, tail = narration.rpartition(said)
        if found:
            out["narration"] = head + public + tail


def _attack(out: JSON, hidden: frozenset[str], sheet: bool, details: bool) -> None:
    outcome = out.get("outcome") or {}
    out["outcome"] = outcome
    steps = list(out.get("steps") or ())
    attacker, defender = outcome.get("attacker"), outcome.get("defender")
    if not sheet and attacker in hidden:
        _hide_attacker_sheet(out, steps)
    if not sheet and defender in hidden:
        _hide_defender_sheet(out, steps)
    if not details and defender in hidden:
        _hide_defender_boxes(out, steps)
    out["steps"] = steps


# -- bookkeeping actions ------------------------------------------------------------


def _target(out: JSON) -> str | None:
    targets = out.get("targets") or ()
    return targets[0] if targets else None


def _heal(out: JSON, hidden: frozenset[str], sheet: bool, details: bool) -> None:
    if details or _target(out) not in hidden:
        return
    outcome = out.get("outcome") or {}
    healed, which = outcome.pop("healed", None), outcome.get("monitor")
    outcome.pop("removed", None)
    said = f" heals {healed} {which} box(es): "
    narration = str(out.get("narration", ""))
    head, found, tail = narration.rpartition(said)
    if found:
        out["narration"] = f"{head} is healed ({which}): {tail}"
    out["steps"] = [f"Heal {outcome.get('asked')} {which} box(es) (SR-15)"]


def _bleed(out: JSON, hidden: frozenset[str], sheet: bool, details: bool) -> None:
    if _target(out) not in hidden:
        return
    outcome = out.get("outcome") or {}
    status = outcome.get("status")
    overflow = outcome.get("overflow")
    name, found, _ = str(out.get("narration", "")).rpartition(" bleeds: ")
    if details:
        before = int(overflow or 0) - int(outcome.get("crossed", 0))
        told = f"overflow {overflow}, "
        line = f"Bleeding (SR-13): overflow {before} -> {overflow}; status {status}"
    else:
        outcome.pop("overflow", None)
        outcome.pop("crossed", None)
        told = ""
        line = f"Bleeding (SR-13): status {status}"
    if found:
        out["narration"] = f"{name} bleeds: {told}{status}."
    out["steps"] = [line]


def _new_turn(out: JSON, hidden: frozenset[str], sheet: bool, details: bool) -> None:
    if sheet or details:
        return  # the pool refilled is the sheet's rating and the state's pool
    outcome = out.get("outcome") or {}
    pools = outcome.get("pools") or {}
    shown = {k: v for k, v in pools.items() if k not in hidden}
    outcome["pools"] = shown
    steps = out.get("steps") or []
    if steps:
        head = str(steps[0]).partition(" (SR-14): ")[0]
        listed = ", ".join(f"{k} {v}" for k, v in shown.items())
        if len(shown) < len(pools):
            listed = f"{listed}; NPCs' pools hidden" if listed else "NPCs' pools hidden"
        out["steps"] = [f"{head} (SR-14): {listed or 'no actors'}"]


_BY_ACTION: dict[str, Callable[[JSON, frozenset[str], bool, bool], None]] = {
    "attack": _attack,
    "damage": _attack,
    "heal": _heal,
    "bleed": _bleed,
    "new_turn": _new_turn,
    # Turn hooks (the engine passes their results with the hook's name as the action):
    # the round's refill is new_turn's; the other hooks return nothing in sr2.
    "on_round_start": _new_turn,
}
