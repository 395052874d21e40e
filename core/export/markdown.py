"""A table's log as a session report in Markdown, one event after another.

A title with the table, then what the export holds (its audience, the seqs it
spans, when it was made), then per event a heading (its seq, what it is, who
asked) and its lines: the roll with every die (:mod:`~rollbridge.export.dicetext`:
explosions visible, ``6!→4``), the narration, the explanation steps, the state
changes (each actor's status, tracks and conditions, as the audience sees them),
undo and redo, approvals, turns. Everything comes from the frames the protocol
sends the audience (:meth:`~rollbridge.export.log.SessionLog.frames`), so the
report can hold nothing the audience was not sent. Every text from the table goes
through :func:`~rollbridge.export.escape.inline`; every word of the report's own is
a catalogue message, rendered in the export's locale.

An event's heading ends with when it was executed (UTC), where it carries a
time (``at``: the driver's clock; events of older logs have none).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from rollbridge.export.dicetext import dice_text, group_text
from rollbridge.export.escape import inline
from rollbridge.export.log import SessionLog
from rollbridge.plain import JSON
from rollbridge.text import Message, Messages
from rollbridge.words import GM_ONLY, KINDS, STATUS, SUCCESSES

__all__ = ["markdown_chunks", "render_event"]

say = Messages("rollbridge")
# Translators: the report's title; {table} is the table's name.
TITLE = say("export.md.title", "Session log: {table}")
# Translators: {table} the table's id, {ruleset} and {version} its ruleset.
TABLE = say("export.md.table", "Table: {table} ({ruleset} {version})")
# Translators: {audience} is one of the three export.md.audience.* words.
SEEN_AS = say("export.md.seen_as", "Seen as: {audience}")
AUDIENCE = {
    "gm": say("export.md.audience.gm", "the GM"),
    "player": say("export.md.audience.player", "a player"),
    "observer": say("export.md.audience.observer", "an observer"),
}
# Translators: {first} and {last} are event numbers, written #12 as in the headings.
SPAN = say.plural(
    "export.md.span", "Events #{first} to #{last} ({count} event)",
    "Events #{first} to #{last} ({count} events)",
)  # fmt: skip
NO_EVENTS = say("export.md.no_events", "Events: none after #{since}")
# Translators: {time} is a UTC time in ISO 8601 (2026-12-02T10:15:00Z).
EXPORTED = say("export.md.exported", "Exported: {time}")
# Translators: {seq} is the number of the first event the export holds.
TRUNCATED = say("export.md.truncated", "Events before #{seq} have left the retained log.")
# Translators: {seq} is an event's number. A table restored from a backup (or moved to a
# new epoch after a Redis failover: rollbridge's "fence") goes on in a new epoch; its
# events before are not shown. Read by a GM: say it without the word "fence".
EARLIER = say(
    "export.md.earlier",
    "Events up to #{seq} belong to the table's history before it was restored from a "
    "backup (or went on in a new epoch after a Redis failover); an export leaves them out, "
    "and a backup taken before then holds them.",
)
# Translators: an event's heading: {seq} its number, {kind} what it is, {who} who asked.
HEADING_BY = say("export.md.heading_by", "#{seq} · {kind} · {who}")
HEADING = say("export.md.heading", "#{seq} · {kind}")
# Translators: added to the heading of a secret event in the GM's report.
SECRET = say("export.md.secret", "GM only")
# Translators: {label} names a roll; {roll} is its dice and total (3d6x [6!→4, 2, 1] = 13).
ROLL = say("export.md.roll", "Roll ({label}): {roll}")
ROLL_PLAIN = say("export.md.roll_plain", "Roll: {roll}")
# Translators: {who} is a player; said of the dice a roll used.
SUPPLIED = say("export.md.supplied", "with dice supplied by the requester")
# Translators: {pending} is an approval's id (p12), {who} whoever approved it (gm).
APPROVED = say("export.md.approved", "approved by {who} (request {pending})")
# Translators: {label} names the dice; {dice} is "2d20 [14, 3]".
DRAWN = say("export.md.drawn", "Dice drawn for {label}: {dice}")
DRAWN_PLAIN = say("export.md.drawn_plain", "Dice drawn: {dice}")
# Translators: {actor} acts on {targets}; {action} is the ruleset's word for the action.
ACTION = say("export.md.action", "{actor}: {action} against {targets}")
ACTION_ALONE = say("export.md.action_alone", "{actor}: {action}")
# Translators: an action no actor took (a success test of nobody's, a GM's trap); said
# as the report's other lines are ("Dice: …", "Narration: …").
NOBODYS_ACTION = say("export.md.action_nobody", "Action: {action} against {targets}")
NOBODYS_ACTION_ALONE = say("export.md.action_nobody_alone", "Action: {action}")
DICE = say("export.md.dice", "Dice: {dice}")
# Translators: {dice} is a label, {target} a target number.
VERSUS = say("export.md.versus", "vs {target}")
NARRATION = say("export.md.narration", "Narration: {text}")
STEPS = say("export.md.steps", "Explanation:")
CHANGES = say("export.md.changes", "State changes:")
REMOVED = say("export.md.removed", "{actor}: removed")
# Translators: {seq} is the seq of the event taken back, {kind} what it was.
UNDOES = say("export.md.undoes", "Undoes #{seq} ({kind})")
REDOES = say("export.md.redoes", "Redoes #{seq} ({kind})")
# Translators: {who} asked for {what}; {pending} is the approval's id (p12).
ASKS = say("export.md.asks", "{who} asks for approval of {what} (request {pending})")
# Translators: {who} had asked for {what}; {reason} is the GM's own words.
REJECTED = say("export.md.rejected", "Rejected: {what} of {who} (request {pending})")
REASON = say("export.md.reason", "Reason: {reason}")
# Translators: {names} lists the settings changed (approval, ruleset).
SETTINGS = say("export.md.settings", "Settings changed: {names}")
ORDER = say("export.md.order", "Order: {actors}")
# Translators: {round} and {actor}: whose turn it is now.
TURN = say("export.md.turn", "Round {round}: {actor}'s turn")
ENDED = say.plural("export.md.ended", "After {count} round", "After {count} rounds")
# Translators: {actor}'s {track} changed by {delta} (+2, -1) at the GM's hand.
ADJUSTED = say("export.md.adjusted", "{actor}: {track} {delta}")
COMMITTED = say(
    "cli.dice.committed", "verifiable dice: segment {segment} committed (SHA-256 {digest}…)"
)
REVEALED = say("cli.dice.revealed", "verifiable dice: segment {segment} revealed (seed {seed}…)")
ABANDONED = say(
    "cli.dice.abandoned",
    "verifiable dice: segment {segment} abandoned (the server lost its dice key: its dice "
    "cannot be checked)",
)

Names = dict[str, str]


def markdown_chunks(
    log: SessionLog,
    audience: str,
    locale: str = "en",
    *,
    now: datetime | None = None,
) -> Iterator[str]:
    """The report, a piece at a time (the head, then one piece per event): write
    each as it comes, never the whole report at once.

    :raises InternalError: if the ruleset fails to show an event.
    """
    names = log.actor_names(audience, locale)
    actions = log.action_labels(locale)
    yield _head(log, audience, locale, now or datetime.now(UTC))
    for frame in log.frames(audience, locale):
        event = json.loads(frame)
        for actor in event.get("actors") or ():
            if "name" in actor:
                names[actor["id"]] = actor["name"]
        yield render_event(event, names, locale, actions)


def _head(log: SessionLog, audience: str, locale: str, now: datetime) -> str:
    info = log.table.info
    r = _renderer(locale)
    lines = [f"# {r(TITLE, table=inline(info.name))}", ""]
    lines.append(
        "- " + r(TABLE, table=inline(info.id), ruleset=inline(info.ruleset),
                 version=inline(info.ruleset_version))
    )  # fmt: skip
    lines.append("- " + r(SEEN_AS, audience=r(AUDIENCE[audience])))
    if log.events:
        first, last = log.events[0].seq, log.events[-1].seq
        lines.append("- " + r(SPAN, first=first, last=last, count=len(log.events)))
    else:
        lines.append("- " + r(NO_EVENTS, since=log.since))
    lines.append("- " + r(EXPORTED, time=_stamp(now)))
    if log.earlier:
        lines += ["", r(EARLIER, seq=log.earlier)]
    elif log.truncated and log.events:
        lines += ["", r(TRUNCATED, seq=log.events[0].seq)]
    return "\n".join(lines) + "\n"


def _stamp(moment: datetime) -> str:
    """A time as the report shows it: ISO 8601 in UTC, to the second."""
    return moment.astimezone(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _renderer(locale: str) -> Callable[..., str]:
    def render(message: Message, **args: Any) -> str:
        return message(**args).render(locale)

    return render


def render_event(
    event: Mapping[str, Any],
    names: Names,
    locale: str = "en",
    actions: Mapping[str, str] | None = None,
) -> str:
    """One event (a frame the protocol sent) as a section of the report; ``actions``:
    the ruleset's words for its actions, by id (else an action is named by its id)."""
    r = _renderer(locale)
    kind = str(event.get("kind"))
    data: JSON = event.get("data") or {}
    if actions:
        data = _labelled(kind, data, actions)
    word = KINDS.get(kind)
    named = r(word) if word is not None else inline(kind)
    if event.get("by"):
        heading = r(HEADING_BY, seq=event.get("seq"), kind=named, who=inline(event["by"]))
    else:
        heading = r(HEADING, seq=event.get("seq"), kind=named)
    if event.get("gm_only"):
        heading += f" · {r(SECRET)}"
    at = event.get("at")
    if at.__class__ in (int, float) and 0 <= at < 253402300800:  # up to the year 9999
        heading += f" · {_stamp(datetime.fromtimestamp(at, UTC))}"
    lines = ["", f"## {heading}", ""]
    body = _BODIES.get(kind)
    if kind == "encounter.started":  # its order is the table's, after the event
        encounter = (event.get("table_after") or {}).get("encounter") or {}
        data = {**data, "order": encounter.get("order") or ()}
    if body is not None:
        lines += [f"- {line}" for line in body(data, names, r)]
    if kind == "hidden":
        lines.append(f"- *{r(GM_ONLY)}*")
    lines += _resolution_lines(data, names, r)
    changes = [_actor_line(a, names, r) for a in event.get("actors") or ()]
    if changes:
        lines.append(f"- {r(CHANGES)}")
        lines += [f"  - {line}" for line in changes]
    return "\n".join(lines) + "\n"


