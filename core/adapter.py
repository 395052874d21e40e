"""The adapter contract: a VTT dialect of the wire protocol.

A client names its dialect in ``hello`` (``"dialect": "foundry"``). From then
on the server passes every message that client sends through the adapter's
:meth:`Adapter.inbound` before handling it, and every reply and event it sends
through :meth:`Adapter.outbound`. The plain protocol (docs/protocol.md) is the
dialect ``rollbridge`` and needs no adapter. Adapters import the contract and
the protocol only, never a store.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

__all__ = ["PROTOCOL_FIELDS", "Adapter", "missed_count", "plain_frame", "recovered_resume"]

#: The fields of the plain protocol's lines a client's log holds and ``rollbridge
#: verify`` reads (docs/protocol.md): an ``event`` frame's and a ``welcome``'s. No
#: adapter may name one in :attr:`Adapter.event_fields` (:meth:`Adapter.plain` would
#: take it off every line): the host refuses such an adapter when it is registered
#: (:class:`~rollbridge.exceptions.AdapterProtocolField`).
PROTOCOL_FIELDS: frozenset[str] = frozenset(
    {"type", "id", "table", "kind", "epoch", "seq", "data", "actors", "request", "by", "at",
     "table_after", "gm_only", "reread",  # an event's (``reread``: a players' view's)
     "protocol", "role", "name", "locale", "ruleset", "epochs", "resume"}  # a welcome's
)  # fmt: skip


class Adapter(ABC):
    """Base class of VTT dialect adapters; register instances through
    the ``register_adapters`` hook."""

    #: The dialect name clients send in ``hello`` (``foundry``).
    id: ClassVar[str]
    #: Human name (``Foundry VTT``).
    name: ClassVar[str]
    #: The adapter's own version.
    version: ClassVar[str] = "0.0.0"
    #: The fields this dialect's ``event`` frames have beside the plain protocol's
    #: (what :meth:`outbound` adds, and ``players`` where ``public_view`` asks for
    #: it): :meth:`plain` takes them off, and ``rollbridge verify`` reports a field
    #: that neither the protocol nor any dialect installed knows (docs/dice.md). A
    #: field of the protocol's own (:data:`PROTOCOL_FIELDS`) is refused when the
    #: adapter is registered (:class:`~rollbridge.exceptions.AdapterProtocolField`).
    event_fields: ClassVar[frozenset[str]] = frozenset()

    def plain(self, frame: Mapping[str, Any]) -> dict[str, Any]:
        """``frame`` (a line of a client's log) without what this dialect adds to the
        plain protocol's: what ``rollbridge verify`` resolves again, so a field of the
        dialect's holds nothing a forged result could hide behind. The default takes
        off :attr:`event_fields`; an adapter that adds fields inside a frame (an
        actor view's) takes those off too. A frame without them is returned as it is."""
        return {key: value for key, value in frame.items() if key not in self.event_fields}

    def unlike(self, frame: Mapping[str, Any]) -> str | None:
        """Where ``frame`` (a line of a client's log) holds, under this dialect's
        fields, other than what this adapter makes of the plain frame it carries: the
        first path that differs (``foundry.rolls.0.total``), or None where it agrees or
        holds nothing of this dialect. ``rollbridge verify`` reports such a frame
        (``wrong_dialect``, docs/dice.md): what the dialect's client shows was altered,
        though the plain protocol's frame verifies. The default checks nothing."""
        return None

    def missing(self, frame: Mapping[str, Any], welcome: Mapping[str, Any]) -> str | None:
        """Where ``frame``, a line of a log whose ``welcome`` says this adapter wrote it
        (:meth:`written_by`), lacks a field this adapter gives such a line (a line
        stripped of all of the dialect's fields, which :meth:`unlike` takes for a plain
        client's): the first path missing, or None. ``rollbridge verify`` reports it
        as :meth:`unlike`'s (``wrong_dialect``, docs/dice.md). The default checks
        nothing."""
        return None

    def written_by(self, frame: Mapping[str, Any]) -> str | None:
        """The version of this adapter a log's line says wrote the log (a ``welcome``
        carrying it), else None: a frame :meth:`unlike` finds different in a log
        another version wrote is counted apart (``dialect_version``), not reported as
        altered. The default reads none."""
        return None

    def connect(self, hello: Mapping[str, Any]) -> Adapter:
        """The adapter for one connection, given its ``hello``; the default
        shares this instance. Override to keep per-connection choices (a system
        mapping the client asked for)."""
        return self

    @abstractmethod
    def inbound(self, message: Mapping[str, Any]) -> dict[str, Any]:
        """Translate a message from the VTT into a protocol v1 request.

        :raises InvalidRequest: when the message cannot be translated.
        """

    @abstractmethod
    def outbound(self, message: Mapping[str, Any]) -> dict[str, Any]:
        """Translate a protocol v1 reply or event for the VTT."""


def plain_frame(frame: Mapping[str, Any], adapters: Iterable[Adapter]) -> Mapping[str, Any]:
    """``frame`` with what each of ``adapters`` adds to the plain protocol's taken off
    (:meth:`Adapter.plain`, each in turn)."""
    for adapter in adapters:
        frame = adapter.plain(frame)
    return frame


# A resume the server recovered answers ``resume: {"recovered": true, "missed": N}`` —
# ``missed`` always, a whole number of events from 0 to the welcome's seq, which follow
# the welcome (core/protocol/table.py). A welcome that says ``recovered`` without such a
# count is not one the server sent: ``rollbridge verify`` and an adapter's ``missing``
# take it for the snapshot it claims not to be (docs/dice.md, "Checking"; a snapshot
# rewritten with ``missed: 0`` the log alone cannot tell from a real one).


def missed_count(welcome: Mapping[str, Any]) -> int | None:
    """How many missed events a recovered resume's ``welcome`` says follow it, or None
    where it is no recovered resume the server sends (:func:`recovered_resume`)."""
    resume = welcome.get("resume")
    if not isinstance(resume, Mapping) or resume.get("recovered") is not True:
        return None
    missed = resume.get("missed")
    if not isinstance(missed, int) or isinstance(missed, bool) or missed < 0:
        return None
    table = welcome.get("table")
    seq = table.get("seq", welcome.get("seq")) if isinstance(table, Mapping) else welcome.get("seq")
    if isinstance(seq, int) and not isinstance(seq, bool) and missed > seq:
        return None
    return missed


def recovered_resume(welcome: Mapping[str, Any]) -> bool:
    """Whether ``welcome`` is a resume the server recovered, as the server sends one:
    ``resume.recovered`` true and ``resume.missed`` a whole number of events the
    welcome's seq holds."""
    return missed_count(welcome) is not None
