"""Human-readable rendering of dice, resolutions and actors for the terminal."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any

__all__ = ["dice_line", "print_json", "render_actor", "render_event"]


def print_json(data: Any) -> None:
    """Print data as indented JSON on stdout."""
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, sort_keys=False) + "\n")


def _die(die: Mapping[str, Any]) -> str:
    rolls = die.get("rolls") or [die.get("value")]
    text = "+".join(str(r) for r in rolls)
    if len(rolls) > 1:
        text = f"{text}={die['value']}"
    tags = set(die.get("tags") or ())
    if "success" in tags:
        text += "*"
    if die.get("kept") is False:
        text = f"({text})"
    return text


def dice_line(group: Mapping[str, Any]) -> str:
    """One group of dice: ``attack test 6d6 vs TN 5: [6+3=9*, 5*, 2, 1] → 2 successes``."""
    head = group.get("label", "dice")
    if group.get("formula") and group["formula"] != head:
        head += f" {group['formula']}"
    if group.get("target") is not None:
        head += f" vs {group['target']}"
    dice = ", ".join(_die(d) for d in group.get("dice", ()))
    tail = ""
    if group.get("successes") is not None:
        tail = f" → {group['successes']} success{'es' if group['successes'] != 1 else ''}"
    elif group.get("total") is not None:
        tail = f" → {group['total']}"
    if group.get("note"):
        tail += f" ({group['note']})"
    return f"{head}: [{dice}]{tail}"


def render_actor(actor: Mapping[str, Any]) -> str:
    """An actor's name, status, tracks and conditions on a few lines."""
    if actor.get("removed"):
        return f"{actor['id']}: removed"
    common = actor.get("common") or {}
    lines = [f"{actor.get('name', actor['id'])} [{actor['id']}]: {common.get('status', '?')}"]
    for track in common.get("tracks", ()):
        filled = min(track["value"], track["max"])
        bar = "■" * filled + "□" * (track["max"] - filled) if track["max"] <= 40 else ""
        lines.append(f"  {track['label']}: {track['value']}/{track['max']} {bar}".rstrip())
    if common.get("conditions"):
        lines.append(f"  conditions: {', '.join(common['conditions'])}")
    if common.get("modifier_note"):
        lines.append(f"  modifier: {common['modifier_note']}")
    return "\n".join(lines)


def render_event(event: Mapping[str, Any], *, show_state: bool = False) -> str:
    """An event as a few terminal lines: what happened, the dice, who changed."""
    kind = event.get("kind")
    data = event.get("data") or {}
    head = f"#{event.get('seq')} {kind}"
    if event.get("by"):
        head += f" by {event['by']}"
    lines = [head]
    if kind == "roll":
        label = f"{data['label']}: " if data.get("label") else ""
        lines.append(f"  {label}{data.get('text', data.get('total'))}")
    if kind == "hidden":
        lines.append("  (a GM-only event)")
    for group in data.get("dice", ()):
        lines.append(f"  {dice_line(group)}")
    for step in data.get("steps", ()):
        lines.append(f"  · {step}")
    for hook in data.get("hooks", ()):
        lines.append(f"  {hook['hook']}: {hook.get('narration', '')}")
        lines.extend(f"    {dice_line(g)}" for g in hook.get("dice", ()))
    if data.get("narration"):
        lines.append(f"  ⇒ {data['narration']}")
    for actor in event.get("actors", ()):
        lines.append("  " + render_actor(actor).replace("\n", "\n  "))
        if show_state and actor.get("state") is not None:
            lines.append(f"    state: {json.dumps(actor['state'], ensure_ascii=False)}")
    return "\n".join(lines)