def _labelled(kind: str, data: JSON, actions: Mapping[str, str]) -> JSON:
    """``data`` with the action a resolution ran, or an approval asks for, named by
    the ruleset's word for it (a copy; an unknown action keeps its id)."""
    if kind == "resolution" and isinstance(data.get("action"), str):
        return {**data, "action": actions.get(data["action"], data["action"])}
    request = data.get("request")
    fields = request.get("fields") if isinstance(request, Mapping) else None
    if kind == "approval.requested" and isinstance(fields, Mapping):
        action = fields.get("action")
        if isinstance(action, str) and action in actions:
            fields = {**fields, "action": actions[action]}
            return {**data, "request": {**request, "fields": fields}}
    return data


def _name(actor_id: Any, names: Names) -> str:
    return inline(names.get(actor_id, actor_id) if isinstance(actor_id, str) else str(actor_id))


def _roll_text(roll: Mapping[str, Any]) -> str:
    """``3d6x [6!→4, 2, 1] + 2 = 15``: each term, its dice written out."""
    groups = roll.get("groups") or []
    parts: list[str] = []
    for term in roll.get("terms") or []:
        kind = term.get("type")
        if kind == "dice":
            index = term.get("group")
            dice = groups[index]["dice"] if isinstance(index, int) and index < len(groups) else []
            parts.append(f"{inline(term.get('formula', ''))} {dice_text(dice)}")
        elif kind == "operator":
            parts.append(inline(term.get("op", "")))
        elif "value" in term:
            parts.append(inline(str(term["value"])))
        else:
            parts.append(inline(str(term.get("formula", term.get("text", "")))))
    if not parts:
        parts = [inline(str(roll.get("formula", "")))]
    return f"{' '.join(parts)} = {inline(str(roll.get('total')))}"


