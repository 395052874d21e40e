"""Core replies and events → the Foundry dialect: the same messages with
``foundry`` fields added, nothing removed.

- every actor view (in events, in results' events, in the welcome's table and in
  ``state`` replies) gets ``foundry: {flags, systems}`` (actors.py);
- a ``roll`` or ``resolution`` event gets
  ``foundry: {rolls, speaker, flavor, content}``: ``rolls`` are Roll JSON for
  ``Roll.fromData`` (dice_out.py) — one for a formula roll, one per dice group
  of a resolution; ``speaker`` is ``{"actor": <rollbridge actor id>, "alias"}``;
  ``flavor`` and ``content`` (the label or action, the narration or the roll's
  text) are HTML, as a ChatMessage's are: escaped, and cut where Foundry's
  enrichers would find an inline roll or a link (:func:`chat_html`);
- an ``encounter.started`` or ``encounter.turn`` event gets
  ``foundry: {hooks: [{rolls, speaker}]}``, one entry per turn hook's result in
  ``data.hooks`` (same index): the hook's dice groups as Roll JSON, as a
  resolution's, and its actor as the speaker (None for a round hook);
- the ``players`` of a GM's event (the same event as a player in the GM's
  locale is sent it: adapter.py, ``public_view``) is translated the same way;
- the welcome gets ``foundry: {adapter, mappings}``: this adapter's version and
  the system mappings it computes (mappings.py); the actors of a GM's welcome's
  ``players`` (the NPCs as players see them) get their ``foundry`` field as the
  table's do.

Outbound runs once per client and message, on the messages the server shares
between clients: it never changes what it is given. A message it cannot
translate (a shape it does not know) goes out unchanged with
``foundry: {"error": …}`` rather than failing the broadcast.
"""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Mapping
from typing import Any

from rollbridge.plain import JSON

from .actors import with_foundry
from .dice_out import roll_from_group, roll_from_result
from .mappings import MAPPINGS

__all__ = ["chat_html", "plain", "translate"]

log = logging.getLogger("rollbridge.adapters.foundry")

#: Where Foundry's enrichers begin a pattern: ``[[1d20]]``, ``@UUID[…]{…}``.
_ENRICHED = re.compile(r"[\[@]")


def chat_html(text: str) -> str:
    """``text`` (a label, a narration: a player may have written part of it) as the
    HTML of a ChatMessage's ``content`` or ``flavor``. Escaped, and with an empty
    ``<span></span>`` after each ``[`` and ``@``: Foundry enriches a message's HTML on
    every client (``[[1d1+99]]`` becomes a roll, ``@UUID[Macro.x]{…}`` a link that
    runs a macro) and reads the decoded text node by node, so escaping alone does not
    stop it; the span splits every such pattern and shows nothing. A ``<wbr>`` would
    not last: Foundry's sanitizer drops tags it does not allow, ``wbr`` among them.
    (The module's cards do the same, ``escapeText`` in scripts/core/card.mjs.)"""
    return _ENRICHED.sub(r"\g<0><span></span>", html.escape(text))


def translate(message: Mapping[str, Any], version: str = "", *, quiet: bool = False) -> JSON:
    """The Foundry-dialect form of a reply or event. One it cannot translate is logged
    with its traceback (a server's fault to mend), unless ``quiet``: ``rollbridge
    verify`` making a log's line again (checked.py), where the line is what a forger
    gave, and the traceback would be a crash's to the reader."""
    try:
        return _translate(message, version)
    except Exception as exc:  # never let one odd message break a broadcast
        if not quiet:
            log.exception("could not translate a %s message for Foundry", message.get("type"))
        return {**message, "foundry": {"error": f"{type(exc).__name__}: {exc}"}}


def _translate(message: Mapping[str, Any], version: str) -> JSON:
    kind = message.get("type")
    if kind == "event":
        return _event(message)
    out = dict(message)
    if kind == "result":
        if isinstance(message.get("event"), Mapping):
            out["event"] = _event(message["event"])
        if isinstance(message.get("table"), Mapping):
            out["table"] = _table(message["table"])
    elif kind == "welcome":
        if isinstance(message.get("table"), Mapping):
            out["table"] = _table(message["table"])
            players = message.get("players")
            if isinstance(players, Mapping) and isinstance(players.get("actors"), list):
                shown = {**message["table"], "actors": players["actors"]}
                out["players"] = {**players, "actors": _table(shown)["actors"]}
        out["foundry"] = {
            "adapter": version,
            "mappings": [mapping.describe() for mapping in MAPPINGS.values()],
        }
    return out


