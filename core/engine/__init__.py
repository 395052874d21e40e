"""The sans-I/O table engine, its data model, its store interface and the
synchronous service that wires them together.

::

    from rollbridge.engine import MemoryStore, Principal, TableService
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
from rollbridge.engine.service import TableService
from rollbridge.engine.store import DEFAULT_RETAIN, MemoryStore, Store
from rollbridge.engine.table import Outcome, Table

__all__ = [
    "DEFAULT_RETAIN",
    "REQUESTS",
    "ActorRecord",
    "Commit",
    "Encounter",
    "Event",
    "MemoryStore",
    "Outcome",
    "Principal",
    "Request",
    "Store",
    "Table",
    "TableInfo",
    "TableService",
    "TableSnapshot",
    "parse_request",
]
