"""The requests a table engine accepts: their fields and who may send them.

Each request type has a schema (the :mod:`rollbridge.schema` subset) for its
fields besides ``type`` and ``id``, the lowest role that may send it, and
whether it writes (writes are idempotent by request id and go to the store).
docs/protocol.md and docs/engine.md are written from this table;
tests/test_protocol_docs.py checks they agree.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rollbridge.dice.notation import MAX_DICE_PER_TERM
from rollbridge.dice.sources import MAX_FACES
from rollbridge.engine.model import Role
from rollbridge.exceptions import InvalidRequest, UnknownMessageType
from rollbridge.plain import valid_text
from rollbridge.schema import validate
from rollbridge.text import Messages
from rollbridge.visible import NOT_IN_NAMES

__all__ = [
    "BAD_ID",
    "REPEAT",
    "REQUESTS",
    "Request",
    "RequestType",
    "parse_request",
    "valid_id",
]

say = Messages("rollbridge")
#: The refusal of a request whose ``id`` is missing or is not one (:func:`valid_id`).
BAD_ID = say(
    "request.id",
    "id: every request needs an id, a string of 1-64 characters without control "
    "characters or an integer within 64 bits",
)

#: The envelope field of a writing request that only repeats: ``true`` asks for the
#: remembered reply of its id and never runs it (``not_remembered`` when the table
#: does not remember the id). Beside ``type`` and ``id``, not one of its fields.
REPEAT = "repeat"
_NOT_BOOLEAN = say("request.repeat", "repeat: must be true or false")

_ID = {"type": "string", "minLength": 1, "maxLength": 64}
#: The seq of an event a request names (``undo`` and ``redo``: the one meant).
_SEQ = {"type": "integer", "minimum": 1}
#: The most seqs a ``state`` request may ask the undone state of (``undone``).
UNDONE_ASKED = 50
_DICE = {"type": "array", "items": {"type": "integer"}, "maxItems": 10_000}
_ORDER = {"type": "array", "items": _ID, "minItems": 1, "maxItems": 256}
_ACTOR_FIELDS = {
    "id": {"type": "string", "minLength": 1, "maxLength": 64, "pattern": r"[A-Za-z0-9_.:-]+"},
    "name": {"type": "string", "minLength": 1, "maxLength": 200},
    "sheet": {"type": "object", "additionalProperties": True},
    "state": {"type": "object", "additionalProperties": True},
    "controllers": {"type": "array", "items": _ID, "maxItems": 64},
}


def _obj(required: tuple[str, ...] = (), **properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(required)}


@dataclass(frozen=True, slots=True)
class RequestType:
    """One request type.

    :param name: the ``type`` field.
    :param schema: the schema of its other fields.
    :param role: the lowest role allowed (``observer`` < ``player`` < ``gm``).
    :param writes: whether it may change the table (idempotent by id).
    :param summary: one line for the docs.
    """

    name: str
    schema: Mapping[str, Any]
    role: Role
    writes: bool
    summary: str


REQUESTS: dict[str, RequestType] = {
    spec.name: spec
    for spec in (
        RequestType(
            "roll",
            _obj(
                ("formula",),
                # no maxLength here: the notation refuses past 256 characters with
                # dice_limit, as protocol.md says
                formula={"type": "string", "minLength": 1},
                actor=_ID,
                secret={"type": "boolean", "default": False},
                requester_sees={"type": "boolean", "default": False},
                dice=_DICE,
                label={"type": "string", "maxLength": 200},
            ),
            "player",
            True,
            "Roll dice notation (``4d6kh3+2``), optionally for an actor, secret, or with "
            "supplied dice.",
        ),
        RequestType(
            "draw",
            _obj(
                ("faces", "number"),
                faces={"type": "integer", "minimum": 1, "maximum": MAX_FACES},
                number={"type": "integer", "minimum": 1, "maximum": MAX_DICE_PER_TERM},
                actor=_ID,
                secret={"type": "boolean", "default": False},
                requester_sees={"type": "boolean", "default": False},
                label={"type": "string", "maxLength": 200},
            ),
            "player",
            True,
            "Draw N dice of F faces from the server for a roll a client evaluates itself "
            "(Foundry's dice fulfillment); each draw is an event of the log.",
        ),
        RequestType(
            "resolve",
            _obj(
                ("action",),
                action={"type": "string", "minLength": 1, "maxLength": 64},
                actor=_ID,
                targets={"type": "array", "items": _ID, "maxItems": 64, "default": []},
                params={"type": "object", "additionalProperties": True, "default": {}},
                secret={"type": "boolean", "default": False},
                requester_sees={"type": "boolean", "default": False},
                dice=_DICE,
            ),
            "player",
            True,
            "Resolve a ruleset action for an actor against targets.",
        ),
        RequestType(
            "actor.create",
            _obj(
                ("actor",),
                actor={**_obj(("name", "sheet"), **_ACTOR_FIELDS)},
            ),
            "gm",
            True,
            "Create an actor from a character sheet (its id is made from the name if absent).",
        ),
        RequestType(
            "actor.update",
            _obj(
                ("actor",),
                **{"actor": _ID},
                **{k: v for k, v in _ACTOR_FIELDS.items() if k != "id"},
            ),
            "gm",
            True,
            "Change an actor's name, sheet, state or controlling players.",
        ),
        RequestType("actor.remove", _obj(("actor",), actor=_ID), "gm", True, "Remove an actor."),
        RequestType(
            "adjust",
            _obj(
                ("actor", "track", "delta"),
                actor=_ID,
                track={"type": "string", "minLength": 1, "maxLength": 64},
                delta={"type": "integer", "minimum": -1000, "maximum": 1000},
            ),
            "gm",
            True,
            "Apply damage (delta > 0) or healing (delta < 0) to a track directly.",
        ),
        RequestType(
            "undo",
            _obj(seq=_SEQ),
            "gm",
            True,
            "Undo the latest undoable event (``seq``: only if it is that event).",
        ),
        RequestType(
            "redo",
            _obj(seq=_SEQ),
            "gm",
            True,
            "Redo the latest undone event (``seq``: only if it is that event).",
        ),
        RequestType(
            "settings",
            _obj(("settings",), settings={"type": "object", "additionalProperties": True}),
            "gm",
            True,
            "Change table settings (``approval``, ``player_dice``, ``ruleset``…).",
        ),
        RequestType(
            "encounter.start",
            _obj(
                ("order",),
                order=_ORDER,
                dice=_DICE,
            ),
            "gm",
            True,
            "Start an encounter with actors in turn order; runs the round and turn hooks.",
        ),
        RequestType(
            "encounter.next",
            _obj(dice=_DICE, order=_ORDER),
            "player",
            True,
            "End the current turn and start the next (GM, or the current actor's player); "
            "``order``: the order of the round it begins, if it begins one.",
        ),
        RequestType(
            "encounter.reorder",
            _obj(("order",), order=_ORDER),
            "gm",
            True,
            "A new turn order for the running encounter: the current actor keeps its turn; "
            "no hook runs.",
        ),
        RequestType("encounter.end", _obj(), "gm", True, "End the encounter."),
        RequestType(
            "approve",
            _obj(("request",), request=_ID, dice=_DICE),
            "gm",
            True,
            "Approve a player's pending request: it is resolved and applied now.",
        ),
        RequestType(
            "reject",
            _obj(("request",), request=_ID, reason={"type": "string", "maxLength": 500}),
            "gm",
            True,
            "Reject a player's pending request: nothing is applied.",
        ),
        RequestType(
            "dice.reveal",
            _obj(),
            "gm",
            True,
            "Verifiable dice: reveal the open segment's seed and commit to the next one.",
        ),
        RequestType(
            "odds",
            _obj(
                formula={"type": "string", "minLength": 1},
                action={"type": "string", "minLength": 1, "maxLength": 64},
                actor=_ID,
                targets={"type": "array", "items": _ID, "maxItems": 64, "default": []},
                params={"type": "object", "additionalProperties": True, "default": {}},
                assume={
                    "type": "object",
                    "additionalProperties": _obj(
                        sheet={"type": "object", "additionalProperties": True},
                        state={"type": "object", "additionalProperties": True},
                    ),
                    "default": {},
                },
            ),
            "observer",
            False,
            "The exact odds of dice notation (``formula``) or of an action, from what the "
            "caller may see (``assume`` states an NPC's hidden numbers).",
        ),
        RequestType(
            "stats",
            _obj(
                actor=_ID,
                encounter={"type": "integer", "minimum": 1},
                since={"type": "integer", "minimum": 0},
                until={"type": "integer", "minimum": 0},
                from_time={"type": "number", "minimum": 0},
                to_time={"type": "number", "minimum": 0},
            ),
            "observer",
            False,
            "Roll statistics of the retained log as the caller may see it: per actor and "
            "for a session (an encounter, a seq span, a time span, or the whole log).",
        ),
        RequestType(
            "state",
            _obj(
                at={"type": "integer", "minimum": 0},
                undone={"type": "array", "items": _SEQ, "maxItems": UNDONE_ASKED},
            ),
            "observer",
            False,
            "The table's state as the caller may see it, now or at an earlier seq; with "
            "undone, whether the GM has undone each of those events, as the retained log says.",
        ),
    )
}


@dataclass(frozen=True, slots=True)
class Request:
    """A validated request: its type, id (a string, or an integer: ``1`` and ``"1"``
    are two ids), fields (defaults filled in), and whether it only repeats its id
    (:data:`REPEAT`)."""

    type: str
    id: str | int
    fields: Mapping[str, Any]
    repeat: bool = False

    @property
    def spec(self) -> RequestType:
        return REQUESTS[self.type]

    def message(self) -> dict[str, Any]:
        """The request as a message again (to hold it, or forward it): its fields,
        ``type``, ``id`` and, if it only repeats, :data:`REPEAT`."""
        message = {**self.fields, "type": self.type, "id": self.id}
        if self.repeat:
            message[REPEAT] = True
        return message


#: Request ids that are integers lie within 64 bits (what msgpack and JSON carry).
_ID_LIMIT = 2**63
#: What no request id holds (as no name does): C0, DEL and C1 controls, the line and
#: paragraph separators and the bidirectional controls. An event names the request
#: it answers (``request``) to every member of its table, so an id is text one person
#: sends to all the others, and these would control or reorder what they read.
_NOT_IN_ID = NOT_IN_NAMES


def valid_id(value: Any) -> bool:
    """Whether ``value`` is a request id: a string of 1-64 characters of valid
    Unicode without control characters (:data:`_NOT_IN_ID`), or an integer within
    64 bits (not a boolean)."""
    kind = value.__class__
    if kind is str:
        return 1 <= len(value) <= 64 and valid_text(value) and _NOT_IN_ID.search(value) is None
    return kind is int and -_ID_LIMIT <= value < _ID_LIMIT


def parse_request(message: Mapping[str, Any]) -> Request:
    """Validate a decoded message as an engine request.

    :raises UnknownMessageType: for a ``type`` the engine does not know.
    :raises InvalidRequest: naming the missing or ill-typed field.
    """
    kind = message.get("type")
    if not isinstance(kind, str):
        raise InvalidRequest(
            say("request.type", "type: is required and must be a string")(),
            details={"field": "type"},
        )
    spec = REQUESTS.get(kind)
    if spec is None:
        raise UnknownMessageType(
            say("request.unknown_type", "unknown request type {type}")(type=repr(kind)),
            details={"type": kind},
        )
    request_id = message.get("id")
    if not valid_id(request_id):
        raise InvalidRequest(
            BAD_ID(),
            details={"field": "id"},
        )
    body = dict(message)  # (a copy in C, then the two keys taken out)
    del body["type"]
    body.pop("id", None)
    repeat = False
    if spec.writes and REPEAT in body:  # a read has nothing to repeat: a field it lacks
        repeat = body.pop(REPEAT)
        if repeat.__class__ is not bool:
            raise InvalidRequest(_NOT_BOOLEAN(), details={"field": REPEAT})
    # The compiled schema checks the fields and that they are plain data, in one walk.
    fields = validate(spec.schema, body, where=kind, error=InvalidRequest)
    return Request(type=kind, id=request_id, fields=fields, repeat=repeat)
