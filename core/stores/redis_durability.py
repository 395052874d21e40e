"""Whether a Redis keeps what it acknowledged (:func:`check_durability`, in English;
:func:`durability_problems`, as catalogue texts).

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
from rollbridge.text import Message, Messages, Text

__all__ = [
    "REQUIRED",
    "WATCH_EVERY",
    "DurabilityWatch",
    "check_durability",
    "durability_problems",
    "in_english",
]

#: Seconds between two checks of a watched Redis's settings (a commit between a
#: change of them and the next check is acknowledged as before).
WATCH_EVERY = 1.0

#: redis-py's errors of a Redis that does not answer.
_UNANSWERED = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)

say = Messages("rollbridge")
#: The settings a durable Redis has, and why each matters.
REQUIRED: dict[str, tuple[str, Message]] = {
    "appendonly": (
        "yes",
        # Translators: why Redis needs "appendonly yes"; the AOF is Redis's append-only
        # file (its log of writes), a snapshot its RDB dump.
        say(
            "store.redis.why.appendonly",
            "without the AOF a restart loses every change since the last snapshot",
        ),
    ),
    "appendfsync": (
        "always",
        # Translators: why Redis needs "appendfsync always" (fsync: the write to disk).
        say(
            "store.redis.why.appendfsync",
            "any other fsync policy acknowledges commits that a crash or power loss can take back",
        ),
    ),
    "maxmemory-policy": (
        "noeviction",
        # Translators: why Redis needs "maxmemory-policy noeviction" (eviction: Redis
        # deleting keys to make room).
        say(
            "store.redis.why.maxmemory_policy",
            "an eviction policy may drop a table's keys when memory runs out",
        ),
    ),
}
# Translators: {name} is a Redis setting (appendonly, …), typed as it is; {error} what
# the Redis client said, in English.
CANNOT_READ = say("store.redis.cannot_read", "cannot read the Redis setting {name}: {error}")
# Translators: {name} is a Redis setting, {wanted} the value it needs (both as typed).
NOT_REPORTED = say(
    "store.redis.not_reported", "Redis does not report the setting {name} (needed: {wanted})"
)
# Translators: {name} a Redis setting, {value} its value, {wanted} the value it needs
# (all three as typed in Redis's configuration); {why} one of the store.redis.why texts.
DIFFERS = say("store.redis.differs", "Redis has {name} {value}, needs {wanted}: {why}")
# Translators: {where} names the Redis server; {problems} the settings' problems, one
# after another (the "; " after the colon joins them: keep the spec as it is, or give
# it your language's separator). CONFIG SET and --redis-unsafe are typed as they are.
CHANGED = say(
    "store.redis.changed",
    "{where} was set to lose acknowledged changes while serving ({problems:; }): nothing "
    "was written; set it back (CONFIG SET), or restart the server with --redis-unsafe "
    "to take the risk",
)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def check_durability(client: Any, *, unanswered: bool = False) -> list[str]:
    """The problems of a Redis that would lose acknowledged changes, one English
    sentence each, as this function always returned them (a script joins them, or
    looks for a setting's name in them); ``[]`` if none. The same as
    :func:`durability_problems`, which says them in any language."""
    return in_english(durability_problems(client, unanswered=unanswered))


def durability_problems(client: Any, *, unanswered: bool = False) -> list[Text]:
    """The problems of a Redis that would lose acknowledged changes; ``[]`` if none.

    :param client: a ``redis.Redis`` client (any that answers ``CONFIG GET``).
    :param unanswered: raise redis-py's ``ConnectionError``/``TimeoutError`` (Redis
        not answering) instead of listing it, after one try rather than one per
        setting (each a socket timeout).

    Each problem names the setting, its value, the value needed and why: a catalogue
    text, rendered in the operator's language where it is shown (:func:`in_english`
    for what a script reads). A Redis whose ``CONFIG`` command is refused (some hosted
    services rename it) cannot be checked: that is a problem too, so the operator
    decides.
    """
    problems = []
    for name, (wanted, why) in REQUIRED.items():
        try:
            answer = client.config_get(name)
        except Exception as exc:  # a refused CONFIG, a lost connection, …
            if unanswered and isinstance(exc, _UNANSWERED):
                raise
            problems.append(CANNOT_READ(name=name, error=f"{type(exc).__name__}: {exc}"))
            continue
        found = {_text(k): _text(v) for k, v in dict(answer).items()}
        value = found.get(name)
        if value is None:
            problems.append(NOT_REPORTED(name=name, wanted=wanted))
        elif value.lower() != wanted:
            problems.append(DIFFERS(name=name, value=value, wanted=wanted, why=why()))
    return problems


def in_english(problems: list[Text]) -> list[str]:
    """The problems as an error's ``details["problems"]`` lists them: English in every
    language, as they always were, for the scripts and logs that read them."""
    return [problem.render() for problem in problems]


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
        found = durability_problems(self.client, unanswered=True)
        if any(p.id == CANNOT_READ.id for p in found):
            return  # CONFIG refused now: the commit says what is wrong, if anything
        if not found and self.problem is not None and not self._aof_written():
            return
        self.problem = None
        if found:
            self.problem = StoreUnavailable(
                CHANGED(where=self.where, problems=found),
                details={"reason": "not_durable", "problems": in_english(found)},
            )

    def _aof_written(self) -> bool:
        """Whether no AOF rewrite is under way (the first one, after ``appendonly``
        was turned on, is what makes the AOF hold everything)."""
        try:
            info = self.client.info("persistence")
        except Exception:
            return False
        return not (info.get("aof_rewrite_in_progress") or info.get("aof_rewrite_scheduled"))
