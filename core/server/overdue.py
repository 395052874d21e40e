"""The refusal of a read of the log while reads have held the collector off too long.

Reads of the log hold the garbage collector's passes off while they decode
(:meth:`~rollbridge.server.collector.CollectorManager.quiet`). Once such reads have
followed one another for :data:`~rollbridge.server.collector.MAX_QUIET` seconds
the manager is :attr:`~rollbridge.server.collector.CollectorManager.overdue`: a
read a client asks then (``state`` at an earlier seq or with ``undone``, ``stats``)
is refused before it begins, so that the reads out end and the manager steps
without walking their objects — one ``stats`` longer than the bound met a full pass
over its millions of objects, 5–6.5 s of every table's clients waiting (hostile29).
"""

from __future__ import annotations

from rollbridge.exceptions import RateLimited
from rollbridge.protocol.connection import retry_after, said_seconds
from rollbridge.server.collector import FREEZE_INTERVAL
from rollbridge.text import Messages

__all__ = ["overdue_refusal"]

say = Messages("rollbridge")
# Translators: {seconds} is a number of seconds.
READS_OVERDUE = say(
    "limit.reads_overdue",
    "the server has been reading logs without a pause for too long; nothing was read: "
    "try again in {seconds} s",
)


def overdue_refusal() -> RateLimited:
    """``rate_limited`` with ``"scope": "server"``: asked again after the manager's
    next step (:data:`~rollbridge.server.collector.FREEZE_INTERVAL`)."""
    retry = retry_after(FREEZE_INTERVAL)
    return RateLimited(READS_OVERDUE(seconds=said_seconds(retry)),
                       details={"retry_after": retry, "scope": "server"})  # fmt: skip
