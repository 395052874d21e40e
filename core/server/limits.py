"""The server's defaults and limits, in one place the command line can read
without loading the server."""

from __future__ import annotations

__all__ = [
    "BUFFER_LIMIT",
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "MAX_PENDING",
    "PING_INTERVAL",
    "READER_THREADS",
    "TOKEN_CHECK_INTERVAL",
]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
#: Bytes written to one client and not yet sent before it is disconnected as too
#: slow (the kernel's socket buffer comes on top). A resume's missed events do not
#: count; a burst of group-committed requests queues a reply and an event each.
BUFFER_LIMIT = 4 * 1024 * 1024
#: Seconds between keepalive pings, and to wait for the pong.
PING_INTERVAL = 20.0
#: Seconds between checks for revoked tokens (``table tokens ID --revoke`` and
#: ``table delete`` run in another process): a client whose token is gone is
#: disconnected with 1008 within this time.
TOKEN_CHECK_INTERVAL = 5.0
#: Threads that run store reads (token look-ups, loading tables, the log).
READER_THREADS = 2
#: Commits submitted and not yet written (or failed) before new changes are
#: refused with :class:`~rollbridge.exceptions.Busy`: a disk that stalls
#: makes clients wait and retry instead of growing the queue without end.
MAX_PENDING = 1024
