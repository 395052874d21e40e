"""Plain data: what may cross the wire and be stored.

Every request is checked once, where it enters the engine, so nothing the
stores or the other clients' codecs cannot carry ever reaches a table: only
maps with string keys, lists, strings of valid UTF-8, integers within 64 bits,
finite floats, booleans and null, nested at most :data:`MAX_DEPTH` deep.
"""

from __future__ import annotations

import math
from typing import Any

import msgpack

from rollbridge.exceptions import InvalidRequest

__all__ = ["MAX_DEPTH", "check_plain", "copy_plain", "pack", "unpack"]

#: How deep maps and lists may nest in a request.
MAX_DEPTH = 32
_LIMIT = 2**63


def check_plain(value: Any, where: str = "message", depth: int = 0) -> None:
    """Raise :class:`InvalidRequest` naming the first value that is not plain data."""
    if depth > MAX_DEPTH:
        raise InvalidRequest(f"{where}: nested more than {MAX_DEPTH} levels deep")
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, int):
        if not -_LIMIT <= value < _LIMIT:
            raise InvalidRequest(f"{where}: integer out of the 64-bit range")
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidRequest(f"{where}: numbers must be finite")
        return
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidRequest(f"{where}: text is not valid Unicode") from None
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise InvalidRequest(f"{where}: map keys must be strings, got {key!r:.40}")
            check_plain(key, where, depth + 1)
            check_plain(item, f"{where}.{key}"[:200], depth + 1)
        return
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            check_plain(item, f"{where}[{index}]"[:200], depth + 1)
        return
    raise InvalidRequest(f"{where}: {type(value).__name__} values are not allowed")


def pack(value: Any) -> bytes:
    """Plain data as msgpack bytes."""
    return msgpack.packb(value, use_bin_type=True)


def unpack(data: bytes) -> Any:
    """Plain data back from :func:`pack`."""
    return msgpack.unpackb(data, raw=False, strict_map_key=False)


def copy_plain(value: Any) -> Any:
    """A deep copy of plain data, an order of magnitude faster than
    :func:`copy.deepcopy` (a msgpack round trip in C); tuples come back as lists.
    Rulesets use it to redact a copy of a resolution for players."""
    return unpack(pack(value))