Lines = list[str]
Render = Callable[..., str]


def _roll(data: JSON, names: Names, r: Render) -> Lines:
    roll = data.get("roll")
    text = _roll_text(roll) if isinstance(roll, Mapping) else inline(str(data.get("text", "")))
    label = data.get("label")
    line = r(ROLL, label=inline(label), roll=text) if label else r(ROLL_PLAIN, roll=text)
    if data.get("actor"):
        line = f"{_name(data['actor'], names)}: {line}"
    lines = [line]
    if data.get("supplied"):
        lines.append(r(SUPPLIED))
    if data.get("approved"):
        lines.append(
            r(APPROVED, who=inline(data.get("approved_by", "")), pending=inline(data["approved"]))
        )
    return lines


def _drawn(data: JSON, names: Names, r: Render) -> Lines:
    results = ", ".join(inline(str(v)) for v in data.get("results") or ())
    dice = f"{data.get('number')}d{data.get('faces')} [{results}]"
    label = data.get("label")
    line = r(DRAWN, label=inline(label), dice=dice) if label else r(DRAWN_PLAIN, dice=dice)
    if data.get("actor"):
        line = f"{_name(data['actor'], names)}: {line}"
    return [line]


def _resolution(data: JSON, names: Names, r: Render) -> Lines:
    action = inline(str(data.get("action", "")))
    targets = ", ".join(_name(t, names) for t in data.get("targets") or ())
    if not data.get("actor") and targets:  # no actor: no dash for one ("—: Success test")
        line = r(NOBODYS_ACTION, action=action, targets=targets)
    elif not data.get("actor"):
        line = r(NOBODYS_ACTION_ALONE, action=action)
    elif targets:
        line = r(ACTION, actor=_name(data["actor"], names), action=action, targets=targets)
    else:
        line = r(ACTION_ALONE, actor=_name(data["actor"], names), action=action)
    lines = [line]
    if data.get("approved"):
        lines.append(
            r(APPROVED, who=inline(data.get("approved_by", "")), pending=inline(data["approved"]))
        )
    return lines


