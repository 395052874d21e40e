"""The live WebSocket server (protocol v1, docs/protocol.md): a driver of
:mod:`rollbridge.protocol`.

::

    from rollbridge.server import Server

The same port answers plain HTTP too: ``/metrics``, ``/healthz``, ``/readyz``, the
admin API under ``/admin/``, the session log (``/tables/ID/export``), and the web
view and stream overlay (``/tables/ID``, ``/tables/ID/overlay``, ``/static/``;
docs/web.md) — :mod:`rollbridge.server.http`, docs/operations.md.

websockets and asyncio load only when the server is used (``rollbridge.server.app``),
so the CLI's other commands start without them.
"""

from __future__ import annotations

from typing import Any

from rollbridge.server.limits import DEFAULT_HOST, DEFAULT_PORT

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "Server"]


def __getattr__(name: str) -> Any:
    if name == "Server":
        from rollbridge.server.app import Server

        return Server
    raise AttributeError(name)
