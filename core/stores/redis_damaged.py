"""Entries the Redis store cannot unpack (bytes damaged by hand, by another program
or by a restore of a wrong file): a :class:`~rollbridge.exceptions.StoreError` with
the stable ``reason`` ``damaged`` naming the table and the Redis key, as the SQLite
store's damaged rows are (docs/redis.md "Damaged entries"). The client sees
``store_error``; the operator's log names the table and the key."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import TypeVar

from rollbridge.engine.model import Event
from rollbridge.exceptions import StoreError
from rollbridge.text import Messages

say = Messages("rollbridge")

T = TypeVar("T")

#: The ``reason`` of every error of this module.
DAMAGED = "damaged"

# Translators: {table} a table's id; {key} a Redis key's name; {error} Python's
# (English) reason.
DAMAGED_EVENT = say(
    "store.redis.damaged_event",
    "table {table}: a stored event in Redis key {key} cannot be read ({error}): Redis's "
    "data is damaged; restore it from a backup",
)

# Translators: {table} a table's id; {key} a Redis key's name; {error} Python's
# (English) reason.
DAMAGED_STATE = say(
    "store.redis.damaged_state",
    "table {table}: its stored state in Redis key {key} cannot be read ({error}): Redis's "
    "data is damaged; restore it from a backup",
)

# Translators: {table} a table's id; {request} a request's idempotency key; {key} a
# Redis key's name; {error} Python's (English) reason.
DAMAGED_REPLY = say(
    "store.redis.damaged_reply",
    "table {table}: the stored reply to request {request} in Redis key {key} cannot be "
    "read ({error}): Redis's data is damaged; restore it from a backup",
)


# Translators: {key} a Redis key's name; {error} Python's (English) reason.
DAMAGED_ADMIN = say(
    "store.redis.damaged_admin",
    "an admin token in Redis key {key} cannot be read ({error}): Redis's data is "
    "damaged; restore it from a backup",
)


def _why(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:200]


def damaged(
    table_id: str, key: str, exc: BaseException, *, request: str | None = None
) -> StoreError:
    """The error of an entry of table ``table_id`` at Redis key ``key`` that could
    not be unpacked (``exc`` why); ``request``: a stored reply's idempotency key."""
    details = {"reason": DAMAGED, "table": table_id, "key": key}
    if isinstance(exc, ValueError) and str(exc).startswith("its field "):  # (numbers)
        return StoreError(DAMAGED_STATE(table=table_id, key=key, error=str(exc)), details=details)
    if request is not None:
        words = DAMAGED_REPLY(table=table_id, request=request, key=key, error=_why(exc))
        return StoreError(words, details={**details, "request": request})
    return StoreError(DAMAGED_EVENT(table=table_id, key=key, error=_why(exc)), details=details)


#: The fields of a table's ``info`` hash that hold numbers, the scripts' ``tonumber``
#: reads (``wanted``: seqs and commas).
NUMERIC = ("epoch", "seq", "created", "pos", "tokpos", "undos", "undos_to", "wanted")


def _number(value: bytes, field: str) -> bool:
    """Whether ``value`` is a number as the scripts read field ``field``."""
    text = value.decode("ascii", errors="replace")
    if field == "wanted":
        return all(part.isdigit() for part in text.split(",") if part)
    if "_" in text:  # Python's float reads 1_0, Lua's tonumber does not
        return False
    try:
        number = float(text)
    except ValueError:
        return False
    # inf and nan: Lua's tonumber reads them (C's strtod), and the script goes on to
    # refuse a commit against epoch or seq -2**63; no seq or time rollbridge writes
    return math.isfinite(number)


def numbers(table_id: str, key: str, values: Iterable[bytes | None]) -> StoreError | None:
    """The error of a table whose ``info`` hash (at ``key``) holds a field of
    :data:`NUMERIC` (``values``, in that order) that is no number, or None: a script
    reading it fails in Redis (``attempt to compare nil with number``), which else
    reads as Redis refusing the script."""
    for field, value in zip(NUMERIC, values, strict=True):
        if value is not None and not _number(value, field):
            return damaged(table_id, key, ValueError(f"its field {field!r} holds no number"))
    return None


def events(
    table_id: str,
    key: str,
    blobs: Iterable[bytes],
    decode: Callable[[bytes], Event] = Event.unpacked,
) -> list[Event]:
    """The events of a table's log ``key`` from their stored bytes, whole or as
    ``decode`` reads them (:func:`~rollbridge.stores.actor_changes.event_changes`:
    their changes alone).

    :raises StoreError: (``reason`` ``damaged``) one cannot be unpacked."""
    try:
        return [decode(blob) for blob in blobs]
    except Exception as exc:
        raise damaged(table_id, key, exc) from exc


def state(table_id: str, key: str, read: Callable[[], T]) -> T:
    """``read()`` of a table's stored state (its info, meta and actors at ``key``).

    :raises StoreError: (``reason`` ``damaged``) it cannot be unpacked."""
    try:
        return read()
    except StoreError:
        raise
    except Exception as exc:
        words = DAMAGED_STATE(table=table_id, key=key, error=_why(exc))
        raise StoreError(words, details={"reason": DAMAGED, "table": table_id, "key": key}) from exc


def admin(key: str, read: Callable[[], T]) -> T:
    """``read()`` of an admin token's record at ``key`` (no table's).

    :raises StoreError: (``reason`` ``damaged``, naming the key) it cannot be unpacked."""
    try:
        return read()
    except Exception as exc:
        words = DAMAGED_ADMIN(key=key, error=_why(exc))
        raise StoreError(words, details={"reason": DAMAGED, "key": key}) from exc
