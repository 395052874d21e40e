"""The sans-I/O table engine and its data model.

::

    from rollbridge.engine import Principal, Table, parse_request

A :class:`Table` executes one validated request at a time and returns an
:class:`Outcome`; :mod:`rollbridge.protocol` wraps it in a request's whole life
(idempotency, the commit, deliveries), and the drivers —
:class:`rollbridge.offline.TableService`, :class:`rollbridge.server.Server` —
do the I/O.
"""

from rollbridge.engine.model import (
    ActorRecord,
    Commit,
    Encounter,
    Event,
    Principal,
    TableInfo,
    TableSnapshot,
)
from rollbridge.engine.requests import REQUESTS, Request, parse_request
from rollbridge.engine.table import Outcome, Table

__all__ = [
    "REQUESTS",
    "ActorRecord",
    "Commit",
    "Encounter",
    "Event",
    "Outcome",
    "Principal",
    "Request",
    "Table",
    "TableInfo",
    "TableSnapshot",
    "parse_request",
]
