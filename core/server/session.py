"""One live table in the server: its engine, its clients, its durable seq.

Requests of a table are executed one at a time, in arrival order, on the
event loop (the engine is fast and never blocks). Each outcome's commit goes to
the :class:`~rollbridge.server.writer.CommitWriter`; when it is durable the
session broadcasts the events to every client of the table in seq order,
notifies observer plugins, and only then answers the requester. Different
tables share nothing but the writer.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from rollbridge.dice.sources import DiceSource, SecureDice
from rollbridge.engine.model import Event, Principal
from rollbridge.engine.requests import parse_request
from rollbridge.engine.service import notify_observers
from rollbridge.engine.store import Store
from rollbridge.engine.table import Outcome, Table
from rollbridge.exceptions import InvalidRequest, RollbridgeError, StoreError
from rollbridge.host import PluginHost
from rollbridge.server.writer import CommitWriter

if TYPE_CHECKING:
    from rollbridge.server.client import Client

__all__ = ["Reply", "TableSession"]

log = logging.getLogger("rollbridge.session")

JSON = dict[str, Any]
#: A reply: ready now, or a future that resolves once the change is durable.
Reply = JSON | asyncio.Future


class TableSession:
    """A table being served; see the module docstring.

    :param table: the engine's table, loaded from the store.
    :param store: the store (read here; written only by the writer).
    :param writer: the commit writer.
    :param host: the plugin host, for observer hooks.
    :param dice: makes the dice source of each request.
    """

    def __init__(
        self,
        table: Table,
        *,
        store: Store,
        writer: CommitWriter,
        host: PluginHost,
        dice: Callable[[], DiceSource] = SecureDice,
    ) -> None:
        self.table = table
        self.store = store
        self.writer = writer
        self.host = host
        self.dice = dice
        self.clients: set[Client] = set()
        self.durable_seq = table.info.seq
        self._inflight: dict[str, asyncio.Future] = {}
        self.broken = False

    @property
    def id(self) -> str:
        return self.table.info.id

    # -- clients ----------------------------------------------------------------

    def join(self, client: Client, resume: Mapping[str, Any] | None) -> tuple[JSON, list[Event]]:
        """Add a client; return its welcome fields and the events it missed.

        With ``resume`` (epoch, seq) and every later event still retained, the
        missed events are returned (``recovered: True``); otherwise none, and
        the welcome's snapshot is the way back (``recovered: False``).
        """
        gm = client.principal.is_gm
        info = self.table.info
        welcome: JSON = {
            "role": client.principal.role,
            "name": client.principal.name,
            "table": self.table.view(gm=gm),
            "ruleset": {
                k: v for k, v in self.table.ruleset.describe().items() if k != "example_sheets"
            },
            "epoch": info.epoch,
            "seq": info.seq,
        }
        missed: list[Event] = []
        if resume is not None:
            epoch, seq = resume.get("epoch"), resume.get("seq")
            recovered = False
            if epoch == info.epoch and isinstance(seq, int) and 0 <= seq <= self.durable_seq:
                found = self.store.events_after(self.id, seq)
                if found is not None:
                    missed = [e for e in found if e.seq <= self.durable_seq]
                    recovered = True
            welcome["resume"] = {"recovered": recovered, "missed": len(missed)}
        self.clients.add(client)
        return welcome, missed

    def leave(self, client: Client) -> None:
        """Remove a client (its connection closed)."""
        self.clients.discard(client)

    # -- requests ---------------------------------------------------------------

    def submit(self, message: Mapping[str, Any], who: Principal) -> Reply:
        """Handle one request: a reply now (reads, repeats, errors raise) or a
        future resolved once the change is durable.

        :raises RollbridgeError: the request was refused; nothing changed.
        """
        if self.broken:
            raise StoreError("this table is recovering from a store failure; try again")
        request = parse_request(message)
        table = self.table
        if not request.spec.writes:
            at = request.fields.get("at")
            if at is None or at == table.info.seq:
                return table.execute(request, who, self.dice()).reply
            later = self.store.events_after(self.id, at)
            if later is None:
                raise InvalidRequest(
                    f"state.at: seq {at} is older than the retained event log",
                    details={"field": "at"},
                )
            pending = [e for e in later if e.seq <= table.info.seq]
            return {"table": table.view_at(at, pending, gm=who.is_gm)}
        key = Table.reply_key(who, request.id)
        inflight = self._inflight.get(key)
        if inflight is not None:
            return inflight
        remembered = table.remembered_reply(key) or self.store.reply(self.id, key)
        if remembered is not None:
            return remembered
        outcome = table.execute(request, who, self.dice())
        future = asyncio.get_running_loop().create_future()
        for reply_key in outcome.commit.replies if outcome.commit else ():
            self._inflight[reply_key] = future
        self.writer.submit(
            self.id, outcome.commit, lambda error: self._durable(outcome, future, error)
        )  # type: ignore[arg-type]
        return future

    def _durable(
        self, outcome: Outcome, future: asyncio.Future, error: BaseException | None
    ) -> None:
        commit = outcome.commit
        assert commit is not None
        for key in commit.replies:
            self._inflight.pop(key, None)
        if error is not None:
            self._fail(error)
            if not future.done():
                future.set_exception(error)
            return
        self.durable_seq = max(self.durable_seq, commit.info.seq)
        self.broadcast(outcome.events)
        notify_observers(self.host, self.table, outcome.events)
        if not future.done():
            future.set_result(outcome.reply)

    def _fail(self, error: BaseException) -> None:
        """The store refused a commit: reload the table from what is durable."""
        if self.broken:
            return
        log.error("table %s: commit failed (%s); reloading from the store", self.id, error)
        self.broken = True
        try:
            snapshot, history = self.store.load(self.id)
            self.table = Table(snapshot, self.table.ruleset, history)
            self.durable_seq = self.table.info.seq
            self.broken = False
        finally:
            self.writer.reset(self.id)

    # -- broadcast ---------------------------------------------------------------

    def broadcast(self, events: list[Event]) -> None:
        """Send events to every client of the table, each in its own view.

        Each event is viewed at most twice (GM, everyone else) and encoded at
        most once per view, frame kind and dialect, however many clients.
        """
        if not self.clients:
            return
        for event in events:
            views: dict[bool, JSON] = {}
            frames: dict[tuple[bool, str, str], bytes | str] = {}
            for client in list(self.clients):
                gm = client.principal.is_gm
                key = (gm, client.kind, client.dialect)
                frame = frames.get(key)
                if frame is None:
                    view = views.get(gm)
                    if view is None:
                        view = {
                            "type": "event",
                            "table": self.id,
                            **self.table.view_event(event, gm=gm),
                        }
                        views[gm] = view
                    try:
                        frame = frames[key] = client.encode(view)
                    except Exception:  # a dialect adapter failed: only its clients miss out
                        log.exception("encoding event %s for %s failed", event.seq, key)
                        continue
                client.enqueue(frame)


def error_reply(request_id: Any, error: RollbridgeError) -> JSON:
    """The error message for a request."""
    return {"type": "error", "id": request_id, **error.to_dict()}
