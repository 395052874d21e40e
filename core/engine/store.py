"""The store interface the table service writes through, and an in-memory store.

A store keeps tables, their actors and meta, the event log (the last
``retain`` events of each table), idempotency replies and join tokens.
:meth:`Store.commit` writes one :class:`~rollbridge.engine.model.Commit`
atomically: all of it or nothing. The server's SQLite store and the Redis
store implement the same interface; :class:`MemoryStore` is the reference
and what tests and the offline CLI use.
"""

from __future__ import annotations

import copy
import hmac
from typing import Any, Protocol

from rollbridge.engine.model import ActorRecord, Commit, Encounter, Event, TableInfo, TableSnapshot
from rollbridge.exceptions import Conflict, StoreError, UnknownTable
from rollbridge.tokens import TokenRecord

__all__ = ["DEFAULT_RETAIN", "MemoryStore", "Store", "reply_window"]

#: Events kept per table for resume and undo, by default.
DEFAULT_RETAIN = 1_000


def reply_window(retain: int) -> int:
    """How many seqs back a request's reply is kept for repeats: ten times the
    event log (10,000 by default), so a retry is answered long after its event
    left the log, while the store does not grow without end."""
    return max(1, retain) * 10


JSON = dict[str, Any]


class Store(Protocol):
    """What the table service needs from a store."""

    retain: int

    def create_table(self, info: TableInfo, tokens: list[TokenRecord]) -> None:
        """Store a new table (seq 0, no actors) with its first tokens.

        :raises Conflict: if a table with this id exists.
        """

    def delete_table(self, table_id: str) -> None:
        """Remove a table and everything of it. :raises UnknownTable:"""

    def tables(self) -> list[TableInfo]:
        """Every table, oldest first."""

    def load(self, table_id: str) -> tuple[TableSnapshot, dict[int, Event]]:
        """A table's snapshot and the retained events its undo/redo stacks name.

        :raises UnknownTable:
        """

    def events_after(self, table_id: str, seq: int) -> list[Event] | None:
        """Every event with a seq above ``seq``, in order; None if some of them
        have left the retained log."""

    def event(self, table_id: str, seq: int) -> Event | None:
        """One retained event, or None if it is not (or no longer) in the log."""

    def reply(self, table_id: str, key: str) -> JSON | None:
        """The stored reply to the request with this idempotency key."""

    def commit(self, table_id: str, commit: Commit) -> None:
        """Write a commit atomically. :raises StoreError: having written nothing."""

    def commit_many(self, items: list[tuple[str, Commit]]) -> None:
        """Write several commits in one transaction (group commit): all or nothing."""

    def add_token(self, record: TokenRecord) -> None:
        """Store a token record (its hash only)."""

    def find_token(self, table_id: str, token_hash: str) -> TokenRecord | None:
        """The token of this table with this hash."""

    def list_tokens(self, table_id: str) -> list[TokenRecord]:
        """Every token of a table."""

    def revoke_token(self, table_id: str, token_id: str) -> bool:
        """Remove a token; whether it existed."""

    def token_ids(self) -> set[str]:
        """The id of every token of every table (a running server compares its
        clients' tokens with it to find the revoked ones)."""

    def close(self) -> None:
        """Flush and release resources."""


