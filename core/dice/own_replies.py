"""Holding an approval or a rejection to the client's own replies (``rollbridge verify``).

A client's log (every frame it received, not an export) holds the replies to its own
requests. A request held for the GM is answered ``{"status": "pending", "pending":
"p12"}`` under the request's ``id``; the event that settles it — the approved event,
or the ``approval.rejected`` — names both that ``id`` (the event's ``request``; a
rejection's ``data.request``) and the request it settles (``data.approved``; a
rejection's ``data.pending``). In a player's log the request itself is a ``hidden``
stand-in, which says nothing of whose it was: these replies are what ties a
player's own held request to its stand-in. :class:`OwnReplies` notes them, by epoch
(a restored table's epoch holds its own requests), and reports a settling event
whose two names disagree with a reply (``other_request``): a server that wrote
``approved_by`` into the player's own roll naming a secret roll's stand-in, say,
or named the player's request in a rejection of another.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rollbridge.text import Messages, Text

__all__ = ["OwnReplies"]

say = Messages("rollbridge")
# Translators: {seq} is an event number; {request} and {held} request ids, quoted
# ('p12'); {asked} the client's own id of its request, quoted.
APPROVED_OTHER = say(
    "verify.approval_own_reply",
    "seq {seq}: the log says the GM approved request {request} of this client's request "
    "{asked}, but the server's reply to that request said it was held as {held}: the "
    "approval settles another request than the one this client made",
)
# Translators: {seq} is an event number; {request} and {held} request ids, quoted
# ('p12'); {asked} the client's own id of its request, quoted.
REJECTED_OTHER = say(
    "verify.rejection_own_reply",
    "seq {seq}: the log says the GM rejected request {request} of this client's request "
    "{asked}, but the server's reply to that request said it was held as {held}: the "
    "rejection settles another request than the one this client made",
)


class OwnReplies:
    """The replies to a client's own held requests in its log, and the events that
    settle them held to those replies (module docstring)."""

    def __init__(self) -> None:
        #: By epoch: each held request's client id and the id it was held as, both ways.
        self._held_as: dict[tuple[Any, str], str] = {}
        self._asked_as: dict[tuple[Any, str], str] = {}

    def replied(self, epoch: Any, reply: Mapping[str, Any]) -> None:
        """A ``result`` line of the log: a request held for the GM (``pending``) is
        noted under its ``id``."""
        asked, held = reply.get("id"), reply.get("pending")
        if isinstance(asked, str) and isinstance(held, str):
            self._held_as.setdefault((epoch, asked), held)
            self._asked_as.setdefault((epoch, held), asked)

    def check(self, epoch: Any, seq: int, entry: Mapping[str, Any]) -> list[tuple[str, Text]]:
        """An event of ``epoch`` that settles a request: its two names of it agree with
        the replies the log holds. Returns the problems found, each a code and its text."""
        data = entry.get("data") if isinstance(entry.get("data"), Mapping) else {}
        if entry.get("kind") == "approval.rejected":
            request, asked, said = data.get("pending"), data.get("request"), REJECTED_OTHER
        elif "approved_by" in data:
            request, asked, said = data.get("approved"), entry.get("request"), APPROVED_OTHER
        else:
            return []
        if not isinstance(request, str) or not isinstance(asked, str):
            return []
        held = self._held_as.get((epoch, asked), request)
        if held == request and self._asked_as.get((epoch, request), asked) == asked:
            return []
        text = said(seq=seq, request=repr(request), asked=repr(asked), held=repr(held))
        return [("other_request", text)]
