"""Plain data, and the one codec that packs it: what may cross the wire and be stored.

Plain data is what every store and every client's codec can carry: maps with
string keys, lists, strings of valid Unicode, integers within 64 bits, finite
floats, booleans and null. Requests are checked once, where they enter, by their
compiled schema (:mod:`rollbridge.schema`, which accepts only plain data, nested
at most 32 deep); what a table produces is checked before the table changes (the
engine's staging, see ``docs/engine.md``).

This module is the project's only msgpack and JSON codec. The ``msgpack``
package is the reference; when the ``ormsgpack`` package is installed (it is a
dependency, with wheels for the common platforms), :func:`pack` uses it, because
it produces the same bytes about three times faster (``tests/test_codec.py``
proves the bytes identical on generated plain data; ``docs/performance.md`` has
the figures). It is told to refuse what the reference refuses — enums, datetimes,
UUIDs, dataclasses, which it would write by itself (options of ormsgpack 1.9) —
and the same tests hold it to that. JSON text goes through ``orjson`` when
installed, else the standard library, with the same compact output.

A value packed once can be embedded in a larger message without packing it
again: msgpack is a concatenation of values, so :func:`pack_map` writes a map
from already-packed values (:class:`Packed`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import msgpack

from rollbridge.visible import BIDI_CONTROLS, inert_json

try:  # the faster codec, byte-identical for plain data (tests/test_codec.py)
    import ormsgpack as _ormsgpack
except ImportError:  # pragma: no cover - the dependency is installed with rollbridge
    _ormsgpack = None
if _ormsgpack is not None and not hasattr(_ormsgpack, "OPT_PASSTHROUGH_ENUM"):
    _ormsgpack = None  # pragma: no cover - before 1.9 it cannot refuse enums: not used
try:
    import orjson as _orjson
except ImportError:  # pragma: no cover - the dependency is installed with rollbridge
    _orjson = None

__all__ = [
    "CODEC",
    "JSON",
    "NotPlain",
    "Packed",
    "SentExtension",
    "SentTimestamp",
    "as_plain_type",
    "copy_plain",
    "dumps_json",
    "ensure_plain",
    "has_bidi_control",
    "join_array",
    "loads_json",
    "map_body",
    "map_header",
    "pack",
    "pack_array",
    "pack_map",
    "packed_key",
    "quotable",
    "reference_pack",
    "unpack",
    "unpack_kept",
    "unpack_kept_maps",
    "unpack_received",
    "valid",
    "valid_text",
]

#: A map of plain data, the type of every message, event and record (one alias for
#: the whole project).
JSON = dict[str, Any]

_LIMIT = 2**63
_UNSIGNED_LIMIT = 2**64

#: Which codec :func:`pack` uses: ``ormsgpack`` or ``msgpack``.
CODEC = "ormsgpack" if _ormsgpack is not None else "msgpack"

_reference = msgpack.Packer(use_bin_type=True)


class NotPlain(ValueError):
    """A value that is not plain data; ``where`` names it."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(f"{where}: {problem}")
        self.where = where
        self.problem = problem


def ensure_plain(value: Any, where: str = "value", *, limit: int = 64) -> None:
    """Raise :class:`NotPlain` naming the first value that is not plain data (or that
    nests more than ``limit`` deep)."""
    _check(value, where, 0, limit, signed_only=False)


def _check(value: Any, where: str, depth: int, limit: int, *, signed_only: bool) -> None:
    if depth > limit:
        raise NotPlain(where, f"nested more than {limit} levels deep")
    kind = value.__class__
    if value is None or kind is bool or (kind is str and valid_text(value)):
        return
    if kind is int:
        top = _LIMIT if signed_only else _UNSIGNED_LIMIT
        if not -_LIMIT <= value < top:
            raise NotPlain(where, "integer out of the 64-bit range")
        return
    if kind is float:
        if not math.isfinite(value):
            raise NotPlain(where, "numbers must be finite")
        return
    if kind is str:
        raise NotPlain(where, "text is not valid Unicode")
    if isinstance(value, dict):
        for key, item in value.items():
            if key.__class__ is not str:
                raise NotPlain(where, f"map keys must be strings, got {key!r:.40}")
            if not valid_text(key):
                raise NotPlain(where, "text is not valid Unicode")
            _check(item, f"{where}.{key}"[:200], depth + 1, limit, signed_only=signed_only)
        return
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            _check(item, f"{where}[{index}]"[:200], depth + 1, limit, signed_only=signed_only)
        return
    if isinstance(value, bool):  # subclasses of the plain types (IntEnum, StrEnum)
        return
    for base in (int, float, str):
        if isinstance(value, base):
            _check(base(value), where, depth, limit, signed_only=signed_only)
            return
    raise NotPlain(where, f"{type(value).__name__} values are not allowed")


