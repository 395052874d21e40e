"""How long an HTTP answer's ``Retry-After`` asks ``rollbridge connect`` to wait before
its next attempt (RFC 9110, section 10.2.3): a number of seconds, or an HTTP date.

A date counts from the answer's own ``Date`` where it has a readable one (the clock of
whoever answered, so that a client's clock set wrong does not stretch or cut the
wait), else from this machine's clock. A date that has passed, and a value that is
neither, ask for no wait: the backoff's next wait applies.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

__all__ = ["LONGEST", "retry_after_seconds"]

#: The longest wait a ``Retry-After`` is read as (about 31 years; callers cap it).
LONGEST = 999_999_999


def retry_after_seconds(
    headers: Mapping[str, str], clock: Callable[[], float] = time.time
) -> int | None:
    """The whole seconds ``headers``' ``Retry-After`` asks to wait (a date's rounded
    up), or None: no wait given (none, a date passed, unreadable). ``clock`` tells
    the time (seconds since the epoch) where the answer has no readable ``Date``."""
    given = headers.get("Retry-After", "").strip()
    if given.isascii() and given.isdigit():
        # a longer number is read as the longest wait written so (the caller caps it):
        # a proxy's thousand digits are no float, and Python reads at most 4,300
        return int(given) if len(given) <= len(str(LONGEST)) else LONGEST
    until = _http_date(given)
    if until is None:
        return None
    answered = _http_date(headers.get("Date", "").strip())
    now = answered.timestamp() if answered is not None else clock()
    seconds = math.ceil(until.timestamp() - now)
    return seconds if seconds > 0 else None


def _http_date(text: str) -> datetime | None:
    """``text`` read as an HTTP date (``Wed, 21 Oct 2026 07:28:00 GMT``, and the two
    obsolete forms RFC 9110 still takes), or None where it is not one."""
    if not text:
        return None
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)
