"""A table's log as JSON Lines: one ``event`` frame per line, exactly as the
protocol sends it to the audience (the JSON text frame of a client without a
dialect: ``{"type": "event", "table": …, "epoch", "seq", "kind", …}``)."""

from __future__ import annotations

from collections.abc import Iterator

from rollbridge.export.log import SessionLog

__all__ = ["jsonl_lines"]


def jsonl_lines(log: SessionLog, audience: str, locale: str = "en") -> Iterator[str]:
    """Each event's frame and a line break, one at a time.

    :raises InternalError: if the ruleset fails to show an event.
    """
    for frame in log.frames(audience, locale):
        yield frame + "\n"
