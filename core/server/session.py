"""One live table in the server: its engine, its clients, what is durable.

Requests of a table are executed one at a time, in arrival order, on the
event loop (the engine is fast and never blocks). Each outcome's commit goes to
the :class:`~rollbridge.server.writer.CommitWriter`; when it is durable the
session broadcasts the events to every client of the table in seq order,
notifies observer plugins, and only then answers the requester. Different
tables share nothing but the writer.

What clients are shown is always durable: the ``welcome`` and ``state`` views
are taken at the last durable seq (walking back through the events still
being written), so a failed commit never leaves a client holding a change that
did not happen. If the store refuses a commit, the session reloads the table
from the store; commits already queued behind the failed one fail too (their
state was built on it), and so do their requests.
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
from rollbridge.exceptions import Busy, InvalidRequest, StoreError
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
    :param on_idle: called when the last client has left and nothing is being written.
    """

    def __init__(
        self,
        table: Table,
        *,
        store: Store,
        writer: CommitWriter,
        host: PluginHost,
        dice: Callable[[], DiceSource] = SecureDice,
        on_idle: Callable[[TableSession], None] | None = None,
    ) -> None:
        self.table = table
        self.on_idle = on_idle
        self.store = store
        self.writer = writer
        self.host = host
        self.dice = dice
        self.clients: set[Client] = set()
        self.durable_seq = table.info.seq
        #: Events executed but not yet durable, in seq order.
        self.writing: list[Event] = []
        #: Futures of requests being written, by idempotency key.
        self._inflight: dict[str, asyncio.Future] = {}
        #: Bumped at every reload; failures of older commits are already handled.
        self.generation = 0
        self.broken = False

    @property
    def id(self) -> str:
        return self.table.info.id

    @property
    def idle(self) -> bool:
        """No client and nothing being written: the session may be dropped."""
        return not self.clients and not self._inflight and not self.writing

    # -- views ------------------------------------------------------------------

    def view(self, gm: bool, at: int | None = None) -> JSON:
        """The table at the last durable seq (or at ``at``, within the log)."""
        table = self.table
        target = self.durable_seq if at is None else at
        if target == table.info.seq:
            return table.view(gm=gm)
        later = list(self.writing)
        if target < self.durable_seq:
            stored = self.store.events_after(self.id, target)
            if stored is None:
                raise InvalidRequest(
                    f"state.at: seq {target} is older than the retained event log",
                    details={"field": "at"},
                )
            later = [e for e in stored if e.seq <= self.durable_seq] + later
        return table.view(gm=gm, at=target, later=later)

    def welcome(
        self, principal: Principal, resume: Mapping[str, Any] | None
    ) -> tuple[JSON, list[Event]]:
        """The welcome fields for a client and the events it missed.

        With ``resume`` (epoch, seq) and every later event still retained, the
        missed (durable) events are returned (``recovered: True``); otherwise
        none, and the welcome's snapshot is the way back (``recovered: False``).
        """
        info = self.table.info
        welcome: JSON = {
            "role": principal.role,
            "name": principal.name,
            "table": self.view(principal.is_gm),
            "ruleset": {
                k: v for k, v in self.table.ruleset.describe().items() if k != "example_sheets"
            },
            "epoch": info.epoch,
            "seq": self.durable_seq,
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
        return welcome, missed

    # -- clients ----------------------------------------------------------------

    def join(self, client: Client) -> None:
        """Add a client: it receives every event made durable from now on."""
        self.clients.add(client)

    def leave(self, client: Client) -> None:
        """Remove a client (its connection closed or fell behind)."""
        self.clients.discard(client)
        if self.idle and self.on_idle is not None:
            self.on_idle(self)

    # -- requests ---------------------------------------------------------------

    def submit(self, message: Mapping[str, Any], who: Principal) -> Reply:
        """Handle one request: a reply now (reads, repeats) or a future resolved
        once the change is durable.

        :raises RollbridgeError: the request was refused; nothing changed.
        """
        if self.broken:
            self._reload()
        request = parse_request(message)
        table = self.table
        if not request.spec.writes:  # "state": every role may read
            return {"table": self.view(who.is_gm, request.fields.get("at"))}
        key = Table.reply_key(who, request.id)
        inflight = self._inflight.get(key)
        if inflight is not None:
            return inflight
        remembered = table.remembered_reply(key) or self.store.reply(self.id, key)
        if remembered is not None:
            return remembered
        writer = self.writer
        if writer.full:
            raise Busy(
                f"the server has {writer.pending} changes waiting to be written to disk"
                f" (its limit is {writer.max_pending}); nothing was done: send the request"
                " again shortly",
                details={"pending": writer.pending, "limit": writer.max_pending},
            )
        outcome = table.execute(request, who, self.dice())
        commit = outcome.commit
        assert commit is not None
        loop = asyncio.get_running_loop()
        futures = {reply_key: loop.create_future() for reply_key in commit.replies}
        self._inflight.update(futures)
        self.writing.extend(outcome.events)
        generation = self.generation
        writer.submit(
            self.id, commit, lambda error: self._written(outcome, futures, generation, error)
        )
        return futures[key]

    def _written(
        self,
        outcome: Outcome,
        futures: dict[str, asyncio.Future],
        generation: int,
        error: BaseException | None,
    ) -> None:
        commit = outcome.commit
        assert commit is not None
        for key in futures:
            self._inflight.pop(key, None)
        if error is not None:
            if generation == self.generation:  # the first failure: reload once
                self._fail(error)
            for future in futures.values():
                if not future.done():
                    future.set_exception(error)
            return
        self.durable_seq = max(self.durable_seq, commit.info.seq)
        done = {e.seq for e in outcome.events}
        self.writing = [e for e in self.writing if e.seq not in done]
        try:
            self.broadcast(outcome.events)
            notify_observers(self.host, self.table, outcome.events)
        except Exception:  # the change is durable: never leave the requester unanswered
            log.exception("table %s: broadcasting seq %s failed", self.id, commit.info.seq)
        for event in outcome.events:
            event.views.clear()  # shown to everyone now; undo history keeps the event only
        for key, future in futures.items():
            if not future.done():
                future.set_result(commit.replies[key])
        if self.idle and self.on_idle is not None:
            self.on_idle(self)

    def _fail(self, error: BaseException) -> None:
        """The store refused a commit: reload the table from what is durable."""
        log.error("table %s: commit failed (%s); reloading from the store", self.id, error)
        self.generation += 1
        self.writing = []
        self.broken = True
        try:
            self._reload()
        except Exception:
            log.exception("table %s: reloading failed; will retry on the next request", self.id)

    def _reload(self) -> None:
        """Load the table again from the store (after a failure).

        :raises StoreError: if the store cannot load it yet.
        """
        try:
            snapshot, history = self.store.load(self.id)
        except Exception as exc:
            raise StoreError(f"table {self.id!r} is unavailable: the store failed") from exc
        self.table = Table(snapshot, self.table.ruleset, history, load_event=self.table.load_event)
        self.durable_seq = self.table.info.seq
        self.broken = False
        self.writer.reset(self.id)

    # -- broadcast ---------------------------------------------------------------

    def broadcast(self, events: list[Event]) -> None:
        """Send events to every client of the table, each in its own view.

        Each event is viewed at most twice (GM, everyone else) and encoded at
        most once per view, frame kind and dialect, however many clients. A
        view or encoding that fails (a ruleset's or adapter's bug) costs only
        the clients that needed it their copy.
        """
        if not self.clients:
            return
        for event in events:
            views: dict[bool, JSON | None] = {}
            frames: dict[tuple[bool, str, str], bytes | str | None] = {}
            for client in list(self.clients):
                gm = client.principal.is_gm
                key = (gm, client.kind, client.dialect)
                if key not in frames:
                    frames[key] = self._frame(event, gm, views, client)
                frame = frames[key]
                if frame is not None:
                    client.enqueue(frame)

    def _frame(
        self, event: Event, gm: bool, views: dict[bool, JSON | None], client: Client
    ) -> bytes | str | None:
        try:
            if gm not in views:
                views[gm] = {
                    "type": "event",
                    "table": self.id,
                    **self.table.view_event(event, gm=gm),
                }
            view = views[gm]
            return None if view is None else client.encode(view)
        except Exception:
            views.setdefault(gm, None)
            log.exception("table %s: event %s could not be shown to %s", self.id, event.seq,
                          "the GM" if gm else "players")  # fmt: skip
            return None
