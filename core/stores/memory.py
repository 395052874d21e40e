"""A store in memory: the reference every store behaves like; nothing survives
the process. It keeps serialised copies (the packed bytes a commit carries), so
what comes back is what a durable store would return.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable

from rollbridge.engine.history import UNDO_KINDS
from rollbridge.engine.model import ActorRecord, Commit, Event, TableInfo, TableSnapshot
from rollbridge.exceptions import Conflict, StoreError
from rollbridge.plain import JSON, pack, unpack
from rollbridge.stores.actor_changes import event_changes
from rollbridge.stores.base import (
    DEFAULT_RETAIN,
    TABLE_EXISTS,
    UNSTORABLE_COMMIT,
    LogTail,
    in_order,
    reply_window,
    unexpected,
    unknown_table,
)
from rollbridge.tokens import AdminTokenRecord, TokenRecord

__all__ = ["MemoryStore"]


class MemoryStore:
    """A store in memory; see the module docstring.

    :param retain: events kept per table for resume and undo.
    """

    def __init__(self, *, retain: int = DEFAULT_RETAIN) -> None:
        self.retain = retain
        self._tables: dict[str, JSON] = {}
        self._tokens: dict[str, dict[str, TokenRecord]] = {}
        self._admin_tokens: dict[str, AdminTokenRecord] = {}

    def _table(self, table_id: str) -> JSON:
        try:
            return self._tables[table_id]
        except KeyError:
            raise unknown_table(table_id) from None

    def create_table(self, info: TableInfo, tokens: list[TokenRecord]) -> None:
        if info.id in self._tables:
            raise Conflict(TABLE_EXISTS(table=repr(info.id)), details={"table": info.id})
        self._tables[info.id] = {
            "info": pack(info.to_dict()),
            "seq": info.seq,
            "actors": {},
            "meta": pack(TableSnapshot(info, {}).meta()),
            "events": {},
            "replies": {},
        }
        self._tokens[info.id] = {t.id: t for t in tokens}

    def delete_table(self, table_id: str) -> None:
        self._table(table_id)
        del self._tables[table_id]
        self._tokens.pop(table_id, None)

    def tables(self) -> list[TableInfo]:
        return [TableInfo.from_dict(unpack(t["info"])) for t in self._tables.values()]

    def load(self, table_id: str) -> tuple[TableSnapshot, dict[int, Event]]:
        row = self._table(table_id)
        meta = unpack(row["meta"])
        snapshot = TableSnapshot.from_meta(
            TableInfo.from_dict(unpack(row["info"])),
            {a: ActorRecord.from_dict(unpack(r), fresh=True) for a, r in row["actors"].items()},
            meta,
        )
        wanted = set(meta["undo"]) | set(meta["redo"])
        history = {
            seq: Event.from_dict(unpack(data))
            for seq, data in row["events"].items()
            if seq in wanted
        }
        return snapshot, history

    def events_after(self, table_id: str, seq: int, until: int | None = None) -> list[Event] | None:
        return self._after(table_id, seq, until, lambda blob: Event.from_dict(unpack(blob)))

    def changes_after(
        self, table_id: str, seq: int, until: int | None = None
    ) -> list[Event] | None:
        """:meth:`events_after`, each event with its changes alone (as
        :meth:`SQLiteStore.changes_after <rollbridge.stores.sqlite.SQLiteStore.changes_after>`)."""
        return self._after(table_id, seq, until, event_changes)

    def _after(
        self, table_id: str, seq: int, until: int | None, decode: Callable[[bytes], Event]
    ) -> list[Event] | None:
        row = self._table(table_id)
        last = row["seq"] if until is None else min(until, row["seq"])
        if seq >= last:
            return []
        if seq + 1 not in row["events"]:
            return None
        return [decode(row["events"][s]) for s in range(seq + 1, last + 1)]

    def undos_after(self, table_id: str, seq: int) -> list[Event]:
        """The undos and redos of the retained log with a seq above ``seq``, in order
        (as :meth:`SQLiteStore.undos_after <rollbridge.stores.sqlite.SQLiteStore.undos_after>`)."""
        events = self._table(table_id)["events"]
        return [
            event
            for event in (Event.from_dict(unpack(events[s])) for s in sorted(events) if s > seq)
            if event.kind in UNDO_KINDS
        ]

    def follow_log(self, table_id: str, after: int) -> LogTail:
        """The table's epoch and seq, the lowest seq an undo or redo entry may have
        and still be in the log, and the events after ``after`` (as the Redis store's
        ``follow_log``: what a follower applies to its table in memory)."""
        row = self._table(table_id)
        seq, logged = row["seq"], row["events"]
        first = min(logged) if logged else seq + 1
        epoch = TableInfo.from_dict(unpack(row["info"])).epoch
        return LogTail(
            epoch, seq, max(first, seq - self.retain + 1), self.events_after(table_id, after)
        )

    def event(self, table_id: str, seq: int) -> Event | None:
        data = self._table(table_id)["events"].get(seq)
        return Event.from_dict(unpack(data)) if data is not None else None

    def reply(self, table_id: str, key: str) -> JSON | None:
        found = self._table(table_id)["replies"].get(key)
        return unpack(found[1]) if found is not None else None

    def reply_keys(self, table_id: str) -> list[str]:
        return list(self._table(table_id)["replies"])

    def commit(self, table_id: str, commit: Commit) -> None:
        row = self._table(table_id)
        try:  # serialise everything first, so a failure leaves the table as it was
            actors = {r.id: r.packed() for r in commit.actors}
            events = {e.seq: e.packed() for e in commit.events}
            info, meta = pack(commit.info.to_dict()), pack(commit.meta)
            staged = dict(commit.packed_replies or ())  # as the table packed them
            replies = {key: staged.get(key) or pack(r) for key, r in commit.replies.items()}
        except Exception as exc:
            raise StoreError(UNSTORABLE_COMMIT(error=unexpected(exc))) from exc
        seq = commit.info.seq
        row["actors"].update(actors)
        for actor_id in commit.removed:
            row["actors"].pop(actor_id, None)
        if commit.order is not None:  # an actor put back where it stood
            row["actors"] = in_order(row["actors"], commit.order)
        row["events"].update(events)
        for old in sorted(row["events"])[: max(0, len(row["events"]) - self.retain)]:
            del row["events"][old]
        row["info"], row["meta"], row["seq"] = info, meta, seq
        row["replies"].update({key: (seq, reply) for key, reply in replies.items()})
        oldest = seq - reply_window(self.retain)
        for key in [k for k, (at, _) in row["replies"].items() if at <= oldest]:
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

    def add_admin_token(self, record: AdminTokenRecord) -> None:
        self._admin_tokens[record.id] = record

    def find_admin_token(self, token_hash: str) -> AdminTokenRecord | None:
        for record in self._admin_tokens.values():
            if hmac.compare_digest(record.hash, token_hash):
                return record
        return None

    def list_admin_tokens(self) -> list[AdminTokenRecord]:
        return list(self._admin_tokens.values())

    def revoke_admin_token(self, token_id: str) -> bool:
        return self._admin_tokens.pop(token_id, None) is not None

    def probe_write(self) -> None:
        """Nothing to try: memory takes every write."""

    def ping(self) -> None:
        """Always answers."""

    def close(self) -> None:
        """Nothing to flush."""
