"""Stored events read for their changes alone: what ``state`` at an earlier seq needs.

``state`` at an earlier seq walks the table back through every event after it,
and reads nothing of them but their actors' and the table's changes
(:meth:`Table.view <rollbridge.engine.table.Table.view>`). A log full of the
largest rolls (~128 KiB of dice each) took a reader thread ~6 ms an event to
decode whole — seconds of the interpreter's lock for one request, every table's
clients waiting (hostile28). Here each stored event is read field by field:
:data:`KEPT` are decoded, every other field (the dice, the texts, the private
values) is stepped over by the msgpack reader without a Python object made for it,
some 60 times faster for such a log (``benchmarks/bench_large_reads.py``).

The msgpack reader itself is :mod:`rollbridge.plain`'s (:func:`~rollbridge.plain.unpack_kept`).
The stored form is unchanged: this reads the bytes every release wrote, and a
release before this one reads what this one writes.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rollbridge.engine.model import Event
from rollbridge.plain import JSON, unpack_kept, unpack_kept_maps

__all__ = ["KEPT", "event_changes", "events_changes"]

#: The fields of a stored event that are decoded (:meth:`Event.to_dict
#: <rollbridge.engine.model.Event.to_dict>`); an event read here has every other
#: field at its default.
KEPT = frozenset({"table", "epoch", "seq", "kind", "changes", "table_change"})


def _event(fields: JSON) -> Event:
    """An event of its :data:`KEPT` fields alone, read as :meth:`Event.from_dict
    <rollbridge.engine.model.Event.from_dict>` reads them."""
    return Event(
        table=fields["table"],
        epoch=int(fields["epoch"]),
        seq=int(fields["seq"]),
        kind=fields["kind"],
        changes=list(fields.get("changes") or []),
        table_change=fields.get("table_change"),
    )


#: What the stepping reader's faults say, as the whole read's codec says them, by
#: the names of msgpack's exception classes (:mod:`rollbridge.plain` alone imports
#: the codec): they carry no text, and a damaged row read for ``state`` at a seq was
#: logged as ``(FormatError: )`` where ``stats`` of the same row said ``(ValueError:
#: invalid type …)`` (hostile29).
_SAID = {
    "FormatError": "invalid type: a byte no msgpack value begins with",
    "StackError": "nested too deep",
    "OutOfData": "unexpected end of file",
}


@contextmanager
def _said() -> Iterator[None]:
    """The stepping reader's textless faults raised as :class:`ValueError` saying them."""
    try:
        yield
    except Exception as exc:
        said = _SAID.get(type(exc).__name__)
        if said is None:
            raise
        raise ValueError(said) from exc


def event_changes(blob: bytes) -> Event:
    """One stored event (a Redis log entry's bytes) with its changes alone.

    :raises ValueError: (or another exception of the codec, or ``KeyError``) bytes
        that are not a stored event, saying what is wrong with them."""
    with _said():
        fields = unpack_kept(blob, KEPT)
    return _event(fields)


def events_changes(blob: bytes) -> list[Event]:
    """The stored events of one array (a SQLite log row's ``events``), each with its
    changes alone.

    :raises ValueError: (or another exception of the codec, or ``KeyError``) bytes
        that are not an array of stored events, saying what is wrong with them."""
    with _said():
        found = unpack_kept_maps(blob, KEPT)
    return [_event(fields) for fields in found]