def _undo(data: JSON, names: Names, r: Render) -> Lines:
    kind = KINDS.get(str(data.get("kind")))
    what = r(kind) if kind is not None else inline(str(data.get("kind", "")))
    return [r(UNDOES, seq=data.get("undoes"), kind=what)]


def _redo(data: JSON, names: Names, r: Render) -> Lines:
    kind = KINDS.get(str(data.get("kind")))
    what = r(kind) if kind is not None else inline(str(data.get("kind", "")))
    return [r(REDOES, seq=data.get("redoes"), kind=what)]


def _asked_for(request: Mapping[str, Any], names: Names) -> str:
    fields = request.get("fields") or {}
    what = inline(str(request.get("type", "")))
    if fields.get("formula"):
        what += f" {inline(fields['formula'])}"
    if fields.get("action"):
        what += f" {inline(fields['action'])}"
    if fields.get("actor"):
        what += f" ({_name(fields['actor'], names)})"
    return what


def _requested(data: JSON, names: Names, r: Render) -> Lines:
    request = data.get("request") or {}
    who = request.get("who") or {}
    label = who.get("name") or who.get("role") or ""
    return [r(ASKS, who=inline(label), what=_asked_for(request, names),
              pending=inline(data.get("pending", "")))]  # fmt: skip


def _rejected(data: JSON, names: Names, r: Render) -> Lines:
    who = inline(data.get("requested_by", ""))
    lines = [r(REJECTED, what=inline(data.get("type", "")), who=who,
               pending=inline(data.get("pending", "")))]  # fmt: skip
    if data.get("reason"):
        lines.append(r(REASON, reason=inline(data["reason"])))
    return lines


def _settings(data: JSON, names: Names, r: Render) -> Lines:
    changed = data.get("changed") or ()
    return [r(SETTINGS, names=", ".join(inline(str(c)) for c in changed))] if changed else []


def _started(data: JSON, names: Names, r: Render) -> Lines:
    order = data.get("order") or ()
    return [r(ORDER, actors=", ".join(_name(a, names) for a in order))] if order else []


def _turn(data: JSON, names: Names, r: Render) -> Lines:
    if data.get("actor") is None:
        return []
    return [r(TURN, round=data.get("round"), actor=_name(data["actor"], names))]


