"""The live WebSocket server (protocol v1, docs/protocol.md).

::

    from rollbridge.server import Server
"""

from rollbridge.server.app import DEFAULT_HOST, DEFAULT_PORT, Server

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "Server"]
