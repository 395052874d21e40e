"""The server's defaults and limits, in one place the command line can read
without loading the server."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rollbridge.engine.table import MAX_ACTORS, MAX_EVENT_BYTES

if TYPE_CHECKING:
    from rollbridge.server.addresses import Network

__all__ = [
    "BUFFER_LIMIT",
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "HTTP_BURST_SECONDS",
    "HTTP_RATE_PER_ADDRESS",
    "MAX_CONNECTIONS",
    "MAX_PENDING",
    "PING_INTERVAL",
    "READER_THREADS",
    "SWEEP_INTERVAL",
    "TOKEN_CHECK_INTERVAL",
    "WRONG_TOKENS_PER_ADDRESS",
    "WRONG_TOKENS_PER_SITE",
    "Limits",
]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
#: Bytes written to one client and not yet sent before it is disconnected as too
#: slow (the kernel's socket buffer comes on top). A resume's welcome and missed
#: events count, and may fill half of it (more: the client gets the table as it is
#: now); a burst of group-committed requests queues a reply and an event each.
BUFFER_LIMIT = 4 * 1024 * 1024
#: Seconds between keepalive pings, and to wait for the pong.
PING_INTERVAL = 20.0
#: Seconds between checks for revoked tokens (``table tokens ID --revoke`` and
#: ``table delete`` run in another process): a client whose token is gone is
#: disconnected with 1008 within this time.
TOKEN_CHECK_INTERVAL = 5.0
#: Seconds between sweeps for idle tables still in memory: a backstop, as a table
#: leaves memory as soon as its last client has left and its reads and writes are
#: done; a sweep costs a look at each table in memory.
SWEEP_INTERVAL = 60.0
#: Threads that run store reads (token look-ups, loading tables, the log).
READER_THREADS = 2
#: Commits submitted and not yet written (or failed) before new changes are
#: refused with :class:`~rollbridge.exceptions.Busy`: a disk that stalls
#: makes clients wait and retry instead of growing the queue without end.
MAX_PENDING = 1024
#: Seconds a connection may stay open without a ``hello``.
HELLO_TIMEOUT = 10.0
#: Connections open at once, all clients together: with the fixed 4 MiB of unsent
#: bytes a client may hold (:data:`BUFFER_LIMIT`) it bounds what slow clients can
#: take of the server's memory (16 GiB at worst, at this default; a few MiB in
#: practice). Hundreds of tables of a handful of clients each fit well.
MAX_CONNECTIONS = 4096
#: Connections open at once from one client address (a whole group behind one
#: home router is a handful; a reverse proxy in front: raise it or set none).
PER_ADDRESS = 64
#: Connections open at once with one join token (a player with a laptop, a phone
#: and a reconnecting tab; the GM's token in several Foundry windows).
PER_TOKEN = 8
#: Requests per second per connection, on average (a burst may hold twice as many).
RATE_PER_CONNECTION = 20.0
#: Requests per second at one table, all its clients together.
RATE_PER_TABLE = 50.0
#: Plain HTTP requests per second from one client address, on average: the web
#: view's ~20 files per page load, a balancer's probe a second and a scrape fit
#: many times over (docs/operations.md, "Limits").
HTTP_RATE_PER_ADDRESS = 20.0
#: Seconds of :data:`HTTP_RATE_PER_ADDRESS` one address may send at once: a
#: household behind one router opening the web view together (bursts of 200).
HTTP_BURST_SECONDS = 10.0
#: Wrong tokens one client address may present in ten minutes (join tokens in a
#: ``hello``, admin and export tokens): all at once, then one more a minute.
WRONG_TOKENS_PER_ADDRESS = 10
#: How many times an address's wrong tokens the /64s of one IPv6 /48 may present
#: together (100 in ten minutes by default, then ten a minute): a holder of a /48
#: gets that many guesses, not 65,536 /64s' worth, while ten households of a /48
#: shared by its provider can mistype as often as one may (docs/operations.md,
#: "Limits").
WRONG_TOKENS_PER_SITE = 10
#: Seconds a client has to take its close frame before its connection is aborted.
CLOSE_TIMEOUT = 5.0
#: Seconds ``serve`` waits for its clients to close at shutdown before aborting them.
DRAIN_TIMEOUT = 10.0


@dataclass(frozen=True, slots=True)
class Limits:
    """What an operator bounds for a hosted server (``rollbridge serve`` options;
    None: no limit). The defaults are safe for a public server and leave room for
    any real table: docs/operations.md gives the reasoning and each close or error.

    :param hello_timeout: seconds a connection may stay without a ``hello`` (1008).
    :param max_connections: connections open at once, all clients together (1013).
    :param per_address: connections open at once from one client address, an IPv6
        /64 counted as one (:mod:`rollbridge.server.addresses`; 1013).
    :param per_token: connections open at once with one join token
        (``too_many_connections``, then 1008).
    :param rate_per_connection: requests per second of one connection, on average
        (bursts of twice as many; ``rate_limited`` with ``retry_after``).
    :param rate_per_table: requests per second at one table, all clients together.
    :param max_event_bytes: the largest event one request may make, packed
        (``event_too_large``); with ``--retain`` it bounds a table's log on disk.
    :param max_actors: the most actors one table holds (``limit_exceeded``).
    :param close_timeout: seconds a client has to take its close before its
        connection is aborted.
    :param drain_timeout: seconds ``serve`` gives its clients at shutdown.
    :param http_rate_per_address: plain HTTP requests per second from one client
        address (bursts of :data:`HTTP_BURST_SECONDS` of it; HTTP 429); the machine's
        own requests and a trusted proxy's are not counted
        (:func:`~rollbridge.server.addresses.rated_address`).
    :param wrong_tokens_per_address: wrong tokens one client address may present
        within ten minutes, and :data:`WRONG_TOKENS_PER_SITE` times it the /64s of
        one IPv6 /48 together; past them its tokens are refused unread
        (:class:`~rollbridge.protocol.limits.WrongTokens`; ``rate_limited``, 429).
    :param trusted_proxies: the operator's reverse proxies: a connection from one of
        them counts as the client its ``X-Forwarded-For`` names
        (:func:`~rollbridge.server.addresses.client_address`); none by default, so
        that no client can name itself another.
    """

    hello_timeout: float | None = HELLO_TIMEOUT
    max_connections: int | None = MAX_CONNECTIONS
    per_address: int | None = PER_ADDRESS
    per_token: int | None = PER_TOKEN
    rate_per_connection: float | None = RATE_PER_CONNECTION
    rate_per_table: float | None = RATE_PER_TABLE
    max_event_bytes: int = MAX_EVENT_BYTES
    max_actors: int | None = MAX_ACTORS
    close_timeout: float = CLOSE_TIMEOUT
    drain_timeout: float = DRAIN_TIMEOUT
    http_rate_per_address: float | None = HTTP_RATE_PER_ADDRESS
    wrong_tokens_per_address: int | None = WRONG_TOKENS_PER_ADDRESS
    trusted_proxies: tuple[Network, ...] = ()
