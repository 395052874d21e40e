"""A table's log as JSON Lines: one ``event`` frame per line, exactly as the
protocol sends it to the audience (the JSON text frame of a client without a
dialect: ``{"type": "event", "table": …, "epoch", "seq", "kind", …}``).

The log starts with the ``welcome`` frame a client joining just before its first
event would have been sent (:meth:`~rollbridge.export.log.SessionLog.welcome`): the
table as it stood then — its ruleset, settings and actors, on which ``rollbridge
verify`` resolves the log's resolutions again, and the verifiable segment open then
with its commitments (an export that starts after a ``dice.committed``: ``since``,
a pruned log, a restored backup) — so that ``rollbridge verify`` checks the export
as it checks a client's own log."""

from __future__ import annotations

from collections.abc import Iterator

from rollbridge.export.log import SessionLog

__all__ = ["jsonl_lines"]


def jsonl_lines(log: SessionLog, audience: str, locale: str = "en") -> Iterator[str]:
    """The opening ``welcome`` (none for a log without events), then each event's
    frame, each with a line break, one at a time.

    :raises InternalError: if the ruleset fails to show an event.
    """
    welcome = log.welcome(audience, locale)
    if welcome is not None:
        yield welcome + "\n"
    for frame in log.frames(audience, locale):
        yield frame + "\n"
