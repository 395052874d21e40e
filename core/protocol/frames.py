"""Frames to messages and back: msgpack in binary frames, JSON in text frames.

Sans-I/O: these functions take and return bytes and strings; the driver decides
when to read and write. A connection speaks the kind of its ``hello`` (its
member's :attr:`~rollbridge.protocol.members.Member.kind`); before a ``hello`` is
accepted a reply goes back in the kind of frame its request came in. The codecs
themselves are :mod:`rollbridge.plain`'s.
"""

from __future__ import annotations

from typing import Any, Literal

from rollbridge.exceptions import UndecodableFrame
from rollbridge.plain import (
    JSON,
    Packed,
    dumps_json,
    loads_json,
    map_body,
    map_header,
    pack,
    pack_map,
    packed_key,
    unpack_received,
)
from rollbridge.sent_kinds import any_kind
from rollbridge.text import Messages, Text, stored

__all__ = [
    "MAX_FRAME",
    "Kind",
    "decode",
    "encode",
    "encode_with",
    "event_frame",
    "payload_size",
    "prefixed",
]

#: Largest frame a client may send (bytes); larger closes the connection (1009).
MAX_FRAME = 64 * 1024


def payload_size(frame: bytes | str) -> int:
    """The bytes ``frame`` takes on the wire as a WebSocket frame's payload: a text
    frame's UTF-8 (a Cyrillic letter is two bytes), a binary frame's length."""
    if frame.__class__ is str and not frame.isascii():  # type: ignore[union-attr]
        return len(frame.encode())  # type: ignore[union-attr]
    return len(frame)


say = Messages("rollbridge")
_JSON_AT = say(
    "frame.json_at", "a text frame must hold JSON: it is not, at line {line}, column {column}"
)
_JSON_DEEP = say("frame.json_deep", "a text frame must hold JSON: this is nested too deep")
_JSON = say("frame.json", "a text frame must hold JSON (a number in it may be too long)")

Kind = Literal["msgpack", "json"]


def decode(frame: bytes | str) -> tuple[JSON, Kind]:
    """Decode one frame into a message map and the kind of frame it was.

    :raises UndecodableFrame: for bytes that are not msgpack, text that is not
        JSON, or anything that is not a map.
    """
    if isinstance(frame, str):
        kind: Kind = "json"
        try:
            message = loads_json(frame)
        except (ValueError, RecursionError) as exc:  # the codec's own words are not sent
            raise UndecodableFrame(_not_json(exc)) from None
    else:
        kind = "msgpack"
        try:
            message = unpack_received(frame)
        except Exception:  # the codec's own words name Python internals: not sent
            raise UndecodableFrame(
                say("frame.msgpack", "a binary frame must hold one msgpack value")()
            ) from None
    if not isinstance(message, dict):
        raise UndecodableFrame(
            say("frame.map", "a frame must hold a map, not {kind}")(kind=any_kind(message))
        )
    return message, kind


def _not_json(exc: ValueError | RecursionError) -> Text:
    """Why a text frame is not JSON, in the client's words: where it stops being JSON,
    or that it nests too deep; Python's own message is English and names internals."""
    line, column = getattr(exc, "lineno", None), getattr(exc, "colno", None)
    if isinstance(line, int) and isinstance(column, int):
        return _JSON_AT(line=line, column=column)
    if isinstance(exc, RecursionError):
        return _JSON_DEEP()
    return _JSON()


def encode(message: JSON, kind: Kind) -> bytes | str:
    """Encode a message for a frame of ``kind``.

    :raises NotPlain: for a message that is not plain data.
    """
    if kind == "json":
        return dumps_json(message, stored)
    return pack(message, stored)


def encode_with(fields: JSON, key: str, embedded: Any, kind: Kind) -> bytes | str:
    """``encode({**fields, key: value}, kind)`` where ``embedded`` is that value
    already encoded for ``kind`` (:class:`~rollbridge.plain.Packed` msgpack, or
    JSON text): the bytes are written as they are, not encoded again."""
    if kind == "json":
        head = dumps_json(fields)
        if head == "{}":
            return f"{{{dumps_json(key)}:{embedded}}}"
        return f"{head[:-1]},{dumps_json(key)}:{embedded}}}"
    if key in fields:  # the value takes the key's place among the fields
        return pack_map({**fields, key: Packed(embedded)})
    # the fields packed as one map, then the key and the bytes as they are
    return b"".join(
        (map_header(len(fields) + 1), map_body(pack(fields)), packed_key(key), embedded)
    )


def prefixed(head: JSON, encoded: bytes | str, kind: Kind) -> bytes | str:
    """``encode({**head, **value}, kind)`` for a map ``value`` already encoded for
    ``kind`` (``encoded``), whose keys ``head`` does not repeat: the value's fields are
    written as they are, after ``head``'s."""
    if kind == "json":
        return _json_prefixed(dumps_json(head)[:-1], encoded)  # type: ignore[arg-type]
    return _msgpack_prefixed(len(head), map_body(pack(head)), encoded)  # type: ignore[arg-type]


#: The encoded head of a table's ``event`` frames (:func:`event_frame`), by the
#: table's id and the kind: every frame of a table's events begins with the same.
_EVENT_HEADS: dict[tuple[str, Kind], bytes | str] = {}
#: How many heads :data:`_EVENT_HEADS` keeps (a bound: dropped all at once when full).
MAX_EVENT_HEADS = 4096


def event_frame(table_id: str, encoded: bytes | str, kind: Kind) -> bytes | str:
    """``prefixed({"type": "event", "table": table_id}, encoded, kind)``: an event's
    view, already encoded, as the ``event`` frame of its table, the head encoded once
    per table (not once per frame)."""
    key = (table_id, kind)
    head = _EVENT_HEADS.get(key)
    if head is None:
        fields = {"type": "event", "table": table_id}
        head = dumps_json(fields)[:-1] if kind == "json" else map_body(pack(fields))
        if len(_EVENT_HEADS) >= MAX_EVENT_HEADS:
            _EVENT_HEADS.clear()
        _EVENT_HEADS[key] = head
    if kind == "json":
        return _json_prefixed(head, encoded)  # type: ignore[arg-type]
    return _msgpack_prefixed(2, head, encoded)  # type: ignore[arg-type]


def _json_prefixed(first: str, encoded: str) -> str:
    """A JSON map's text opened by ``first`` (a map's fields, without the closing
    brace), the fields of ``encoded`` (a JSON map) after them."""
    inner = encoded[1:]
    if inner == "}" or first == "{":  # one of the two maps is empty: no comma
        return f"{first}{inner}"
    return f"{first},{inner}"


def _msgpack_prefixed(size: int, body: bytes, encoded: bytes) -> bytes:
    """A msgpack map of ``size`` fields packed as ``body`` (no header), the fields of
    ``encoded`` (a packed map) after them."""
    marker = encoded[0]
    if 0x80 <= marker <= 0x8F:
        return map_header(size + (marker & 0x0F)) + body + encoded[1:]
    if marker == 0xDE:
        return map_header(size + int.from_bytes(encoded[1:3], "big")) + body + encoded[3:]
    return map_header(size + int.from_bytes(encoded[1:5], "big")) + body + encoded[5:]
