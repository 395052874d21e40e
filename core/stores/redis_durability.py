"""Whether a Redis keeps what it acknowledged (:func:`check_durability`).

The Redis store acknowledges a commit when the commit script returns. That
reply is durable only if Redis appended the script's writes to its AOF and
fsynced it before answering (``appendonly yes`` with ``appendfsync always``:
Redis fsyncs once per event-loop turn, before replies go out, so commits of
every client share an fsync), and if Redis never drops keys to make room
(``maxmemory-policy noeviction``: a full Redis refuses writes instead, so
nothing is acknowledged that is not kept). ``rollbridge serve`` refuses a
Redis with any of these problems unless the operator says so.

The settings can change while the server runs (``CONFIG SET appendonly no``): a
:class:`DurabilityWatch` checks them again before a commit, at most every
:data:`WATCH_EVERY` seconds, and refuses commits while a problem lasts.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import redis

from rollbridge.exceptions import StoreUnavailable

__all__ = ["REQUIRED", "WATCH_EVERY", "DurabilityWatch", "check_durability"]

#: Seconds between two checks of a watched Redis's settings (a commit between a
#: change of them and the next check is acknowledged as before).
WATCH_EVERY = 1.0

#: redis-py's errors of a Redis that does not answer.
_UNANSWERED = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)

#: The settings a durable Redis has, and why each matters.
REQUIRED: dict[str, tuple[str, str]] = {
    "appendonly": ("yes", "without the AOF a restart loses every change since the last snapshot"),
    "appendfsync": (
        "always",
        "any other fsync policy acknowledges commits that a crash or power loss can take back",
    ),
    "maxmemory-policy": (
        "noeviction",
        "an eviction policy may drop a table's keys when memory runs out",
    ),
}


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def check_durability(client: Any, *, unanswered: bool = False) -> list[str]:
    """The problems of a Redis that would lose acknowledged changes; ``[]`` if none.

    :param client: a ``redis.Redis`` client (any that answers ``CONFIG GET``).
    :param unanswered: raise redis-py's ``ConnectionError``/``TimeoutError`` (Redis
        not answering) instead of listing it, after one try rather than one per
        setting (each a socket timeout).

    Each problem names the setting, its value, the value needed and why. A Redis
    whose ``CONFIG`` command is refused (some hosted services rename it) cannot
    be checked: that is a problem too, so the operator decides.
    """
    problems = []
    for name, (wanted, why) in REQUIRED.items():
        try:
            answer = client.config_get(name)
        except Exception as exc:  # a refused CONFIG, a lost connection, …
            if unanswered and isinstance(exc, _UNANSWERED):
                raise
            problems.append(f"cannot read the Redis setting {name}: {type(exc).__name__}: {exc}")
            continue
        found = {_text(k): _text(v) for k, v in dict(answer).items()}
        value = found.get(name)
        if value is None:
            problems.append(f"Redis does not report the setting {name} (needed: {wanted})")
        elif value.lower() != wanted:
            problems.append(f"Redis has {name} {value}, needs {wanted}: {why}")
    return problems


class DurabilityWatch:
    """The settings of a Redis found durable at the start, checked again while it
    serves: :meth:`check` before each commit reads them at most every ``every``
    seconds (three ``CONFIG GET`` round trips), and raises while one of them would
    lose acknowledged changes. Turned back, they are taken again once the AOF that
    ``CONFIG SET appendonly yes`` starts writing is done (until then nothing is
    durable). A check that finds Redis not answering raises redis-py's error (the
    store's ``unreachable``) without waiting for the commit to time out too; one
    whose ``CONFIG`` is refused changes nothing.

    :param client: a ``redis.Redis`` client; ``where`` names the server in messages.
    """

    def __init__(
        self,
        client: Any,
        where: str,
        *,
        every: float = WATCH_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self.where = where
        self.every = every
        self._clock = clock
        self._checked: float | None = None
        #: What the last check found (None: durable).
        self.problem: StoreUnavailable | None = None

    def check(self) -> None:
        """:raises StoreUnavailable: the settings would lose what is committed now."""
        now = self._clock()
        if self._checked is None or now - self._checked >= self.every:
            self._checked = now
            self._read()
        if self.problem is not None:
            raise self.problem

    def _read(self) -> None:
        # not answering: raised at once (the store says so), not after a socket
        # timeout per setting and then the commit's own
        found = check_durability(self.client, unanswered=True)
        if any(p.startswith("cannot read") for p in found):
            return  # CONFIG refused now: the commit says what is wrong, if anything
        if not found and self.problem is not None and not self._aof_written():
            return
        self.problem = None
        if found:
            self.problem = StoreUnavailable(
                f"{self.where} was set to lose acknowledged changes while serving ("
                + "; ".join(found)
                + "): nothing was written; set it back (CONFIG SET), or restart the "
                "server with --redis-unsafe to take the risk",
                details={"reason": "not_durable", "problems": found},
            )

    def _aof_written(self) -> bool:
        """Whether no AOF rewrite is under way (the first one, after ``appendonly``
        was turned on, is what makes the AOF hold everything)."""
        try:
            info = self.client.info("persistence")
        except Exception:
            return False
        return not (info.get("aof_rewrite_in_progress") or info.get("aof_rewrite_scheduled"))
