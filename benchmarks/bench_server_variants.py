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

import asyncio
from collections.abc import Callable
from typing import Any

__all__ = ["LOOP_VARIANTS", "VARIANTS", "apply", "before_loop"]


def _pragma(server: Any, statement: str) -> None:
    """Run ``statement`` on every connection of the server's SQLite store, those
    open already and those its threads open later."""
    original = server.store._conn
    done: set[int] = set()

    def conn() -> Any:
        connection = original()
        if id(connection) not in done:
            connection.execute(statement)
            done.add(id(connection))
        return connection

    for connection in server.store._connections:
        connection.execute(statement)
        done.add(id(connection))
    server.store._conn = conn


def sync_off(server: Any) -> None:
    """SQLite with ``synchronous=OFF``: no fsync at all, so a commit is not
    durable (a power cut loses it). Not a candidate: it measures what the
    durability the issue asks for costs, next to everything else."""
    _pragma(server, "PRAGMA synchronous = OFF")


def wal_coalesce(server: Any) -> None:
    """Checkpoint the WAL every 10,000 pages instead of SQLite's 1,000: a page
    written by many commits (an index leaf) is copied into the database once per
    checkpoint, so fewer copies. The WAL file grows to ~40 MB before it is reset.
    Measured 3 December: 878 against 911 µs per request, the writer's share of
    the core unchanged (0.16–0.20): within the noise."""
    _pragma(server, "PRAGMA wal_autocheckpoint = 10000")


def page_cache(server: Any) -> None:
    """64 MiB of SQLite page cache per connection instead of 2 MB: index pages
    stay in memory, not read back from the OS. Measured 3 December: 879 against
    911 µs per request (with wal-coalesce 900): within the noise."""
    _pragma(server, "PRAGMA cache_size = -65536")


def recv_64k(server: Any) -> None:
    """Each connection's transport reads at most 64 KiB at a time instead of
    asyncio's 256 KiB: a buffer under glibc's mmap threshold comes from the heap,
    where asyncio's costs an mmap, an mremap and a munmap per read (strace shows
    them). Measured 3 December: 865 against 851 µs per request (as-is 824): no
    gain."""
    from rollbridge.server import client as client_module

    original = client_module.Client.__init__

    def init(self: Any, connection: Any, *args: Any, **kwargs: Any) -> None:
        original(self, connection, *args, **kwargs)  # the client's own arguments, as they are
        connection.transport.max_size = 64 * 1024

    client_module.Client.__init__ = init


def default_gc(server: Any) -> None:
    """Python's collector as it comes: no freezing (``Server(manage_gc=False)``),
    so full passes walk every connection and table (what the server did before
    :mod:`rollbridge.server.collector`)."""
    if getattr(server, "collector", None) is not None:
        server.collector = None


def as_is(server: Any) -> None:
    """No change: the same server measured again, later in the same run. How far
    its figures fall from the first run's is the noise of the machine."""


def gc_young(server: Any) -> None:
    """The collector's young generation 20,000 objects instead of 700: most of
    a request's containers are freed by reference counting before a young pass
    would walk them. Cycles among young objects wait a little longer.
    Measured 3 December: no gain (callgrind, bench_instructions.py's mix: 4.327
    against 4.318 M instructions per pair; wall clock within the noise)."""
    import gc

    gc.set_threshold(20_000, 10, 10)