def _reordered(data: JSON, names: Names, r: Render) -> Lines:
    return _started(data, names, r) + _turn(data, names, r)


def _ended(data: JSON, names: Names, r: Render) -> Lines:
    return [r(ENDED, count=data["rounds"])] if isinstance(data.get("rounds"), int) else []


def _adjusted(data: JSON, names: Names, r: Render) -> Lines:
    if "track" not in data:  # players are not told how much the GM changed an NPC
        return []
    delta = data.get("delta")
    shown = f"{delta:+d}" if isinstance(delta, int) else inline(str(delta))
    return [r(ADJUSTED, actor=_name(data.get("actor"), names), track=inline(data["track"]),
              delta=shown)]  # fmt: skip


def _committed(data: JSON, names: Names, r: Render) -> Lines:
    digest = inline(str(data.get("commitment", ""))[:16])
    return [r(COMMITTED, segment=data.get("segment"), digest=digest)]


def _revealed(data: JSON, names: Names, r: Render) -> Lines:
    return [r(REVEALED, segment=data.get("segment"), seed=inline(str(data.get("seed", ""))[:16]))]


def _abandoned(data: JSON, names: Names, r: Render) -> Lines:
    return [r(ABANDONED, segment=data.get("segment"))]


_BODIES: dict[str, Callable[[JSON, Names, Render], Lines]] = {
    "roll": _roll,
    "dice.drawn": _drawn,
    "resolution": _resolution,
    "undo": _undo,
    "redo": _redo,
    "approval.requested": _requested,
    "approval.rejected": _rejected,
    "settings": _settings,
    "encounter.started": _started,
    "encounter.turn": _turn,
    "encounter.reordered": _reordered,
    "encounter.ended": _ended,
    "adjusted": _adjusted,
    "dice.committed": _committed,
    "dice.revealed": _revealed,
    "dice.abandoned": _abandoned,
}


def _resolution_lines(data: JSON, names: Names, r: Render) -> Lines:
    """The dice, narration and steps of a resolution, and of each hook a turn ran."""
    lines: Lines = []
    parts: list[Mapping[str, Any]] = [data]
    parts += [h for h in data.get("hooks") or () if isinstance(h, Mapping)]
    for part in parts:
        for group in part.get("dice") or ():
            if isinstance(group, Mapping) and "dice" in group:
                lines.append("- " + r(DICE, dice=_group(group, r)))
        if part.get("narration"):
            lines.append("- " + r(NARRATION, text=inline(part["narration"])))
        steps = [s for s in part.get("steps") or () if isinstance(s, str)]
        if steps:
            lines.append(f"- {r(STEPS)}")
            lines += [f"  {n}. {inline(step)}" for n, step in enumerate(steps, 1)]
    return lines


def _group(group: Mapping[str, Any], r: Render) -> str:
    target = group.get("target")
    successes = group.get("successes")
    return group_text(
        group,
        versus=r(VERSUS, target=inline(str(target))) if target is not None else "",
        successes=r(SUCCESSES, count=successes) if isinstance(successes, int) else "",
    )


def _actor_line(actor: Mapping[str, Any], names: Names, r: Render) -> str:
    """``Guard A: impaired — Physical 2/10, Stun 0/10; Physical: Light; +1 TN``."""
    if actor.get("removed"):
        return r(REMOVED, actor=_name(actor.get("id"), names))
    common = actor.get("common") or {}
    status = STATUS.get(str(common.get("status")))
    parts = [r(status) if status is not None else inline(str(common.get("status", "")))]
    tracks = _tracks(common.get("tracks") or ())
    if tracks:
        parts.append(tracks)
    conditions = [inline(str(c)) for c in common.get("conditions") or ()]
    line = f"{inline(actor.get('name', actor.get('id', '')))}: {' — '.join(parts)}"
    if conditions:
        line += "; " + ", ".join(conditions)
    if common.get("modifier_note"):
        line += f"; {inline(common['modifier_note'])}"
    return line


def _tracks(tracks: Sequence[Mapping[str, Any]]) -> str:
    return ", ".join(
        f"{inline(str(t.get('label', t.get('key', ''))))} {t.get('value')}/{t.get('max')}"
        for t in tracks
    )