def valid_text(text: str) -> bool:
    """Whether ``text`` is valid Unicode (a lone surrogate from JSON's ``\\ud800``
    is not): what UTF-8 codecs, hence every store and client, can carry."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


#: The bidirectional embeddings, overrides and isolates: in a text shown to others
#: they reorder what follows them (a player's "Dodge U+202E" label made the GM's log
#: show a roll of 62 as 26), so no text a client sends may hold one.
_BIDI_CONTROL = re.compile(f"[{BIDI_CONTROLS}]")


def has_bidi_control(text: str) -> bool:
    """Whether ``text`` holds a bidirectional embedding, override or isolate
    (U+202A–U+202E, U+2066–U+2069). The marks U+200E and U+200F, which right-to-left
    text needs, are not among them."""
    return not text.isascii() and _BIDI_CONTROL.search(text) is not None


# -- msgpack ---------------------------------------------------------------------

#: ormsgpack writes dataclasses, datetimes, enums and UUIDs by itself, where the
#: reference refuses them: these options hand them to ``default`` instead, which
#: refuses them (or, for an IntEnum or a StrEnum, gives the int or str the reference
#: writes), so that both codecs take exactly the plain data.
_STRICT = (
    (
        _ormsgpack.OPT_PASSTHROUGH_DATACLASS
        | _ormsgpack.OPT_PASSTHROUGH_DATETIME
        | _ormsgpack.OPT_PASSTHROUGH_ENUM
        | _ormsgpack.OPT_PASSTHROUGH_UUID
    )
    if _ormsgpack is not None
    else 0
)


def as_plain_type(value: Any) -> Any:
    """A value of a subclass of a plain type — an IntEnum, a StrEnum as that scalar
    type, a named tuple as a list — as the reference codec writes it: the default of
    :func:`pack` (and the last step of a caller's default).

    :raises TypeError: for any other value."""
    for base in (int, float, str):
        if isinstance(value, base):
            return base(value)
    if isinstance(value, tuple):
        return list(value)
    raise TypeError(f"{type(value).__name__} values are not allowed")


#: A float64 whose exponent is all ones (NaN or an infinity), as msgpack writes it.
_NON_FINITE = re.compile(rb"\xcb[\x7f\xff][\xf0-\xff]")


def pack(value: Any, default: Callable[[Any], Any] | None = None) -> bytes:
    """Plain data as msgpack bytes (the same bytes as ``msgpack.packb(value,
    use_bin_type=True)``).

    The values packed are checked plain where they came in (requests by their
    schema, a ruleset's results by the engine); this is the last guard, for what
    a codec cannot write and for NaN and infinities, which msgpack would write.

    :param default: turns a value of another type into plain data (the stored form
        of texts, :func:`rollbridge.text.stored`); it raises TypeError for what it
        does not know.
    :raises NotPlain: naming the value: an integer beyond 64 bits, text that is not
        valid Unicode, a map key that is not a string, a NaN or an infinity, another
        type, nesting deeper than the codec allows.
    """
    try:
        if _ormsgpack is not None:
            data = _ormsgpack.packb(value, default=default or as_plain_type, option=_STRICT)
        elif default is not None:
            data = msgpack.packb(value, use_bin_type=True, default=default)
        else:
            data = _reference.pack(value)
    except Exception as exc:
        raise _explain(value, exc, default) from None
    # the float marker first (memchr, in C): most packed values hold no float at all,
    # and an event's time, its usual float, comes after its data: the pattern starts
    # at the first marker (every match begins with one)
    first = data.find(b"\xcb")
    if first >= 0 and _NON_FINITE.search(data, first) is not None:  # perhaps: make sure
        # the bytes as packed, the default applied (the value itself may hold texts,
        # which are plain only in their stored form); the bytes matched by chance
        # where the pattern is inside another value (an integer, a float's mantissa,
        # bytes the value holds: the codec wrote them, so only floats are looked at —
        # until 7 December 2026, late night, the whole plain check ran here and refused
        # the bytes a Redis commit's digest packs whenever the pattern turned up by chance)
        _refuse_non_finite(unpack(data), "value", 0)
    return data


def _refuse_non_finite(value: Any, where: str, depth: int) -> None:
    """Raise :class:`NotPlain` naming the first NaN or infinity in ``value``, a value
    the codec has already written (every other kind in it is one the codec takes)."""
    if value.__class__ is float:
        if not math.isfinite(value):
            raise NotPlain(where, "numbers must be finite")
    elif value.__class__ is dict:
        for key, item in value.items():
            _refuse_non_finite(item, f"{where}.{key}"[:200], depth + 1)
    elif value.__class__ is list:
        for index, item in enumerate(value):
            _refuse_non_finite(item, f"{where}[{index}]"[:200], depth + 1)


def _explain(value: Any, exc: Exception, default: Callable[[Any], Any] | None = None) -> NotPlain:
    """Why ``value`` could not be packed, naming where it stands (the slow path of a
    failure only: the packing itself never walks the value)."""
    try:
        _locate(value, "value", 0, default)
    except NotPlain as found:
        return found
    return NotPlain("value", f"cannot be packed: {type(exc).__name__}: {exc}")


def _locate(value: Any, where: str, depth: int, default: Callable[[Any], Any] | None) -> None:
    """:func:`ensure_plain`'s walk, where ``default`` (as :func:`pack` was given it)
    turns the values it knows into plain data first; raises :class:`NotPlain` naming
    the first value that is not, or that ``default`` refuses."""
    if depth > _EXPLAIN_DEPTH:
        raise NotPlain(where, f"nested more than {_EXPLAIN_DEPTH} levels deep")
    if isinstance(value, dict):
        for key, item in value.items():
            _check(key, where, depth, _EXPLAIN_DEPTH, signed_only=False)
            if key.__class__ is not str:
                raise NotPlain(where, f"map keys must be strings, got {key!r:.40}")
            _locate(item, f"{where}.{key}"[:200], depth + 1, default)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            _locate(item, f"{where}[{index}]"[:200], depth + 1, default)
    elif default is not None and not isinstance(value, _SCALARS):
        try:
            plain = default(value)
        except NotPlain as refused:
            raise NotPlain(where, f"{refused.where}: {refused.problem}") from None
        except Exception as failed:  # the hook's TypeError says what it is not
            raise NotPlain(
                where, str(failed) or f"{type(value).__name__} values are not allowed"
            ) from None
        if plain is value:
            raise NotPlain(where, f"{type(value).__name__} values are not allowed")
        _locate(plain, where, depth + 1, default)
    else:
        _check(value, where, depth, 250, signed_only=False)


_SCALARS = (str, int, float, bool, type(None))
#: How deep :func:`_locate` looks (as deep as :func:`_explain`'s plain check).
_EXPLAIN_DEPTH = 250


def reference_pack(value: Any) -> bytes:
    """``msgpack.packb(value, use_bin_type=True)``: the reference :func:`pack` matches."""
    return _reference.pack(value)


def unpack(data: bytes) -> Any:
    """Plain data back from :func:`pack` (arrays come back as lists)."""
    if _ormsgpack is not None:
        return _ormsgpack.unpackb(data)
    return msgpack.unpackb(data, raw=False, strict_map_key=False)


def _kept_reader(data: bytes) -> msgpack.Unpacker:
    # map keys held to texts (and bytes) as :func:`unpack`'s codec holds them
    reader = msgpack.Unpacker(raw=False, strict_map_key=True, max_buffer_size=max(1, len(data)))
    reader.feed(data)
    return reader


def _kept_map(reader: msgpack.Unpacker, kept: Collection[str]) -> JSON:
    found: JSON = {}
    for _ in range(reader.read_map_header()):
        key = reader.unpack()
        if key.__class__ is str and key in kept:
            found[key] = reader.unpack()
        else:  # stepped over in C: no object is made for it
            reader.skip()
    return found


def unpack_kept(data: bytes, kept: Collection[str]) -> JSON:
    """The map :func:`pack` made of ``data`` with its ``kept`` keys alone: the values
    of the others are stepped over, never decoded (a stored event's dice, read for
    its changes: :mod:`rollbridge.stores.actor_changes`).

    :raises ValueError: (or another exception of the codec) ``data`` does not begin
        with a msgpack map."""
    return _kept_map(_kept_reader(data), kept)


def unpack_kept_maps(data: bytes, kept: Collection[str]) -> list[JSON]:
    """The array of maps :func:`pack` made of ``data``, each with its ``kept`` keys
    alone (:func:`unpack_kept`).

    :raises ValueError: (or another exception of the codec) ``data`` does not begin
        with a msgpack array of maps."""
    reader = _kept_reader(data)
    return [_kept_map(reader, kept) for _ in range(reader.read_array_header())]


def unpack_received(data: bytes) -> Any:
    """A value from bytes a client sent, decoded with the reference codec. Map keys
    may be any msgpack key, and a text that is not UTF-8 keeps each byte it cannot
    read as a lone surrogate (``surrogateescape``), as a JSON text may hold one: the
    request's own checks refuse both by name (a request's field names must be
    strings, its texts valid Unicode), with its id where that can be read.

    :raises ValueError: (or another exception of the codec) for bytes that are not
        one msgpack value.
    """
    return msgpack.unpackb(
        data,
        raw=False,
        strict_map_key=False,
        unicode_errors="surrogateescape",
        ext_hook=SentExtension,
    )


class SentExtension:
    """A msgpack extension value a client sent (``unpack_received``): its type code
    and bytes. Not a tuple (the codec's own ``ExtType`` is one, so a schema took it
    for an array), and no plain data: a request's checks refuse it by name
    (:func:`rollbridge.sent_kinds.sent_kind`)."""

    __slots__ = ("code", "data")

    def __init__(self, code: int, data: bytes) -> None:
        self.code = code
        self.data = data

    def __repr__(self) -> str:
        return f"SentExtension({self.code}, <{len(self.data)} bytes>)"


#: What ``unpack_received`` makes of msgpack's timestamp extension (type -1): the
#: codec reads that type itself, never calling ``ext_hook``, so a client's timestamp
#: is no :class:`SentExtension`; a request's checks name it as the extension it is.
SentTimestamp = msgpack.Timestamp


_SURROGATE = re.compile("[\ud800-\udfff]")


def valid(text: str) -> str:
    """``text`` with each lone surrogate (not valid Unicode) replaced by U+FFFD."""
    return text if valid_text(text) else _SURROGATE.sub("\ufffd", text)


#: How much of a client's value an error may quote back: characters of a text,
#: items of a list or map, levels of nesting.
QUOTE_CHARS, QUOTE_ITEMS, QUOTE_DEPTH = 200, 20, 4


def quotable(value: Any, _depth: int = 0) -> Any:
    """``value`` (from a client, quoted in an error's ``details``) made safe to send
    back in any frame: texts valid Unicode (a lone surrogate becomes U+FFFD) and at
    most :data:`QUOTE_CHARS` long, integers within 64 bits, numbers finite, lists
    and maps cut to :data:`QUOTE_ITEMS` items and :data:`QUOTE_DEPTH` levels, and
    anything else (bytes, msgpack extensions) named by its type only."""
    kind = value.__class__
    if kind is str:
        return valid(value)[:QUOTE_CHARS]
    if value is None or kind is bool:
        return value
    if kind is int:
        return value if -_LIMIT <= value < _LIMIT else str(value)[:QUOTE_CHARS]
    if kind is float:
        return value if math.isfinite(value) else str(value)
    if _depth >= QUOTE_DEPTH:
        return "…"
    if kind is list or kind is tuple:
        return [quotable(item, _depth + 1) for item in value[:QUOTE_ITEMS]]
    if kind is dict:
        return {
            quotable(key if key.__class__ is str else repr(key), _depth + 1): quotable(
                item, _depth + 1
            )
            for key, item in list(value.items())[:QUOTE_ITEMS]
        }
    return f"<{kind.__name__}>"


def copy_plain(value: Any) -> Any:
    """A deep copy of plain data, an order of magnitude faster than
    :func:`copy.deepcopy` (a msgpack round trip in C); tuples come back as lists."""
    return unpack(pack(value))


class Packed(bytes):
    """msgpack bytes of one value, to embed in a larger message as they are
    (:func:`pack_map`) instead of packing the value again."""

    __slots__ = ()


def pack_map(fields: Mapping[str, Any]) -> bytes:
    """A msgpack map of ``fields``, where :class:`Packed` values are written as
    they are. The result is exactly ``pack({k: unpack(v) if Packed else v})``."""
    plain: dict[str, Any] = {}
    tail: list[bytes] = []
    for key, value in fields.items():
        if value.__class__ is Packed:
            tail.append(packed_key(key))
            tail.append(value)
        elif tail:  # keep the order: once a Packed value came, pack one by one
            tail.append(packed_key(key))
            tail.append(pack(value))
        else:
            plain[key] = value
    return map_header(len(fields)) + map_body(pack(plain)) + b"".join(tail)


#: Map keys packed (:func:`packed_key`): the same few names, message after message.
_KEYS: dict[str, bytes] = {}
#: How many packed keys :data:`_KEYS` keeps (a bound: dropped all at once when full).
MAX_KEYS = 1024


def packed_key(key: str) -> bytes:
    """``pack(key)`` for a map's key, each string packed once (then kept, up to
    :data:`MAX_KEYS`). :raises NotPlain: as :func:`pack` for what it refuses."""
    found = _KEYS.get(key) if key.__class__ is str else None
    if found is None:
        found = pack(key)
        if key.__class__ is str:
            if len(_KEYS) >= MAX_KEYS:
                _KEYS.clear()
            _KEYS[key] = found
    return found


def pack_array(items: Sequence[Any]) -> bytes:
    """A msgpack array of values, :class:`Packed` ones as they are (their bytes written
    in place: a commit's events and actors packed once)."""
    return _array_header(len(items)) + b"".join(
        i if i.__class__ is Packed else pack(i) for i in items
    )


def join_array(blobs: Sequence[bytes]) -> bytes:
    """A msgpack array of values packed already: ``blobs``, each one value's bytes, in
    order (``pack_array`` of them as :class:`Packed`, without wrapping each)."""
    return _array_header(len(blobs)) + b"".join(blobs)


def _array_header(size: int) -> bytes:
    """The msgpack header of an array of ``size`` values."""
    if size < 16:
        return bytes((0x90 | size,))
    if size < 65536:
        return b"\xdc" + size.to_bytes(2, "big")
    return b"\xdd" + size.to_bytes(4, "big")  # pragma: no cover - a commit has a handful


def map_header(size: int) -> bytes:
    """The msgpack header of a map of ``size`` fields."""
    if size < 16:
        return bytes((0x80 | size,))
    if size < 65536:
        return b"\xde" + size.to_bytes(2, "big")
    return b"\xdf" + size.to_bytes(4, "big")


def map_body(packed: bytes) -> bytes:
    """A packed map's fields without its header (to write them into another map)."""
    marker = packed[0]
    if 0x80 <= marker <= 0x8F:
        return packed[1:]
    return packed[3:] if marker == 0xDE else packed[5:]


# -- JSON ------------------------------------------------------------------------


#: As :data:`_STRICT`, for orjson: dataclasses and datetimes go to ``default``.
#: (orjson writes enums and UUIDs whatever it is told. A table's events are packed
#: by :func:`pack` before their JSON is made, so one holding them is refused
#: there; the other messages the server writes are plain by construction.)
_JSON_STRICT = (
    _orjson.OPT_PASSTHROUGH_DATACLASS | _orjson.OPT_PASSTHROUGH_DATETIME
    if _orjson is not None
    else 0
)


def dumps_json(value: Any, default: Callable[[Any], Any] | None = None) -> str:
    """Plain data as compact JSON text (no spaces, Unicode as it is but DEL, the C1
    controls and U+2028, U+2029, which are ``\\u`` escapes as the C0 controls are:
    :func:`~rollbridge.visible.inert_json`). A frame, an event's view and the lines of
    a JSONL export are text one person wrote that others read in terminals and split
    into lines: the same data, one line each, nothing a terminal obeys.

    The value must be plain data (checked where it entered: a NaN that slipped
    through would come out as ``null`` with orjson, and be refused without it).

    :raises NotPlain: for an integer beyond 64 bits, invalid Unicode, a map key
        that is not a string, or another type.
    """
    if _orjson is not None:
        try:
            raw = _orjson.dumps(value, default=default, option=_JSON_STRICT)
        except Exception as exc:
            raise _explain(value, exc, default) from None
        return inert_json(raw)
    try:
        text = json.dumps(
            value, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=default
        )
    except Exception as exc:
        raise _explain(value, exc, default) from None
    return inert_json(text)


def loads_json(text: str | bytes) -> Any:
    """JSON text back as plain data.

    :raises ValueError: for text that is not JSON (with where it went wrong).
    """
    return json.loads(text)