def wire_once(server: Any) -> None:
    """Each frame serialised as a WebSocket frame once, its bytes written to every
    plain open connection's transport (websockets' broadcast serialises it per
    connection). The corner it cuts: it writes below websockets' protocol object,
    relying on its internals (``writes``, ``send_in_progress``) to fall back
    where that is unsafe. Measured 3 December: 948 against 986 µs per request
    (as-is 931): within the noise, so not made real. Since the outbox it applies to
    the frames written alone (the outbox's ``broadcast``), not to a batch's."""
    from websockets.frames import Frame, Opcode
    from websockets.protocol import State

    from rollbridge.server import outbox as outbox_module

    last: list[Any] = [None, b""]
    original = outbox_module.broadcast

    def broadcast(connections: Any, message: Any) -> None:
        (connection,) = connections
        protocol = connection.protocol
        if (
            protocol.state is not State.OPEN
            or connection.send_in_progress is not None
            or protocol.extensions
            or protocol.debug
            or protocol.writes
        ):
            original(connections, message)
            return
        if last[0] is not message:
            if isinstance(message, str):
                wire = Frame(Opcode.TEXT, message.encode()).serialize(mask=False)
            else:
                wire = Frame(Opcode.BINARY, message).serialize(mask=False)
            last[0], last[1] = message, wire
        connection.transport.write(last[1])

    outbox_module.broadcast = broadcast


def frame_by_frame(server: Any) -> None:
    """The outbox's batches off: every frame written to its connection on its own,
    one ``send`` system call each, as before 3 December (what writing a group
    commit's frames together buys; docs/performance.md, "Deliveries written
    together")."""
    import contextlib

    from rollbridge.server.outbox import Outbox

    class Unbatched(Outbox):
        __slots__ = ()

        @contextlib.contextmanager
        def batch(self) -> Any:
            yield

    server.outbox = Unbatched()


def row_by_row(server: Any) -> None:
    """The group commit as before 3 December (afternoon): a statement per row
    (``executemany``: a GIL release and take per row) and each table's head read
    again at every group commit, not kept while ``PRAGMA data_version`` shows no
    other writer (what the lean group commit buys; docs/performance.md, "A lean
    group commit")."""
    from rollbridge.stores import sqlite

    def insert(conn: Any, head: str, width: int, rows: list[tuple]) -> None:
        conn.executemany(f"{head} ({', '.join('?' * width)})", rows)

    sqlite._insert = insert  # type: ignore[assignment]
    store, commit_many = server.store, server.store.commit_many

    def forgetful(items: Any) -> None:
        store._local.heads = None
        commit_many(items)

    store.commit_many = forgetful


VARIANTS: dict[str, Callable[[Any], None]] = {
    "sync-off": sync_off,
    "default-gc": default_gc,
    "as-is": as_is,
    "gc-young": gc_young,
    "uvloop": as_is,  # its loop is set by before_loop
    "wire-once": wire_once,
    "wal-coalesce": wal_coalesce,
    "page-cache": page_cache,
    "recv-64k": recv_64k,
    "frame-by-frame": frame_by_frame,
    "row-by-row": row_by_row,
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


#: Variants that replace the event loop: applied before it is made, in the server's process.
LOOP_VARIANTS: dict[str, Callable[[], None]] = {}


def _uvloop() -> None:
    """uvloop's event loop (libuv, in C) instead of asyncio's selector loop. Not a
    dependency of rollbridge: ``pip install uvloop`` to measure it. Measured 3
    December: 739 against 805 µs per request in one run, 840 against 873 (as-is
    867) in the next; too little to take a dependency for (docs/performance.md)."""
    try:
        import uvloop
    except ImportError:
        raise SystemExit("the uvloop variant needs uvloop: pip install uvloop") from None
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())


LOOP_VARIANTS["uvloop"] = _uvloop


def before_loop(spec: str) -> None:
    """Apply the loop variants in ``"name+name..."`` (before ``asyncio.run``)."""
    for name in spec.split("+"):
        if name in LOOP_VARIANTS:
            LOOP_VARIANTS[name]()


def apply(spec: str, server: Any) -> None:
    """Apply ``"name+name..."`` to a server that has not started yet."""
    for name in spec.split("+"):
        if name not in VARIANTS:
            raise SystemExit(f"unknown variant {name!r} (known: {', '.join(VARIANTS)})")
        VARIANTS[name](server)