def plain(frame: Mapping[str, Any]) -> JSON:
    """The plain protocol's frame a Foundry-dialect ``frame`` was translated from:
    its ``foundry`` and ``players`` taken off, and each actor view's ``foundry`` (an
    event's ``actors``, a welcome's or a result's ``table.actors``, a result's
    ``event``). What ``rollbridge verify`` resolves again: a result placed under the
    dialect's fields is never read there, so it hides no forged one. Anything it does
    not know the shape of is left as it is."""
    out = _plain_frame(frame)
    if isinstance(out.get("event"), Mapping):  # a result's (one level: no recursion)
        out["event"] = _plain_frame(out["event"])
    return out


def _plain_frame(frame: Mapping[str, Any]) -> JSON:
    """``frame`` without its ``foundry`` and ``players`` and its actor views' ``foundry``."""
    out = {key: value for key, value in frame.items() if key not in ("foundry", "players")}
    if isinstance(out.get("actors"), list):
        out["actors"] = [_plain_actor(actor) for actor in out["actors"]]
    if isinstance(out.get("table"), Mapping) and isinstance(out["table"].get("actors"), list):
        out["table"] = {**out["table"], "actors": [_plain_actor(a) for a in out["table"]["actors"]]}
    return out


def _plain_actor(actor: Any) -> Any:
    """An actor view without the ``foundry`` field :func:`with_foundry` gave it."""
    if not isinstance(actor, Mapping) or "foundry" not in actor:
        return actor
    return {key: value for key, value in actor.items() if key != "foundry"}


def _table(table: Mapping[str, Any]) -> JSON:
    out = dict(table)
    context = {"table": table.get("id"), "epoch": table.get("epoch"), "seq": table.get("seq")}
    if isinstance(table.get("actors"), list):
        out["actors"] = [with_foundry(actor, context) for actor in table["actors"]]
    return out


#: The encounter events whose ``data.hooks`` hold the turn hooks' results.
_ENCOUNTER_KINDS = ("encounter.started", "encounter.turn")


def _speaker(actor: Any, names: Mapping[Any, Any]) -> JSON | None:
    return {"actor": actor, "alias": names.get(actor)} if actor else None


def _hooks(hooks: Any, names: Mapping[Any, Any]) -> list[JSON]:
    """Each turn hook's result (a resolution's data, with ``hook`` and ``actor``) as
    ``{rolls, speaker}``: its dice groups as Roll JSON, one per group."""
    out: list[JSON] = []
    for entry in hooks if isinstance(hooks, list) else ():
        if not isinstance(entry, Mapping):
            out.append({"rolls": [], "speaker": None})
            continue
        groups = entry.get("dice") or ()
        out.append(
            {
                "rolls": [roll_from_group(g) for g in groups if isinstance(g, Mapping)],
                "speaker": _speaker(entry.get("actor"), names),
            }
        )
    return out


def _event(event: Mapping[str, Any]) -> JSON:
    out = dict(event)
    if isinstance(event.get("players"), Mapping):
        out["players"] = _event(event["players"])
    context = {"table": event.get("table"), "epoch": event.get("epoch"), "seq": event.get("seq")}
    actors = event.get("actors")
    if isinstance(actors, list):
        out["actors"] = [with_foundry(actor, context) for actor in actors]
        names = {a.get("id"): a.get("name") for a in actors if isinstance(a, Mapping)}
    else:
        names = {}
    data = event.get("data")
    kind = event.get("kind")
    if isinstance(data, Mapping) and kind in _ENCOUNTER_KINDS:
        out["foundry"] = {"hooks": _hooks(data.get("hooks"), names)}
    if not isinstance(data, Mapping) or kind not in ("roll", "resolution"):
        return out
    actor = data.get("actor")
    speaker = _speaker(actor, names)
    if kind == "roll":
        rolls = []
        if isinstance(data.get("roll"), Mapping):
            rolls.append(roll_from_result(data["roll"], flavor=data.get("label") or ""))
        foundry = {
            "rolls": rolls,
            "speaker": speaker,
            "flavor": chat_html(str(data.get("label") or data.get("formula") or "")),
            "content": chat_html(str(data.get("text") or "")),
        }
    else:
        foundry = {
            "rolls": [roll_from_group(g) for g in data.get("dice") or () if isinstance(g, Mapping)],
            "speaker": speaker,
            "flavor": chat_html(str(data.get("action") or "")),
            "content": chat_html(str(data.get("narration") or "")),
        }
    out["foundry"] = foundry
    return out
