"""Benchmark-only variants of the server, measured next to the real one.

``bench_server.py throughput|scale --variants NAME[+NAME...]`` runs, next to the
real server, servers with these changes patched in (in the server's own process,
before it starts). They are measurements, not candidates: ``sync-off`` gives up
durability to show what it costs, ``default-gc`` is the server without its
collector manager, ``as-is`` repeats the real server to show the machine's
noise. A variant for a proposed optimisation belongs here first, noting the
corner it cuts, so its figure is the most that change could gain. Nothing here
is imported by rollbridge.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["VARIANTS", "apply"]


def sync_off(server: Any) -> None:
    """SQLite with ``synchronous=OFF``: no fsync at all, so a commit is not
    durable (a power cut loses it). Not a candidate: it measures what the
    durability the issue asks for costs, next to everything else."""
    original = server.store._conn
    switched: set[int] = set()

    def conn() -> Any:
        connection = original()
        if id(connection) not in switched:  # once per connection (one per thread)
            connection.execute("PRAGMA synchronous = OFF")
            switched.add(id(connection))
        return connection

    for connection in server.store._connections:  # already open in this thread
        connection.execute("PRAGMA synchronous = OFF")
        switched.add(id(connection))
    server.store._conn = conn


def default_gc(server: Any) -> None:
    """Python's collector as it comes: no freezing (``Server(manage_gc=False)``),
    so full passes walk every connection and table (what the server did before
    :mod:`rollbridge.server.collector`)."""
    if getattr(server, "collector", None) is not None:
        server.collector = None


def as_is(server: Any) -> None:
    """No change: the same server measured again, later in the same run. How far
    its figures fall from the first run's is the noise of the machine."""


VARIANTS: dict[str, Callable[[Any], None]] = {
    "sync-off": sync_off,
    "default-gc": default_gc,
    "as-is": as_is,
}

# Measured earlier and since made real in the server: building each event view
# once (view memo), copying resolutions with a msgpack round trip instead of
# copy.deepcopy (fast copy), writing frames straight to the transport (direct
# send, which also dropped the sender task that held the last frame of every
# idle connection), letting the writer linger 1 ms for bigger group commits,
# a filter of stored reply keys (no-reply-read, made safe: rollbridge.protocol.
# keys), dice from a buffer of OS random bytes (buffered-dice:
# SecureDice), and freezing the heap for the collector (gc-freeze:
# rollbridge.server.collector, with full passes when the frozen heap grows).


def apply(spec: str, server: Any) -> None:
    """Apply ``"name+name..."`` to a server that has not started yet."""
    for name in spec.split("+"):
        if name not in VARIANTS:
            raise SystemExit(f"unknown variant {name!r} (known: {', '.join(VARIANTS)})")
        VARIANTS[name](server)
