"""The table service: a table engine wired to a store and the plugin host.

This is the synchronous wiring the CLI, the test harness and embedding code
use; the WebSocket server follows the same steps asynchronously. For each
request: parse it, answer a repeated request id from the remembered replies,
otherwise execute it on the table (opened from the store on first use),
commit the outcome, and only then tell observer plugins and return the reply.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Mapping
from typing import Any

from rollbridge.dice.sources import DiceSource, SecureDice
from rollbridge.engine.model import Event, Principal, TableInfo
from rollbridge.engine.requests import Request, parse_request
from rollbridge.engine.settings import default_settings
from rollbridge.engine.store import Store
from rollbridge.engine.table import Outcome, Table
from rollbridge.exceptions import InvalidRequest, RollbridgeError, StoreError
from rollbridge.host import PluginHost
from rollbridge.tokens import TokenRecord, new_token

__all__ = ["TableService", "new_table_id", "notify_observers"]

JSON = dict[str, Any]
_SLUG = re.compile(r"[^a-z0-9]+")


def new_table_id(name: str) -> str:
    """A readable, unguessable-enough table id: a slug of the name and 8 hex digits."""
    slug = _SLUG.sub("-", name.lower()).strip("-")[:24] or "table"
    return f"{slug}-{secrets.token_hex(4)}"


def notify_observers(host: PluginHost, table: Table, events: list[Event]) -> None:
    """Fire the observer hooks for events that are durable, in seq order."""
    wants_rolls = host.implements("roll_resolved")
    wants_states = host.implements("actor_state_changed")
    if not (wants_rolls or wants_states):
        return
    for event in events:
        if wants_rolls and event.kind in ("roll", "resolution"):
            host.notify(
                "roll_resolved", table_id=table.info.id, event=table.view_event(event, gm=True)
            )
        if wants_states:
            for change in event.changes:
                after = change["after"]
                common = (
                    table.view_actor(change["actor"], gm=True)["common"]
                    if after is not None and change["actor"] in table.actors
                    else None
                )
                host.notify(
                    "actor_state_changed",
                    table_id=table.info.id,
                    actor_id=change["actor"],
                    before=change["before"]["state"] if change["before"] else None,
                    after=after["state"] if after else None,
                    common=common,
                    seq=event.seq,
                )


class TableService:
    """Tables on one store, executed one request at a time.

    :param store: where tables live.
    :param host: the plugin host (rulesets, observers).
    :param dice: makes the dice source of each request (default: secure).
    """

    def __init__(
        self,
        store: Store,
        host: PluginHost,
        *,
        dice: Callable[[], DiceSource] = SecureDice,
    ) -> None:
        self.store = store
        self.host = host
        self.dice = dice
        self._open: dict[str, Table] = {}

    def create_table(
        self,
        name: str,
        ruleset: str,
        *,
        settings: Mapping[str, Any] | None = None,
        table_id: str | None = None,
    ) -> tuple[TableInfo, dict[str, str]]:
        """Create a table with a gm, a player and an observer token.

        :returns: the table's info and the tokens by role (shown once).
        :raises UnknownRuleset: InvalidSettings:
        """
        chosen = self.host.ruleset(ruleset)
        info = TableInfo(
            id=table_id or new_table_id(name),
            name=name,
            ruleset=chosen.id,
            ruleset_version=chosen.version,
            settings=default_settings(chosen, settings),
        )
        tokens: dict[str, str] = {}
        records: list[TokenRecord] = []
        for role in ("gm", "player", "observer"):
            secret, record = new_token(info.id, role)  # type: ignore[arg-type]
            tokens[role] = secret
            records.append(record)
        self.store.create_table(info, records)
        self.host.notify("table_created", table=info.to_dict())
        return info, tokens

    def table(self, table_id: str) -> Table:
        """The table, opened from the store on first use.

        :raises UnknownTable: RulesetUnavailable:
        """
        table = self._open.get(table_id)
        if table is None:
            snapshot, history = self.store.load(table_id)
            ruleset = Table.check_ruleset(snapshot.info, self.host.rulesets)
            table = Table(
                snapshot, ruleset, history, load_event=lambda seq: self.store.event(table_id, seq)
            )
            self._open[table_id] = table
        return table

    def forget(self, table_id: str) -> None:
        """Drop the in-memory table; the next request loads it from the store."""
        self._open.pop(table_id, None)

    def handle(
        self,
        table_id: str,
        message: Mapping[str, Any],
        who: Principal,
        dice: DiceSource | None = None,
    ) -> JSON:
        """Handle one request message for ``who`` and return the reply.

        :raises RollbridgeError: a typed error; nothing was changed.
        """
        request = parse_request(message)
        table = self.table(table_id)
        if not request.spec.writes:
            return self._read(table, request, who)
        key = Table.reply_key(who, request.id)
        remembered = table.remembered_reply(key) or self.store.reply(table_id, key)
        if remembered is not None:
            return remembered
        outcome = table.execute(request, who, dice if dice is not None else self.dice())
        self._commit(table, outcome)
        return outcome.reply

    def _read(self, table: Table, request: Request, who: Principal) -> JSON:
        at = request.fields.get("at")
        later = (
            [] if at is None or at >= table.info.seq else self.store.events_after(table.info.id, at)
        )
        if later is None:
            raise InvalidRequest(
                f"state.at: seq {at} is older than the retained event log",
                details={"field": "at"},
            )
        return {"table": table.view(gm=who.is_gm, at=at, later=later)}

    def _commit(self, table: Table, outcome: Outcome) -> None:
        assert outcome.commit is not None
        try:
            self.store.commit(table.info.id, outcome.commit)
        except RollbridgeError:
            self.forget(table.info.id)
            raise
        except Exception as exc:
            self.forget(table.info.id)
            raise StoreError(f"the store failed to commit: {type(exc).__name__}: {exc}") from exc
        notify_observers(self.host, table, outcome.events)
