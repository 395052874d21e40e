"""What players and observers see of a resolution that involved NPCs.

``player_view`` shows players an NPC's common state and ``{shaken, wounds,
incapacitated}`` — not its sheet and not its chips — unless
``show_npc_details``. :func:`player_resolution` keeps a resolution in step
with it. The dice stay as rolled, with their faces: a die rolled in the open
shows what it is, so the trait or Strength die an NPC rolls is public. What
goes:

* a melee ``attack`` on a hidden NPC: the difficulty, its Defense (2 + half
  its Fighting die), in the outcome, the dice group, the steps and the
  narration; the same for a ``chip`` on such an attack, which names the NPC
  as its target and recomputes the Defense (the attacker's roll memory, part
  of a state everyone may see, keeps ``"against": "defense"``, not the number);
* ``damage`` to a hidden NPC: its Toughness (2 + half its Vigor die + its
  armour), its parts and the margin over it; the result (no effect, Shaken,
  wounds) stays, explained against "Toughness";
* a hidden NPC's chips: ``chips_left``, ``new_state.chips``, the chip counts of
  ``chip`` and ``award_chips``.

Turn hooks' results in ``encounter.*`` events come here too, with the hook's
name as the action (``on_turn_start``…). The only one wilddie returns is the
WD-9 recovery roll at ``on_turn_start``, which reports like ``recover``: its
NPC's chips go, and ``new_state`` keeps what ``player_view`` shows (Shaken,
wounds, incapacitated); the roll, its die and its result stay.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from rollbridge.plain import copy_plain

__all__ = ["player_resolution"]

JSON = dict[str, Any]

#: The engine's turn hooks: their results are about the hook's actor.
_HOOKS = frozenset({"on_round_start", "on_round_end", "on_turn_start", "on_turn_end"})

_DEFENSE_HOW = re.compile(r" \((2 \+ half of Fighting d\d+|2, no Fighting)\)$")


def player_resolution(
    data: Mapping[str, Any], hidden: frozenset[str], settings: Mapping[str, Any]
) -> JSON:
    """The resolution ``data`` as players see it when ``hidden`` NPCs took part."""
    out = copy_plain(dict(data))
    if settings.get("show_npc_details", False):
        return out
    outcome = out.get("outcome") or {}
    out["outcome"] = outcome
    # the actor the outcome's new_state and chips are about
    action = out.get("action")
    if action == "damage":
        about = outcome.get("target")
    elif action in _HOOKS:
        about = outcome.get("actor", out.get("actor"))
    else:
        about = outcome.get("actor")
    if about in hidden:
        outcome.pop("chips_left", None)
        if isinstance(outcome.get("new_state"), dict):
            outcome["new_state"].pop("chips", None)
    redact = _BY_ACTION.get(str(action))
    if redact is not None:
        redact(out, hidden)
    return out


def _swap(text: str, said: str, public: str) -> str:
    head, found, tail = text.rpartition(said)
    return head + public + tail if found else text


def _hide_defense(out: JSON, hidden: frozenset[str]) -> bool:
    """Take a melee roll's difficulty, the Defense of a hidden target, out of the
    outcome, the steps and the dice groups; whether there was one to take."""
    outcome = out["outcome"]
    if outcome.get("mode") != "melee" or outcome.get("target") not in hidden:
        return False
    difficulty, total = outcome.pop("difficulty", None), outcome.get("total")
    steps = []
    for line in out.get("steps") or ():
        if line.startswith(f"difficulty {difficulty} = Defense of "):
            line = "difficulty = " + _DEFENSE_HOW.sub(
                " (hidden)", line[len(f"difficulty {difficulty} = ") :]
            )
        elif line.startswith(f"{total} against difficulty {difficulty}: "):
            line = f"{total} against the target's Defense: " + line.partition(": ")[2]
        steps.append(line)
    out["steps"] = steps
    for group in out.get("dice") or ():
        group.pop("target", None)
    return True


def _attack(out: JSON, hidden: frozenset[str]) -> None:
    outcome = out["outcome"]
    difficulty, total = outcome.get("difficulty"), outcome.get("total")
    if _hide_defense(out, hidden):
        out["narration"] = _swap(
            str(out.get("narration", "")),
            f"(melee, {total} against {difficulty})",
            f"(melee, {total} against Defense)",
        )


def public_why(outcome: Mapping[str, Any]) -> str:
    """damage.damage_effect's ``why`` without the Toughness and the margin."""
    total, result = outcome.get("total"), outcome.get("result")
    if result == "none":
        return f"{total} is below Toughness"
    margin = int(outcome.get("margin", 0))
    if margin < 4:
        if result == "wound":
            return f"{total} meets Toughness and the target is already Shaken"
        return f"{total} meets Toughness without a raise"
    if outcome.get("setting") == "per_raise":
        count = int(outcome.get("wounds_inflicted", 0))
        return f"{total} beats Toughness by {count} raise{'s' if count > 1 else ''}, one wound each"
    return f"{total} beats Toughness by 4 or more"


def _damage(out: JSON, hidden: frozenset[str]) -> None:
    outcome = out["outcome"]
    if outcome.get("target") not in hidden:
        return
    tough, why = outcome.get("toughness"), outcome.get("why")
    public = public_why(outcome)
    steps = []
    for line in out.get("steps") or ():
        cut = line.find(f" {tough} = 2 + half of Vigor ")
        if line.startswith("Toughness of ") and cut > 0:
            line = line[:cut] + ": hidden (2 + half of Vigor + armour, WD-5)"
        elif line.startswith(f"WD-7: {why} → "):
            line = f"WD-7: {public} → " + line[len(f"WD-7: {why} → ") :]
        steps.append(line)
    out["steps"] = steps
    out["narration"] = _swap(
        str(out.get("narration", "")), f"'s Toughness {tough}: ", "'s Toughness: "
    )
    outcome["why"] = public
    for key in ("toughness", "toughness_parts", "margin"):
        outcome.pop(key, None)


def _chip(out: JSON, hidden: frozenset[str]) -> None:
    # a chip on a melee attack names the attack's target and recomputes its Defense
    _hide_defense(out, hidden)
    if out["outcome"].get("actor") not in hidden:
        return
    steps = list(out.get("steps") or ())
    if steps and steps[0].startswith("chip spent on roll "):
        head, found, _ = steps[0].rpartition("; ")
        if found:
            steps[0] = head
    out["steps"] = steps


def _award_chips(out: JSON, hidden: frozenset[str]) -> None:
    results = out["outcome"].get("targets") or {}
    steps = list(out.get("steps") or ())
    for index, actor_id in enumerate(out.get("targets") or ()):
        result = results.get(actor_id)
        if actor_id not in hidden or result is None:
            continue
        after, given = result.pop("chips", None), result.pop("given", None)
        if index < len(steps) and after is not None and given is not None:
            # "Guard: chips 0 → 1", perhaps with "(at most 99 are held)"
            head, found, _ = steps[index].rpartition(f": chips {after - given} → {after}")
            if found:
                steps[index] = f"{head}: chips awarded"
    out["steps"] = steps


_BY_ACTION: dict[str, Callable[[JSON, frozenset[str]], None]] = {
    "attack": _attack,
    "damage": _damage,
    "chip": _chip,
    "award_chips": _award_chips,
}
