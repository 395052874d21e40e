"""Human-readable rendering of dice, resolutions and actors for the terminal.

Every function takes the ``locale`` to print in; the texts of events and actors
arrive already rendered (a view is built in the reader's locale), the words
around them are the core domain's messages.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Mapping
from typing import Any

from rollbridge.exceptions import RollbridgeError
from rollbridge.text import Messages, Private, Text
from rollbridge.visible import inert_json, visible
from rollbridge.words import GM_ONLY, KINDS, STATUS, SUCCESSES

__all__ = [
    "dice_line",
    "error_words",
    "inert_text",
    "print_error",
    "print_error_json",
    "print_json",
    "render_actor",
    "render_encounter",
    "render_event",
    "render_pending",
    "utc_time",
]

say = Messages("rollbridge")
# Translators: the label of a group of dice that has none of its own.
DICE = say("cli.dice.label", "dice")
# Translators: {dice} is the dice's label and formula, {target} the target number.
VERSUS = say("cli.dice.versus", "{dice} vs {target}")
REMOVED = say("cli.actor.removed", "{actor}: removed")
CONDITIONS = say("cli.actor.conditions", "conditions: {conditions}")
# Translators: {modifier} is the ruleset's note of what the actor's state changes.
MODIFIER = say("cli.actor.modifier", "modifier: {modifier}")
# Translators: {state} is the actor's state as JSON: keep it as it is.
STATE = say("cli.actor.state", "state: {state}")
# Translators: {seq} is the event's number, {kind} what it is (one of the cli.kind.*
# words) and {who} the name of whoever asked for it.
EVENT_BY = say("cli.event.by", "#{seq} {kind} by {who}")
EVENT = say("cli.event", "#{seq} {kind}")
# Translators: under the GM's line of a secret event (a secret roll or resolution, an
# approval request): players were sent only that something happened at this number.
SECRET = say("cli.event.secret", "(secret: players see only that something happened)")
# Translators: {round} a number; {order} the actors in turn order, the one whose turn
# it is marked with ▶ (keep the ▶ as it is).
ENCOUNTER = say("cli.encounter", "encounter, round {round}: {order}")
# Translators: a request waiting for the GM's approval, as a GM's `connect` shows it:
# {what} is what was asked (roll 2d6, resolve attack (Tukan) → Guard) and {pending}
# the request's name (p12) the GM types after the commands `approve` and `reject`,
# which stay in English (they are typed as they are).
ASKS = say(
    "cli.approval.asks", "asks for {what}: approve {pending}, or reject {pending} with a reason"
)
# Translators: a request still waiting for the GM's approval, as a GM's `connect`
# shows the table when it joins (or on `state`): {pending} the request's name (p12),
# {who} the name of the join token that asked (player).
WAITING_BY = say("cli.approval.waiting", "waiting for the GM's approval: {pending}, asked by {who}")
# Translators: {segment} a number, {digest} the start of a SHA-256 in hex.
COMMITTED = say(
    "cli.dice.committed", "verifiable dice: segment {segment} committed (SHA-256 {digest}…)"
)
# Translators: {segment} a number, {seed} the start of the seed in hex.
REVEALED = say("cli.dice.revealed", "verifiable dice: segment {segment} revealed (seed {seed}…)")
#: A turn hook that ran (``data.hooks[].hook`` of an encounter event) in words; a
#: hook not named here shows as it is.
HOOKS = {
    "on_round_start": say("cli.hook.on_round_start", "start of round"),
    "on_round_end": say("cli.hook.on_round_end", "end of round"),
    "on_turn_start": say("cli.hook.on_turn_start", "start of turn"),
    "on_turn_end": say("cli.hook.on_turn_end", "end of turn"),
}


def render_pending(pending: Any, names: Mapping[str, str], locale: str = "en") -> list[str]:
    """The requests a table holds for the GM's approval (its ``pending``, the GM's
    alone: a welcome's, a ``state``'s), each as who asked and what, with the name
    ``approve`` and ``reject`` take: a GM who joins after a player asked reads them
    too, not only one connected when the request came (``names``: actor id → name)."""
    lines: list[str] = []
    if not isinstance(pending, list):
        return lines
    for entry in pending:  # {"pending": "p12", "type", "fields", "who"}
        if not isinstance(entry, Mapping):
            continue
        name = entry.get("pending", "")
        who = entry.get("who")
        asker = who.get("name") if isinstance(who, Mapping) else None
        named = visible(str(name))
        lines.append(WAITING_BY(pending=named, who=visible(str(asker or "?"))).render(locale))
        lines.append("  " + ASKS(what=_asked_for(entry, names), pending=named).render(locale))
    return lines


def _asked_for(request: Mapping[str, Any], names: Mapping[str, str]) -> str:
    """What a request waiting for approval asks, as the GM would type it again:
    ``roll 2d6``, ``resolve attack (Tukan) → Guard``, with its parameters."""
    fields = request.get("fields")
    fields = fields if isinstance(fields, Mapping) else {}
    parts = [str(request.get("type", ""))]
    for key in ("formula", "action"):
        if isinstance(fields.get(key), str):
            parts.append(fields[key])
    if isinstance(fields.get("actor"), str):
        parts.append(f"({names.get(fields['actor'], fields['actor'])})")
    targets = fields.get("targets")
    if isinstance(targets, list) and targets:
        parts.append("→ " + ", ".join(names.get(t, str(t)) if isinstance(t, str) else str(t)
                                      for t in targets))  # fmt: skip
    params = fields.get("params")
    if isinstance(params, Mapping) and params:
        try:  # a value JSON cannot write (msgpack's bytes) in Python's words
            text = json.dumps(params, ensure_ascii=False, separators=(",", ":"), default=repr)
        except (TypeError, ValueError):  # a key JSON cannot write: the whole in Python's
            text = repr(dict(params))
        parts.append(inert_json(text))
    # whatever a player sent, nothing a terminal obeys (connect shows its frames so
    # already; this holds for every caller)
    return visible(" ".join(part for part in parts if part))


def utc_time(seconds: float | None) -> str:
    """A time (seconds since the epoch) to the second in UTC: when a token was made
    (two tokens of one name, one made to replace the other in the same minute, are
    told apart by it before the old one is revoked), when a restored backup was taken;
    ``-`` for a time not kept (a join token made before schema 5); a number that is
    no time from 1970 to the year 9999 (a damaged file's) as the number it is, where
    it ended ``admin-token --list`` with a traceback."""
    if seconds is None:
        return "-" + " " * 22
    if not 0 <= seconds < _YEAR_10000:
        return f"{seconds!r:<23}"
    from datetime import UTC, datetime

    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


#: The first second of the year 10000, which no date shows.
_YEAR_10000 = 253402300800


def print_json(data: Any) -> None:
    """Print data as indented JSON on stdout, each control character in its strings
    an escape (:func:`~rollbridge.visible.inert_json`): a value from a table or a log
    (a player's label) reads back the same and does not control the terminal."""
    sys.stdout.write(inert_json(json.dumps(data, indent=2, ensure_ascii=False)) + "\n")


def print_error(error: RollbridgeError, locale: str = "en", hint: str = "") -> None:
    """A command's error as ``--json`` prints it on stdout, in place of its answer:
    ``{"code", "message", "details"?}`` as the admin API and the protocol send an
    error (:meth:`~rollbridge.exceptions.RollbridgeError.to_dict`), the message in
    ``locale`` and ``hint`` (words on what would help) after it in parentheses, as
    the text line has them."""
    data = error.to_dict(locale)
    if hint:
        data["message"] += f" ({hint})"
    print_error_json(data)


def error_words(error: RollbridgeError, locale: str = "en") -> str:
    """``error``'s message in ``locale`` for the terminal, each of its arguments (a
    path, a file's words, what the operator typed) made
    :func:`~rollbridge.visible.visible`: a control character there, a line break
    too, is shown, not obeyed, and the error stays on its line; the line breaks of
    the message itself (the list of a Redis server's unsafe settings) stay."""
    if error.text is None:  # plain words, or a list, map or exception: all data
        return visible(error.render(locale))
    return inert_text(error.text).render(locale, error.hides)


def inert_text(value: Any) -> Any:
    """``value`` (a :class:`~rollbridge.text.Text`'s argument) with every text in it
    made :func:`~rollbridge.visible.visible`; numbers and the like as they are. A
    refusal among them reads as its text (or the list it was given), its private
    values left for the reader's rendering: ``str()`` of it is the players' reading,
    which the GM would read too."""
    if isinstance(value, RollbridgeError):
        words = value.text if value.text is not None else value.held
        if isinstance(words, Text | Private | RollbridgeError | list | tuple):
            return inert_text(words)
    if isinstance(value, str | os.PathLike | BaseException):  # a Path, an OSError: as text
        return visible(str(value))
    if isinstance(value, Text):
        return Text(value.id, {name: inert_text(arg) for name, arg in value.args.items()})
    if isinstance(value, Private):
        return Private(inert_text(value.value), value.of, value.aspect, value.instead)
    if isinstance(value, list | tuple):
        return [inert_text(item) for item in value]
    return value


def print_error_json(data: Mapping[str, Any]) -> None:
    """An error's JSON, ``{"code", "message", …}``, on stdout for ``--json``: what
    :func:`print_error` prints, and what ends a command that has no error to raise
    (Ctrl-C's ``{"code": "interrupted", …}``). Nobody reading stdout is no traceback."""
    try:
        print_json(data)
        sys.stdout.flush()
    except BrokenPipeError:
        # nobody reads standard output (``… --json | head -c0``): the exit status still
        # tells the error, with no traceback; nothing more is written to the closed pipe
        # (not even when Python flushes it at exit)
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _die_face(die: Mapping[str, Any]) -> str:
    """What a die shows: rolled once, the value it counts for — which a plugin's
    ``Die(faces, (face,), value)`` gives for a die the notation does not have (a
    Fate die's -1, 0 or 1 for the d3's 1, 2 or 3: docs/plugins.md, "Dice"), and a
    min/max modifier for a clamped one — as the web view and Foundry show it;
    rolled several times (compounding), each roll and what they add to."""
    rolls = die.get("rolls") or [die.get("value")]
    if len(rolls) == 1:
        return str(die.get("value", rolls[0]))
    return "+".join(str(r) for r in rolls) + f"={die['value']}"


def _die(die: Mapping[str, Any]) -> str:
    text = _die_face(die)
    tags = set(die.get("tags") or ())
    if "success" in tags:
        text += "*"
    if die.get("kept") is False:
        text = f"({text})"
    return text


def dice_line(group: Mapping[str, Any], locale: str = "en") -> str:
    """One group of dice: ``attack test 6d6 vs TN 5: [6+3=9*, 5*, 2, 1] → 2 successes``."""
    head = group["label"] if "label" in group else DICE().render(locale)
    if group.get("formula") and group["formula"] != head:
        head += f" {group['formula']}"
    if group.get("target") is not None:
        head = VERSUS(dice=head, target=group["target"]).render(locale)
    dice = ", ".join(_die(d) for d in group.get("dice", ()))
    tail = ""
    if group.get("successes") is not None:
        tail = f" → {SUCCESSES(count=group['successes']).render(locale)}"
    elif group.get("total") is not None:
        tail = f" → {group['total']}"
    if group.get("note"):
        tail += f" ({group['note']})"
    return f"{head}: [{dice}]{tail}"


def _word(words: Mapping[str, Any], code: Any, locale: str) -> str:
    """``code`` in words (as it is when English, or when no word is known)."""
    word = words.get(code) if isinstance(code, str) and locale != "en" else None
    return word().render(locale) if word is not None else str(code)


def _hook_name(hook: Any, locale: str) -> str:
    """A turn hook's name in words, in English too (a raw ``on_turn_end`` is no
    reader's word); an unknown hook as it is."""
    word = HOOKS.get(hook) if isinstance(hook, str) else None
    return word().render(locale) if word is not None else str(hook)


def render_actor(actor: Mapping[str, Any], locale: str = "en") -> str:
    """An actor's name, status, tracks and conditions on a few lines."""
    if actor.get("removed"):
        return REMOVED(actor=actor["id"]).render(locale)
    common = actor.get("common") or {}
    status = _word(STATUS, common.get("status", "?"), locale)
    lines = [f"{actor.get('name', actor['id'])} [{actor['id']}]: {status}"]
    for track in common.get("tracks", ()):
        filled = min(track["value"], track["max"])
        bar = "■" * filled + "□" * (track["max"] - filled) if track["max"] <= 40 else ""
        lines.append(f"  {track['label']}: {track['value']}/{track['max']} {bar}".rstrip())
    if common.get("conditions"):
        lines.append("  " + CONDITIONS(conditions=list(common["conditions"])).render(locale))
    if common.get("modifier_note"):
        lines.append("  " + MODIFIER(modifier=common["modifier_note"]).render(locale))
    return "\n".join(lines)


def render_encounter(
    encounter: Mapping[str, Any], names: Mapping[str, str] | None = None, locale: str = "en"
) -> str:
    """The running encounter on one line: the round and the turn order, the actor
    whose turn it is marked ``▶`` (``names``: actor id → name; else the ids)."""
    names = names or {}
    current = encounter.get("current")
    order = ", ".join(
        ("▶ " if actor == current else "") + str(names.get(actor, actor))
        for actor in encounter.get("order", ())
    )
    return ENCOUNTER(round=encounter.get("round"), order=order).render(locale)


def render_event(
    event: Mapping[str, Any],
    *,
    show_state: bool = False,
    locale: str = "en",
    names: Mapping[str, str] | None = None,
) -> str:
    """An event as a few terminal lines: what happened, the dice, who changed; an
    encounter's start, turn or new order with the encounter as it is after it
    (``names``: actor id → name, for it)."""
    kind = event.get("kind")
    data = event.get("data") or {}
    named = _word(KINDS, kind, locale)
    if event.get("by"):
        head = EVENT_BY(seq=event.get("seq"), kind=named, who=event["by"])
    else:
        head = EVENT(seq=event.get("seq"), kind=named)
    lines = [head.render(locale)]
    if kind == "roll":
        label = f"{data['label']}: " if data.get("label") else ""
        lines.append(f"  {label}{data.get('text', data.get('total'))}")
    if kind == "hidden":
        lines.append("  " + GM_ONLY().render(locale))
    elif event.get("gm_only") is True:  # the GM's view of a secret event
        lines.append("  " + SECRET().render(locale))
    if kind == "approval.requested" and isinstance(data.get("request"), Mapping):
        what = _asked_for(data["request"], names or {})
        lines.append("  " + ASKS(what=what, pending=data.get("pending", "")).render(locale))
    if kind == "dice.drawn":
        label = f"{data['label']}: " if data.get("label") else ""
        results = ", ".join(str(v) for v in data.get("results", ()))
        lines.append(f"  {label}{data.get('number')}d{data.get('faces')} [{results}]")
    if kind == "dice.committed":
        digest = str(data.get("commitment", ""))[:16]
        lines.append("  " + COMMITTED(segment=data.get("segment"), digest=digest).render(locale))
    if kind == "dice.revealed":
        seed = str(data.get("seed", ""))[:16]
        lines.append("  " + REVEALED(segment=data.get("segment"), seed=seed).render(locale))
    for group in data.get("dice", ()):
        lines.append(f"  {dice_line(group, locale)}")
    for step in data.get("steps", ()):
        lines.append(f"  · {step}")
    for hook in data.get("hooks", ()):
        lines.append(f"  {_hook_name(hook.get('hook'), locale)}: {hook.get('narration', '')}")
        lines.extend(f"    {dice_line(g, locale)}" for g in hook.get("dice", ()))
    if data.get("narration"):
        lines.append(f"  ⇒ {data['narration']}")
    encounter = (event.get("table_after") or {}).get("encounter")
    if str(kind).startswith("encounter.") and encounter:
        lines.append("  " + render_encounter(encounter, names, locale))
    for actor in event.get("actors", ()):
        lines.append("  " + render_actor(actor, locale).replace("\n", "\n  "))
        if show_state and actor.get("state") is not None:
            state = json.dumps(actor["state"], ensure_ascii=False)
            lines.append("    " + STATE(state=state).render(locale))
    return "\n".join(lines)
