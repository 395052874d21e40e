"""The session log: every retained event of a table, in seq order, as one
audience sees it — JSON Lines (the protocol's own frames) or a Markdown report.

:func:`read_log` reads it from a store; :func:`export_chunks` writes it in either
format a piece at a time. The CLI (``rollbridge table export``) and the server's
``GET /tables/ID/export`` (:mod:`rollbridge.server.export_http`) both use these.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from rollbridge.export.jsonl import jsonl_lines
from rollbridge.export.log import (
    AUDIENCES,
    FORMATS,
    SessionLog,
    check_audience,
    check_format,
    check_since,
    read_log,
)
from rollbridge.export.markdown import markdown_chunks

__all__ = [
    "AUDIENCES",
    "FORMATS",
    "SessionLog",
    "check_audience",
    "check_format",
    "check_since",
    "export_chunks",
    "read_log",
]


def export_chunks(
    log: SessionLog,
    form: str,
    audience: str,
    locale: str = "en",
    *,
    now: datetime | None = None,
) -> Iterator[str]:
    """The log in ``form`` (``jsonl`` or ``markdown``) for ``audience``, a piece at
    a time. :raises InvalidRequest: for an unknown form or audience."""
    form, audience = check_format(form), check_audience(audience)
    if form == "jsonl":
        return jsonl_lines(log, audience, locale)
    return markdown_chunks(log, audience, locale, now=now)
