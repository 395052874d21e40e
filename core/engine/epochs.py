"""Which epochs a table's history ran through, and from which seq each went on.

A restored backup moves its tables to a new epoch that goes on from the backup's
seq (:meth:`SQLiteStore.finish_restore
<rollbridge.stores.sqlite.SQLiteStore.finish_restore>`), and a Redis fence one that
goes on from the seq Redis holds (:func:`rollbridge.stores.redis_fence.fence`); each
records the move here: the events of the old epoch
after that seq, and of any epoch not in the table's history, are no longer the
table's. A client that keeps something of each event (the Foundry module's chat
cards) needs to know which are still the table's; the ``welcome`` tells it
(``epochs``, docs/protocol.md). The record is kept in the table's meta
(``epochs``: ``[[epoch, from], …]``, oldest first, the last the table's epoch now):
each epoch's events with a seq above its ``from`` and at most the next one's
``from`` are the table's history; ``from`` is None where the record does not know
it (the first epoch of a log cut at its start).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rollbridge.plain import JSON

__all__ = ["from_log", "moved", "shown"]

#: The most epochs a record keeps (the oldest dropped, its successor's ``from`` then
#: unknown): a table restored again and again keeps a record of bounded size.
MOST = 64


def from_log(rows: Iterable[tuple[int, int, int]]) -> list[list[Any]]:
    """The record a retained log shows: ``rows`` are its ``(first, last, epoch)``
    in seq order; each run of one epoch is an entry, going on from the seq before its
    first (the first entry's is 0 when the log starts at seq 1, else unknown)."""
    record: list[list[Any]] = []
    for first, _last, epoch in rows:
        if record and record[-1][0] == epoch:
            continue
        record.append([epoch, first - 1 if record or first == 1 else None])
    return record


def moved(
    record: Any, rows: Iterable[tuple[int, int, int]], epoch: int, seq: int, new: int
) -> list[list[Any]]:
    """The record after the table of ``epoch`` at ``seq`` moves to epoch ``new``: the
    stored ``record`` where it is one and ends at ``epoch``, else the one the
    retained log ``rows`` show (:func:`from_log`), and the new epoch from ``seq``.
    A retained log with no event of ``epoch`` reaches the table's ``seq`` with an
    earlier epoch's: ``epoch`` went on from ``seq`` and wrote nothing (a table moved
    twice with no event between, the first move unrecorded); only an empty log leaves
    its start unknown, as the record's first entry."""
    known = _valid(record)
    if known is None or known[-1][0] != epoch:
        known = from_log(rows)
        if not known or known[-1][0] != epoch:  # no event of this epoch retained
            known.append([epoch, seq if known else None])
    known.append([new, seq])
    if len(known) > MOST:  # what went before the oldest kept is not known any more
        known = known[-MOST:]
        known[0] = [known[0][0], None]
    return known


def shown(record: Any, epoch: int) -> list[JSON] | None:
    """The record as a ``welcome`` shows it (``[{"epoch", "from"}, …]``), or None
    where there is none for the table's ``epoch`` now (a table never restored nor
    fenced since it was recorded, or moved to another epoch since by an older server's
    fence, which did not record it)."""
    known = _valid(record)
    if known is None or known[-1][0] != epoch:
        return None
    return [{"epoch": e, "from": f} for e, f in known]


def _valid(record: Any) -> list[list[Any]] | None:
    """``record`` as a list of ``[epoch, from]`` where it is one (a meta is stored
    data: a damaged one reads as no record); else None."""
    if not isinstance(record, Sequence) or isinstance(record, str | bytes) or not record:
        return None
    out = []
    for entry in record:
        if not isinstance(entry, Sequence) or isinstance(entry, str | bytes) or len(entry) != 2:
            return None
        epoch, start = entry
        if type(epoch) is not int or not (start is None or type(start) is int):
            return None
        out.append([epoch, start])
    return out
