"""The sans-I/O table protocol: a request's whole life, for every driver.

* :class:`~rollbridge.protocol.table.TableProtocol` — one table's requests, from a
  decoded message to the deliveries of its durable events;
* :class:`~rollbridge.protocol.connection.Connection` — one client connection:
  frames, ``ping``, ``hello`` and the ``welcome``;
* :mod:`~rollbridge.protocol.effects` — what the protocol asks its driver to do;
* :mod:`~rollbridge.protocol.members` — the clients at a table, and each event
  framed once for all of them.

Drivers: :class:`rollbridge.offline.TableService` (synchronous, in-process) and
:class:`rollbridge.server.Server` (WebSocket). docs/engine.md draws the pipeline.
"""

from rollbridge.protocol.connection import CLOSE_AUTH, CLOSE_BEHIND, Connection, Tables
from rollbridge.protocol.members import Delivery, Member
from rollbridge.protocol.table import TableProtocol, echo_id, error_message

__all__ = [
    "CLOSE_AUTH",
    "CLOSE_BEHIND",
    "Connection",
    "Delivery",
    "Member",
    "TableProtocol",
    "Tables",
    "echo_id",
    "error_message",
]
