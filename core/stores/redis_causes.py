"""Which redis-py error is which cause, and what an operator checks: the one place
that reads redis-py's exceptions.

Two readers say the same cause in their own sentence: the store's typed errors
(:meth:`RedisStore._error <rollbridge.stores.redis.RedisStore._error>`: what became
of the change, then what to check) and the background loops' log lines of
``serve --redis`` (:func:`rollbridge.server.redis_advice.advice`). Each was its own
table, and they drifted apart: a pool with no connection free was "does not answer
… start it" to a client and a matter of latency in the log; a TLS certificate
refused, a ``NOREPLICAS`` or a script missing was redis-py's words alone to a client.

:func:`cause_of` names the cause (:class:`Cause`: a stable :attr:`~Cause.name`, what
Redis did, what to check); the store's ``details["reason"]`` codes stay as they were
(:attr:`Cause.reason`: ``unreachable`` is a connection refused, never made,
unanswered or closed alike), the message names the finer cause.
"""

from __future__ import annotations

import errno
import socket
from dataclasses import dataclass

import redis

from rollbridge.stores.redis_url import tls_refused

__all__ = ["Cause", "cause_of", "redis_words"]

#: What redis-py puts between a pipeline's command and Redis's answer.
_PIPELINE = ") of pipeline caused error: "

_PING = "redis-cli -h HOST -p PORT ping"


@dataclass(frozen=True, slots=True)
class Cause:
    """One cause of a failed call to Redis."""

    #: Stable name (``refused``, ``unreachable``, ``timeout``, ``refused_password``, …).
    name: str
    #: What Redis did (lower case, after ``redis HOST:PORT/DB``).
    did: str
    #: What the operator checks (lower case, no full stop).
    check: str
    #: The store's ``details["reason"]`` when it refuses every call for now (a
    #: :class:`~rollbridge.exceptions.StoreUnavailable`); None: a plain store error.
    reason: str | None = None

    def check_in(self, option: str) -> str:
        """:attr:`check`, naming ``option`` where the Redis URL was given (``--redis
        (or $ROLLBRIDGE_REDIS)``, ``--to``)."""
        return self.check.replace("{option}", option)


def redis_words(error: BaseException) -> str:
    """What ``error`` says, for a log line. Of a command in a redis-py pipeline, only
    what Redis answered: redis-py puts the command and its arguments first — a
    packed request (bytes shown as garbage), a player's message."""
    text = str(error) or type(error).__name__
    if text.startswith("Command # ") and _PIPELINE in text:
        return text.split(_PIPELINE, 1)[1]
    return text


def _chain(error: BaseException) -> list[BaseException]:
    """``error`` and the exceptions it was raised from or during."""
    seen: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and all(current is not known for known in seen):
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


_NO_ROUTE = {errno.EHOSTUNREACH, errno.ENETUNREACH, errno.EHOSTDOWN}


def _connection_cause(error: BaseException) -> Cause:
    """A connection that failed: refused, never made, made and left unanswered, or
    closed. redis-py keeps the socket's error as the cause of its own, or only its
    words (``Error 111 connecting to …``, ``Timeout connecting to server``)."""
    chain, said = _chain(error), str(error)
    if any(isinstance(e, ConnectionRefusedError) for e in chain) or "Connection refused" in said:
        return REFUSED
    no_route = any(isinstance(e, OSError) and e.errno in _NO_ROUTE for e in chain)
    unknown = any(isinstance(e, socket.gaierror) for e in chain) or "Name or service" in said
    if no_route or unknown or "Timeout connecting" in said:
        return UNREACHABLE
    if isinstance(error, redis.exceptions.TimeoutError | TimeoutError) or "Timeout" in said:
        return TIMEOUT
    return DROPPED


def cause_of(error: BaseException) -> Cause:
    """The cause of ``error``, raised by redis-py (or the socket under it) talking
    to Redis."""
    said = redis_words(error)
    if isinstance(error, redis.exceptions.AuthenticationError):
        return REFUSED_PASSWORD
    if "max number of clients reached" in said:
        return MAX_CLIENTS
    if isinstance(error, redis.exceptions.MaxConnectionsError) or said.startswith(
        "No connection available"
    ):  # this process's pool, not Redis: every connection in use, none came free in time
        return POOL_EXHAUSTED
    if tls_refused(error):
        return TLS
    if isinstance(error, redis.exceptions.OutOfMemoryError) or said.startswith("OOM "):
        return OUT_OF_MEMORY
    if isinstance(error, redis.exceptions.ReadOnlyError | redis.exceptions.MasterDownError):
        return READ_ONLY
    if said.startswith("READONLY ") or said.startswith("MASTERDOWN "):
        return READ_ONLY
    if said.startswith("NOREPLICAS"):
        return NO_REPLICAS
    if said.startswith("BUSY "):
        return BUSY_SCRIPT
    if isinstance(error, redis.exceptions.NoPermissionError) or said.startswith("NOPERM"):
        return NO_PERMISSION
    if said.startswith("MISCONF"):
        return NOT_PERSISTING
    if isinstance(error, redis.exceptions.BusyLoadingError) or said.startswith("LOADING "):
        return LOADING
    if isinstance(error, redis.exceptions.NoScriptError) or said.startswith("NOSCRIPT"):
        return SCRIPT_MISSING
    silent = redis.exceptions.ConnectionError | redis.exceptions.TimeoutError | OSError
    if isinstance(error, silent):
        return _connection_cause(error)
    if isinstance(error, redis.exceptions.InvalidResponse):
        return NOT_REDIS
    if isinstance(error, redis.exceptions.ResponseError):
        return REFUSED_COMMAND
    return UNEXPECTED


