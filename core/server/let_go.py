"""A large read's events dropped a few at a time, the event loop turning between.

A read of a log full of the largest events (``state`` at an early seq, ``stats``, a
resume's missed events) hands the event loop hundreds of events of up to 128 KiB
each, millions of objects. Dropped at once when the read's reply was sent, their
freeing held the interpreter for a quarter of a second and more, every table's
clients waiting (hostile27). :func:`let_go` frees :data:`STEP` of them a turn.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

__all__ = ["STEP", "let_go"]

#: Events freed in one turn of the event loop (the largest take ~0.3 ms each).
STEP = 4


def let_go(
    loop: asyncio.AbstractEventLoop,
    items: list[Any],
    step: int = STEP,
    done: Callable[[], None] | None = None,
) -> None:
    """Drop the last ``step`` of ``items`` now and the rest in later turns of
    ``loop``: ``items`` must be a list of the caller's own (a copy of a read's
    result: another holder of the events only makes each drop cheap). With the loop
    closed, the rest are dropped at once. ``done`` is called once the last is
    dropped (the collector manager's hold on its passes let go:
    :meth:`~rollbridge.server.collector.CollectorManager.hold`)."""
    del items[-step:]
    if items and not loop.is_closed():
        loop.call_soon(let_go, loop, items, step, done)
        return
    items.clear()
    if done is not None:
        done()
