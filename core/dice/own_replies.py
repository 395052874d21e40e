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
    settle them held to those replies (module docstring).

    A request's ``id`` is its client's: the server keeps replies by requester and id,
    so two players may each send a request ``1``. The replies are noted under the
    client's label (``role:name``, or the name alone where it is the role's, as an
    event's ``by`` says it), which its ``welcome`` gives (:meth:`joined`), and only a
    settling of a request of that requester is held to them; the request ids the
    replies hold for the GM are the table's, one request's each."""

    def __init__(self) -> None:
        #: The client's label, from its last ``welcome`` (None: none yet).
        self._label: str | None = None
        #: By epoch, requester and client id: the ids its replies said it was held as.
        self._held_as: dict[tuple[Any, str, str], set[str]] = {}
        #: By epoch and held id: the requester and client id whose reply gave it.
        self._asked_as: dict[tuple[Any, str], tuple[str, str]] = {}

    def joined(self, role: Any, name: Any) -> None:
        """A ``welcome`` line: the client is ``role`` named ``name``."""
        if isinstance(role, str) and isinstance(name, str):
            self._label = name if name == role else f"{role}:{name}"
        else:
            self._label = None

    def replied(self, epoch: Any, reply: Mapping[str, Any]) -> None:
        """A ``result`` line of the log: a request held for the GM (``pending``) is
        noted under the client's label and the request's ``id``."""
        asked, held, label = reply.get("id"), reply.get("pending"), self._label
        if isinstance(asked, str) and isinstance(held, str) and label is not None:
            self._held_as.setdefault((epoch, label, asked), set()).add(held)
            self._asked_as.setdefault((epoch, held), (label, asked))

    def own_request(self, epoch: Any, entry: Mapping[str, Any]) -> int | None:
        """The seq of the request an event of ``epoch`` settles when the client's own
        reply ties it to a request of the client's (the settling names the client,
        and the id its reply said that request was held as), else None: in a
        player's log, that request's stand-in was the client's own request, not a
        secret roll of the GM's passed off as one."""
        request, asked, by = _names(entry)
        if not isinstance(request, str) or not isinstance(asked, str) or by != self._label:
            return None
        if request not in self._held_as.get((epoch, by, asked), set()):
            return None
        seq = request[1:]
        return int(seq) if request.startswith("p") and seq.isdigit() else None

    def check(self, epoch: Any, seq: int, entry: Mapping[str, Any]) -> list[tuple[str, Text]]:
        """An event of ``epoch`` that settles a request: its two names of it agree with
        the replies the log holds. Returns the problems found, each a code and its text."""
        said = REJECTED_OTHER if entry.get("kind") == "approval.rejected" else APPROVED_OTHER
        request, asked, by = _names(entry)
        if not isinstance(request, str) or not isinstance(asked, str):
            return []
        held = self._held_as.get((epoch, by, asked), set()) if isinstance(by, str) else set()
        whose = self._asked_as.get((epoch, request), (by, asked))
        if (not held or request in held) and whose == (by, asked):
            return []
        shown = sorted(held)[0] if held and request not in held else request
        text = said(seq=seq, request=repr(request), asked=repr(asked), held=repr(shown))
        return [("other_request", text)]


def _names(entry: Mapping[str, Any]) -> tuple[Any, Any, Any]:
    """The request an event settles (its ``p`` id), the client's own id of it and its
    requester: a rejection's ``data.pending``, ``data.request`` and
    ``data.requested_by``; an approved event's ``data.approved``, ``request`` and
    ``by``; (None, None, None) for an event that settles none."""
    data = entry.get("data") if isinstance(entry.get("data"), Mapping) else {}
    if entry.get("kind") == "approval.rejected":
        return data.get("pending"), data.get("request"), data.get("requested_by")
    if "approved_by" in data:
        return data.get("approved"), entry.get("request"), entry.get("by")
    return None, None, None
