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
from collections.abc import Mapping
from typing import Any, ClassVar

__all__ = ["Adapter"]


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
    #: it): ``rollbridge verify`` tells a dialect's frame by them, and reports a field
    #: that neither the protocol nor any dialect installed knows (docs/dice.md).
    event_fields: ClassVar[frozenset[str]] = frozenset()

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
