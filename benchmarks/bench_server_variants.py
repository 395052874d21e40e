"""Benchmark-only variants of the server, to measure proposed optimisations.

``bench_server.py throughput --variants NAME[+NAME...]`` runs, next to the real
server, servers with these changes patched in (in the server's own process,
before it starts). They are not fixes: each one cuts a corner that a real
change would have to keep (noted per variant), so its figure is the *most*
that change could gain. Nothing here is imported by rollbridge.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["VARIANTS", "apply"]


def no_reply_read(server: Any) -> None:
    """Skip the store's idempotency read (``SQLiteStore.reply``) on the event
    loop for requests the table does not remember.

    A real change needs the answer: an in-memory index of the reply keys
    stored for the table (loaded with the session), so that only a key in the
    index reaches SQLite; or a check in the writer thread before the commit."""
    server.store.reply = lambda table_id, key: None


def buffered_dice(server: Any) -> None:
    """Dice from the operating system's generator read 4 KiB at a time instead
    of one ``getrandom`` system call per die (``secrets.randbelow``): the same
    source, uniform by rejection sampling, an order of magnitude fewer calls.

    A real change would live in ``rollbridge.dice.sources`` with its own
    statistical tests; the buffer is per process here, per request there."""
    import os

    from rollbridge.dice.sources import DiceSource

    pool = bytearray()

    class BufferedSecureDice(DiceSource):
        def _draw(self, faces: int) -> int:
            nonlocal pool
            width = 1 if faces <= 256 else 4
            span = 1 << (8 * width)
            cutoff = span - span % faces
            while True:
                if len(pool) < width:
                    pool = bytearray(os.urandom(4096))
                value = int.from_bytes(pool[-width:], "big")
                del pool[-width:]
                if value < cutoff:
                    return value % faces + 1

    server.dice = BufferedSecureDice


def gc_freeze(server: Any) -> None:
    """Every 10 s, move every object the collector tracks into the permanent
    generation (``gc.freeze()``, O(1)), so that a full collection no longer walks
    the ~1,000,000 objects of 6,000 connections and 1,000 tables: with them, a
    generation-2 collection stops the event loop for several hundred ms.

    The catch a real change must handle: cyclic garbage created before a
    freeze is only collected after ``gc.unfreeze()``; freezing once the tables
    are loaded and after bursts of joins, and unfreezing now and then at a quiet
    moment, keeps that bounded."""
    import asyncio
    import gc

    original = server.start

    async def start() -> None:
        await original()

        async def freeze() -> None:
            while True:
                gc.freeze()
                await asyncio.sleep(10)

        server._bench_freezer = asyncio.get_running_loop().create_task(freeze())

    server.start = start


VARIANTS: dict[str, Callable[[Any], None]] = {
    "no-reply-read": no_reply_read,
    "buffered-dice": buffered_dice,
    "gc-freeze": gc_freeze,
}

# Measured earlier and since made real in the server: building each event view
# once (view memo), copying resolutions with a msgpack round trip instead of
# copy.deepcopy (fast copy), writing frames straight to the transport (direct
# send, which also dropped the sender task that held the last frame of every
# idle connection), and letting the writer linger 1 ms for bigger group commits.


def apply(spec: str, server: Any) -> None:
    """Apply ``"name+name..."`` to a server that has not started yet."""
    for name in spec.split("+"):
        if name not in VARIANTS:
            raise SystemExit(f"unknown variant {name!r} (known: {', '.join(VARIANTS)})")
        VARIANTS[name](server)