class MemoryStore:
    """A store in memory: nothing survives the process. Keeps serialised
    copies, so what comes back is what a durable store would return."""

    def __init__(self, *, retain: int = DEFAULT_RETAIN) -> None:
        self.retain = retain
        self._tables: dict[str, JSON] = {}
        self._tokens: dict[str, dict[str, TokenRecord]] = {}

    def _table(self, table_id: str) -> JSON:
        try:
            return self._tables[table_id]
        except KeyError:
            raise UnknownTable(f"no table {table_id!r}", details={"table": table_id}) from None

    def create_table(self, info: TableInfo, tokens: list[TokenRecord]) -> None:
        if info.id in self._tables:
            raise Conflict(f"a table {info.id!r} already exists", details={"table": info.id})
        self._tables[info.id] = {
            "info": info.to_dict(),
            "actors": {},
            "meta": TableSnapshot(info, {}).meta(),
            "events": {},
            "replies": {},
        }
        self._tokens[info.id] = {t.id: t for t in tokens}

    def delete_table(self, table_id: str) -> None:
        self._table(table_id)
        del self._tables[table_id]
        self._tokens.pop(table_id, None)

    def tables(self) -> list[TableInfo]:
        return [TableInfo.from_dict(t["info"]) for t in self._tables.values()]

    def load(self, table_id: str) -> tuple[TableSnapshot, dict[int, Event]]:
        row = self._table(table_id)
        meta = copy.deepcopy(row["meta"])
        snapshot = TableSnapshot(
            info=TableInfo.from_dict(copy.deepcopy(row["info"])),
            actors={a: ActorRecord.from_dict(r) for a, r in row["actors"].items()},
            encounter=Encounter.from_dict(meta["encounter"]),
            pending=meta["pending"],
            undo=meta["undo"],
            redo=meta["redo"],
        )
        wanted = set(meta["undo"]) | set(meta["redo"])
        history = {
            seq: Event.from_dict(copy.deepcopy(data))
            for seq, data in row["events"].items()
            if seq in wanted
        }
        return snapshot, history

    def events_after(self, table_id: str, seq: int) -> list[Event] | None:
        row = self._table(table_id)
        latest = row["info"]["seq"]
        if seq >= latest:
            return []
        if seq + 1 not in row["events"]:
            return None
        return [
            Event.from_dict(copy.deepcopy(row["events"][s])) for s in range(seq + 1, latest + 1)
        ]

    def event(self, table_id: str, seq: int) -> Event | None:
        data = self._table(table_id)["events"].get(seq)
        return Event.from_dict(copy.deepcopy(data)) if data is not None else None

    def reply(self, table_id: str, key: str) -> JSON | None:
        found = self._table(table_id)["replies"].get(key)
        return copy.deepcopy(found[1]) if found is not None else None

    def commit(self, table_id: str, commit: Commit) -> None:
        row = self._table(table_id)
        try:  # copy everything first, so a failure leaves the table as it was
            actors = {r.id: r.to_dict() for r in commit.actors}
            events = {e.seq: copy.deepcopy(e.to_dict()) for e in commit.events}
            info, meta = commit.info.to_dict(), copy.deepcopy(commit.meta)
            replies = copy.deepcopy(commit.replies)
        except Exception as exc:
            raise StoreError(f"the commit cannot be stored: {type(exc).__name__}: {exc}") from exc
        row["actors"].update(actors)
        for actor_id in commit.removed:
            row["actors"].pop(actor_id, None)
        row["events"].update(events)
        for seq in sorted(row["events"])[: max(0, len(row["events"]) - self.retain)]:
            del row["events"][seq]
        row["info"], row["meta"] = info, meta
        row["replies"].update({key: (info["seq"], reply) for key, reply in replies.items()})
        oldest = info["seq"] - reply_window(self.retain)
        for key in [k for k, (seq, _) in row["replies"].items() if seq <= oldest]:
            del row["replies"][key]

    def commit_many(self, items: list[tuple[str, Commit]]) -> None:
        for table_id, _commit in items:
            self._table(table_id)
        for table_id, commit in items:
            self.commit(table_id, commit)

    def add_token(self, record: TokenRecord) -> None:
        self._table(record.table)
        self._tokens[record.table][record.id] = record

    def find_token(self, table_id: str, token_hash: str) -> TokenRecord | None:
        for record in self._tokens.get(table_id, {}).values():
            if hmac.compare_digest(record.hash, token_hash):
                return record
        return None

    def list_tokens(self, table_id: str) -> list[TokenRecord]:
        self._table(table_id)
        return list(self._tokens[table_id].values())

    def revoke_token(self, table_id: str, token_id: str) -> bool:
        self._table(table_id)
        return self._tokens[table_id].pop(token_id, None) is not None

    def token_ids(self) -> set[str]:
        return {token_id for tokens in self._tokens.values() for token_id in tokens}

    def close(self) -> None:
        """Nothing to flush."""
