"""What an operator checks when a call to Redis fails in a background loop.

The loops of ``serve --redis`` (the inbox, the subscription, the polls, the leases,
the shared limits) logged redis-py's own words — ``Error 111 connecting to
127.0.0.1:6379. Connection refused.``, ``invalid username-password pair or user is
disabled.``, an exception's repr at a stop — which say what the library met, not
what rollbridge was doing nor what to look at. :func:`advice` says, for a log line,
what Redis did and what to check, with redis-py's words kept after it as the
detail (its type and message, of a pipeline's command only Redis's answer). Which
error is which cause is :mod:`rollbridge.stores.redis_causes`'s, the store's too.
"""

from __future__ import annotations

from rollbridge.stores.redis_causes import cause_of, redis_words
from rollbridge.stores.redis_url import OPTION_OR_ENV

__all__ = ["advice"]


def advice(error: BaseException, where: str) -> str:
    """What ``error`` (met talking to Redis at ``where``, ``redis HOST:PORT``) means
    and what to check (:func:`~rollbridge.stores.redis_causes.cause_of`, as the
    store's own errors say it), then redis-py's words in brackets. Redis's answer is
    read without what redis-py puts before a pipeline's (``Command # 1 (…) of
    pipeline caused error:``), which hid a ``MISCONF`` or a ``NOPERM``."""
    found = cause_of(error)
    said = f"{found.did}: {found.check_in(OPTION_OR_ENV().render())}"
    return f"{where} {said} ({type(error).__name__}: {redis_words(error)})"
