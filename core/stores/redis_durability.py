"""Whether a Redis keeps what it acknowledged (:func:`check_durability`).

The Redis store acknowledges a commit when the commit script returns. That
reply is durable only if Redis appended the script's writes to its AOF and
fsynced it before answering (``appendonly yes`` with ``appendfsync always``:
Redis fsyncs once per event-loop turn, before replies go out, so commits of
every client share an fsync), and if Redis never drops keys to make room
(``maxmemory-policy noeviction``: a full Redis refuses writes instead, so
nothing is acknowledged that is not kept). ``rollbridge serve`` refuses a
Redis with any of these problems unless the operator says so.
"""

from __future__ import annotations

from typing import Any

__all__ = ["REQUIRED", "check_durability"]

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


def check_durability(client: Any) -> list[str]:
    """The problems of a Redis that would lose acknowledged changes; ``[]`` if none.

    :param client: a ``redis.Redis`` client (any that answers ``CONFIG GET``).

    Each problem names the setting, its value, the value needed and why. A Redis
    whose ``CONFIG`` command is refused (some hosted services rename it) cannot
    be checked: that is a problem too, so the operator decides.
    """
    problems = []
    for name, (wanted, why) in REQUIRED.items():
        try:
            answer = client.config_get(name)
        except Exception as exc:  # a refused CONFIG, a lost connection, …
            problems.append(f"cannot read the Redis setting {name}: {type(exc).__name__}: {exc}")
            continue
        found = {_text(k): _text(v) for k, v in dict(answer).items()}
        value = found.get(name)
        if value is None:
            problems.append(f"Redis does not report the setting {name} (needed: {wanted})")
        elif value.lower() != wanted:
            problems.append(f"Redis has {name} {value}, needs {wanted}: {why}")
    return problems
