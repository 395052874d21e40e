"""What an operator checks when a call to Redis fails in a background loop.

The loops of ``serve --redis`` (the inbox, the subscription, the polls, the leases,
the shared limits) logged redis-py's own words — ``Error 111 connecting to
127.0.0.1:6379. Connection refused.``, ``invalid username-password pair or user is
disabled.``, an exception's repr at a stop — which say what the library met, not
what rollbridge was doing nor what to look at. :func:`advice` says, for a log line,
what Redis did and what to check, with redis-py's words kept after it as the
detail (its type and message, of a pipeline's command only Redis's answer).
"""

from __future__ import annotations

import redis

from rollbridge.server.throttle import cause
from rollbridge.stores.redis_url import tls_refused

__all__ = ["advice"]


def advice(error: BaseException, where: str) -> str:
    """What ``error`` (met talking to Redis at ``where``, ``redis HOST:PORT``) means
    and what to check, then redis-py's words in brackets."""
    return f"{where} {_problem(error)} ({type(error).__name__}: {cause(error)})"


def _problem(error: BaseException) -> str:
    """What Redis did, and what to check (lower case; no full stop). Redis's answer is
    read without what redis-py puts before a pipeline's (``Command # 1 (…) of
    pipeline caused error:``), which hid a ``MISCONF`` or a ``NOPERM``."""
    said = cause(error)
    if isinstance(error, redis.exceptions.AuthenticationError):
        return (
            "refuses the password (or user) this process gives: check its requirepass "
            "or ACL against the URL the process was started with (--redis, ROLLBRIDGE_REDIS)"
        )
    if "max number of clients reached" in said:
        return (
            "has as many clients as its maxclients allows: raise maxclients (and the "
            "limit of open files), or close clients that need not be there"
        )
    if isinstance(error, redis.exceptions.MaxConnectionsError) or said.startswith(
        "No connection available"
    ):  # this process's pool, not Redis: every connection in use, none came free in time
        return (
            "answered too slowly for this process: all its connections to it were in use "
            "(as many as its pool holds, or the URL's max_connections) and none came free "
            "within the client's timeout: check Redis's latency (redis-cli --latency, "
            "SLOWLOG GET) and this process's load"
        )
    if tls_refused(error):
        return (
            "answers in TLS but the handshake failed: check its certificate (expired, "
            "renewed by another CA, made out to another host) against the URL's "
            "ssl_ca_certs, and the client certificate the URL gives (tls-auth-clients)"
        )
    if isinstance(error, redis.exceptions.OutOfMemoryError):
        return "is out of memory (maxmemory): free memory or raise maxmemory"
    if isinstance(error, redis.exceptions.ReadOnlyError | redis.exceptions.MasterDownError):
        return "is a replica (read-only, or cut off from its primary): point the URL at the primary"
    if said.startswith("NOREPLICAS"):
        return (
            "refuses writes: fewer of its replicas answer than its min-replicas-to-write "
            "asks: check its replicas (INFO replication)"
        )
    if said.startswith("BUSY "):
        return (
            "is running a script past its busy-reply-threshold and answers nothing else "
            "until it ends: SCRIPT KILL (FUNCTION KILL) ends one that has written nothing"
        )
    if isinstance(error, redis.exceptions.NoPermissionError) or said.startswith("NOPERM"):
        return "refuses a command to this process's user: check the user's ACL rules (+@all)"
    if said.startswith("MISCONF"):
        return "cannot save to its disk and refuses writes: its own log says why"
    if isinstance(error, redis.exceptions.BusyLoadingError):
        return "is loading its data after a restart: it answers once loaded"
    silent = redis.exceptions.ConnectionError | redis.exceptions.TimeoutError | OSError
    if isinstance(error, silent):
        return (
            "does not answer: check that it runs (redis-cli -h HOST -p PORT ping) and "
            "that this host reaches it"
        )
    if isinstance(error, redis.exceptions.InvalidResponse):
        return (
            "answers, but not as Redis does: check that the URL's HOST:PORT is Redis, "
            "not another service or a proxy with nothing behind it"
        )
    if isinstance(error, redis.exceptions.ResponseError):
        return "refused a command: its log, and the version it runs (7.0 or later), say more"
    return "failed in an unexpected way: the server's log around this line says more"
