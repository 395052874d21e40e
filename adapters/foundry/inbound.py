"""Foundry-dialect requests → the core's requests.

``foundry.roll`` — a roll as Foundry holds it::

    {"type": "foundry.roll", "id": "…", "roll": <Roll#toJSON>,
     "speaker": {"actor": "…", "token": "…", "scene": "…", "alias": "…"},
     "actor": "rollbridge actor id"?, "flavor": "…"?, "rollMode": "publicroll"?,
     "source": "auto" | "server" | "foundry"?}

becomes ``{"type": "roll", "formula", "actor"?, "label"?, "secret"?, "dice"?}``.

``foundry.resolve`` — a ruleset action::

    {"type": "foundry.resolve", "id": "…", "action": "attack", "speaker": {…},
     "actor"?, "targets": ["id" | {"actor", "token", "rollbridge"}], "params": {…},
     "rollMode"?, "dice": [int]? | "roll": <Roll#toJSON>?}

becomes ``{"type": "resolve", "action", "actor"?, "targets", "params", "secret"?, "dice"?}``.

The acting actor is ``actor`` when given (``null``: none), else the speaker's
actor id: the module creates rollbridge actors with their Foundry actor's id,
and resolves an explicit link (``flags.rollbridge.actorId``) itself before
sending. A target given as a speaker-like object is its ``rollbridge`` id, else
its ``actor`` id.

Whose dice: ``source`` ``server`` rolls on the server; ``foundry`` sends the
Roll's results as supplied ``dice`` (the GM always may; players only at a
table with ``player_dice``); ``auto`` (the default) is ``foundry`` for an
evaluated Roll and ``server`` for one sent unevaluated. ``rollMode``
``gmroll``, ``blindroll`` and ``selfroll`` make the request ``secret``;
``requester_sees`` (the module sends it for ``gmroll`` and ``selfroll``) is passed on
with it, so the roller's reply carries the players' view of its secret event.

A request that only repeats (``"repeat"``, docs/protocol.md) keeps the field: the
core checks it and answers the id's remembered reply, or ``not_remembered``.

Every other message passes through unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rollbridge.exceptions import InvalidRequest
from rollbridge.plain import JSON
from rollbridge.schema import validate
from rollbridge.text import Messages

from .dice_in import formula_of, is_evaluated, results_of

__all__ = ["ROLL_MODES", "translate"]

say = Messages("rollbridge")


#: Foundry's roll modes and whether each is secret (GM only) at the table.
ROLL_MODES = {
    "publicroll": False,
    "roll": False,  # Foundry's older name of publicroll
    "gmroll": True,
    "blindroll": True,
    "selfroll": True,
}

_ID = {"type": "string", "minLength": 1, "maxLength": 64}
_NULLABLE_ID = {"type": ["string", "null"], "maxLength": 64}
_SPEAKER = {
    "type": ["object", "null"],
    "properties": {
        "actor": _NULLABLE_ID,
        "token": _NULLABLE_ID,
        "scene": _NULLABLE_ID,
        "alias": {"type": ["string", "null"], "maxLength": 200},
    },
    "additionalProperties": True,
}
_TARGET = {
    "type": ["string", "object"],
    "maxLength": 64,
    "properties": {"actor": _NULLABLE_ID, "token": _NULLABLE_ID, "rollbridge": _NULLABLE_ID},
    "additionalProperties": True,
}
_COMMON = {
    "speaker": _SPEAKER,
    "actor": _NULLABLE_ID,
    "rollMode": {"type": "string", "enum": sorted(ROLL_MODES)},
    "secret": {"type": "boolean"},
    "requester_sees": {"type": "boolean"},
}
_ROLL = {"type": "object", "additionalProperties": True}

ROLL_SCHEMA = {
    "type": "object",
    "properties": {
        **_COMMON,
        "roll": _ROLL,
        "flavor": {"type": ["string", "null"], "maxLength": 200},
        "source": {"type": "string", "enum": ["auto", "server", "foundry"], "default": "auto"},
    },
    "required": ["roll"],
}
RESOLVE_SCHEMA = {
    "type": "object",
    "properties": {
        **_COMMON,
        "action": {"type": "string", "minLength": 1, "maxLength": 64},
        "targets": {"type": "array", "items": _TARGET, "maxItems": 64, "default": []},
        "params": {"type": "object", "additionalProperties": True, "default": {}},
        "dice": {"type": "array", "items": {"type": "integer"}, "maxItems": 10_000},
        "roll": _ROLL,
    },
    "required": ["action"],
}


def translate(message: Mapping[str, Any]) -> JSON:
    """The core request for a Foundry-dialect message (others unchanged)."""
    kind = message.get("type")
    if kind == "foundry.roll":
        return roll_request(message)
    if kind == "foundry.resolve":
        return resolve_request(message)
    return dict(message)


#: The field of a request that only repeats (``REPEAT`` of the core's requests, whose
#: module an adapter does not import): passed on as it is; the core checks it.
REPEAT = "repeat"
#: The fields of the request's envelope.
_ENVELOPE = ("type", "id", REPEAT)


def _fields(message: Mapping[str, Any], schema: Mapping[str, Any], where: str) -> JSON:
    body = {k: v for k, v in message.items() if k not in _ENVELOPE}
    return validate(schema, body, where=where, error=InvalidRequest)


def _actor(fields: Mapping[str, Any]) -> str | None:
    if "actor" in fields:
        return fields["actor"] or None
    speaker = fields.get("speaker") or {}
    return speaker.get("actor") or None


def _secret(fields: Mapping[str, Any]) -> bool:
    return bool(fields.get("secret")) or ROLL_MODES.get(fields.get("rollMode", ""), False)


def _target(target: Any, index: int) -> str:
    if isinstance(target, str):
        value: Any = target
    else:
        value = target.get("rollbridge") or target.get("actor")
    if not isinstance(value, str) or not value:
        raise InvalidRequest(
            say(
                "foundry.target",
                "foundry.resolve.targets[{index}]: give a rollbridge actor id, "
                "or an object with 'rollbridge' or 'actor'",
            )(index=index)
        )
    return value


def _base(message: Mapping[str, Any], kind: str, fields: Mapping[str, Any]) -> JSON:
    request: JSON = {"type": kind}
    for name in ("id", REPEAT):
        if name in message:
            request[name] = message[name]
    actor = _actor(fields)
    if actor is not None:
        request["actor"] = actor
    if _secret(fields):
        request["secret"] = True
        if fields.get("requester_sees"):
            request["requester_sees"] = True
    return request


def roll_request(message: Mapping[str, Any]) -> JSON:
    """``foundry.roll`` → ``roll``."""
    fields = _fields(message, ROLL_SCHEMA, "foundry.roll")
    roll = fields["roll"]
    request = _base(message, "roll", fields)
    request["formula"] = formula_of(roll)
    flavor = fields.get("flavor")
    if flavor:
        request["label"] = flavor
    source = fields["source"]
    if source == "auto":
        source = "foundry" if is_evaluated(roll) else "server"
    if source == "foundry":
        request["dice"] = results_of(roll)
    return request


def resolve_request(message: Mapping[str, Any]) -> JSON:
    """``foundry.resolve`` → ``resolve``."""
    fields = _fields(message, RESOLVE_SCHEMA, "foundry.resolve")
    request = _base(message, "resolve", fields)
    request["action"] = fields["action"]
    request["targets"] = [_target(t, i) for i, t in enumerate(fields["targets"])]
    request["params"] = fields["params"]
    if "dice" in fields and "roll" in fields:
        raise InvalidRequest(
            say("foundry.dice_or_roll", "foundry.resolve: give 'dice' or 'roll', not both")()
        )
    if "dice" in fields:
        request["dice"] = fields["dice"]
    elif "roll" in fields:
        request["dice"] = results_of(fields["roll"])
    return request
