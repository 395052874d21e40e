"""The Foundry VTT dialect adapter: inbound.py and outbound.py behind the
:class:`~rollbridge.adapter.Adapter` contract."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from rollbridge import __version__
from rollbridge.adapter import Adapter

from . import inbound, outbound

__all__ = ["FoundryAdapter"]


class FoundryAdapter(Adapter):
    """``"dialect": "foundry"``: Foundry's rolls in, Foundry-shaped results out
    (docs/foundry.md, docs/protocol.md)."""

    id: ClassVar[str] = "foundry"
    name: ClassVar[str] = "Foundry VTT"
    version: ClassVar[str] = __version__

    def inbound(self, message: Mapping[str, Any]) -> dict[str, Any]:
        return inbound.translate(message)

    def outbound(self, message: Mapping[str, Any]) -> dict[str, Any]:
        return outbound.translate(message, self.version)
