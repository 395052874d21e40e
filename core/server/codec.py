"""Frames to messages and back: msgpack in binary frames, JSON in text frames.

Sans-I/O: these functions take and return bytes and strings; the server
decides when to read and write. A reply goes back in the kind of frame its
request came in.
"""

from __future__ import annotations

import json
from typing import Any, Literal

import msgpack

from rollbridge.exceptions import UndecodableFrame

__all__ = ["MAX_FRAME", "Kind", "decode", "encode"]

#: Largest frame a client may send (bytes); larger closes the connection (1009).
MAX_FRAME = 64 * 1024

Kind = Literal["msgpack", "json"]

_packer = msgpack.Packer(use_bin_type=True)


def decode(frame: bytes | str) -> tuple[dict[str, Any], Kind]:
    """Decode one frame into a message map and the kind of frame it was.

    :raises UndecodableFrame: for bytes that are not msgpack, text that is not
        JSON, or anything that is not a map.
    """
    if isinstance(frame, str):
        kind: Kind = "json"
        try:
            message = json.loads(frame)
        except (ValueError, RecursionError) as exc:
            raise UndecodableFrame(f"a text frame must hold JSON: {exc}"[:300]) from None
    else:
        kind = "msgpack"
        try:
            message = msgpack.unpackb(frame, raw=False, strict_map_key=True)
        except Exception as exc:
            raise UndecodableFrame(
                f"a binary frame must hold msgpack: {type(exc).__name__}: {exc}"
            ) from None
    if not isinstance(message, dict):
        raise UndecodableFrame(f"a frame must hold a map, not {type(message).__name__}")
    return message, kind


def encode(message: dict[str, Any], kind: Kind) -> bytes | str:
    """Encode a message for a frame of ``kind``."""
    if kind == "json":
        return json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    return _packer.pack(message)