REFUSED = Cause(
    "refused",
    "does not answer",
    f"check that it runs ({_PING}) and the URL's port: nothing accepts connections "
    "there (connection refused)",
    "unreachable",
)
UNREACHABLE = Cause(
    "unreachable",
    "does not answer",
    "check that this host reaches it (the URL's host, a name not resolved, a route, a "
    "firewall dropping packets): no connection was made within the client's connect "
    "timeout",
    "unreachable",
)
TIMEOUT = Cause(
    "timeout",
    "does not answer in time",
    "it took the connection but sent no reply within the client's timeout: check that "
    "its process is not stopped or hung, and its latency (redis-cli --latency, "
    "SLOWLOG GET)",
    "unreachable",
)
DROPPED = Cause(
    "dropped",
    "does not answer",
    f"check that it runs ({_PING}) and that this host reaches it: the connection "
    "was closed (a restart, a proxy with nothing behind it, a firewall)",
    "unreachable",
)
REFUSED_PASSWORD = Cause(
    "refused_password",
    "refuses the password (or user) this process gives",
    "check its requirepass or ACL against the URL given in {option}: set it back, or "
    "start every process again with the new one in {option}",
    "refused_password",
)
MAX_CLIENTS = Cause(
    "max_clients",
    "has as many clients as its maxclients allows and refuses a new connection",
    "raise maxclients (CONFIG SET maxclients, and the limit of open files), or close "
    "clients that need not be there",
    "max_clients",
)
POOL_EXHAUSTED = Cause(
    "pool_exhausted",
    "answered too slowly for this process",
    "all its connections to it were in use (as many as its pool holds, or the URL's "
    "max_connections) and none came free within the client's timeout: check Redis's "
    "latency (redis-cli --latency, SLOWLOG GET) and this process's load",
    "unreachable",
)
TLS = Cause(
    "tls",
    "answers in TLS but the handshake failed",
    "check its certificate (expired, renewed by another CA, made out to another "
    "host) against the URL's ssl_ca_certs, and the client certificate the URL gives "
    "(tls-auth-clients)",
    "unreachable",
)
OUT_OF_MEMORY = Cause(
    "out_of_memory",
    "is out of memory (maxmemory)",
    "free memory or raise maxmemory",
    "out_of_memory",
)
READ_ONLY = Cause(
    "read_only",
    "is a read-only replica",
    "point {option} at its primary",
    "read_only",
)
NO_REPLICAS = Cause(
    "no_replicas",
    "refuses writes: fewer of its replicas answer than its min-replicas-to-write asks",
    "check its replicas (INFO replication)",
)
BUSY_SCRIPT = Cause(
    "busy_script",
    "is running a script past its busy-reply-threshold and answers nothing else until it ends",
    "SCRIPT KILL (FUNCTION KILL) ends one that has written nothing",
)
NO_PERMISSION = Cause(
    "no_permission",
    "refuses a command to this process's user",
    "check the user's ACL rules (+@all)",
)
NOT_PERSISTING = Cause(
    "not_persisting",
    "cannot save to its disk and refuses writes",
    "its own log says why (a failed RDB save or AOF write: a full or unwritable disk, "
    "its dir); mend that, then BGSAVE (or BGREWRITEAOF)",
    "not_persisting",
)
LOADING = Cause(
    "loading",
    "is loading its data after a restart",
    "it answers once loaded (INFO persistence: loading)",
    "unreachable",
)
SCRIPT_MISSING = Cause(
    "script_missing",
    "does not hold a script this process loaded (SCRIPT FLUSH, a restart without "
    "its data, a failover)",
    "the process loads it again at its next call; check what flushed Redis's "
    "scripts if this repeats",
)
NOT_REDIS = Cause(
    "not_redis",
    "answers, but not as Redis does",
    "check that the URL's HOST:PORT is Redis, not another service or a proxy with "
    "nothing behind it",
)
REFUSED_COMMAND = Cause(
    "refused_command",
    "refused a command",
    "its log, and the version it runs (7.0 or later), say more",
)
UNEXPECTED = Cause(
    "unexpected",
    "failed in an unexpected way",
    "the server's log around this line says more",
)
