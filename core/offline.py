"""The offline driver: tables on a store, one request at a time, in the caller's thread.

What the CLI's offline commands, the test harness and embedding code use. It
carries out the :mod:`rollbridge.protocol` effects synchronously — store reads
and commits as plain calls — so :meth:`TableService.handle` returns the reply
once the change is committed, or raises the typed error of a refused request.
The WebSocket server drives the same protocol asynchronously.
"""

from __future__ import annotations

import re
import secrets
import time
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any

from rollbridge.dice.sources import DiceSource, SecureDice
from rollbridge.dice.verifiable import DiceKey
from rollbridge.engine.model import Principal, TableInfo
from rollbridge.engine.settings import default_settings
from rollbridge.engine.table import Table
from rollbridge.host import PluginHost
from rollbridge.names import check_name
from rollbridge.plain import JSON
from rollbridge.protocol.effects import Effect, LoadTable, Notify, Persist, Read, Reply
from rollbridge.protocol.observers import notify
from rollbridge.protocol.table import TableProtocol
from rollbridge.stores.base import Store
from rollbridge.tokens import TokenRecord, new_token

__all__ = ["TableService", "new_table_id"]

_SLUG = re.compile(r"[^a-z0-9]+")
#: Letters a table's name may have that lose more than an accent to become ASCII, as
#: ICAO Doc 9303 part 3 (passports) spells them in Latin letters: German's ß and
#: umlauts ("Würfel" → "wuerfel"), and the Cyrillic letters of its table — Russian's
#: ("Пятница" → "piatnitsa"), Ukrainian's і ї є ґ ("Київ" → "kiiv"), Belarusian's ў,
#: Serbian's and Macedonian's ђ ѓ ѕ ј љ њ ћ ќ џ ("Љубљана" → "ljubljana"), Bulgarian's
#: ъ (``ie``). ICAO's г and и are g and i in every language (its Ukrainian h and y
#: would change the ids of tables made before). Other accented Latin letters (á, ř,
#: é) lose their accent by Unicode's decomposition instead.
_SPELLED = str.maketrans({
    "ß": "ss", "ä": "ae", "ö": "oe", "ü": "ue",
    "а": "a", "б": "b", "в": "v", "г": "g", "д": "d", "е": "e", "ё": "e",
    "ж": "zh", "з": "z", "и": "i", "й": "i", "к": "k", "л": "l", "м": "m", "н": "n",
    "о": "o", "п": "p", "р": "r", "с": "s", "т": "t", "у": "u", "ф": "f", "х": "kh",
    "ц": "ts", "ч": "ch", "ш": "sh", "щ": "shch", "ъ": "ie", "ы": "y", "ь": "", "э": "e",
    "ю": "iu", "я": "ia",
    "ґ": "g", "є": "ie", "і": "i", "ї": "i", "ў": "u",
    "ђ": "d", "ѓ": "g", "ѕ": "dz", "ј": "j", "љ": "lj", "њ": "nj", "ћ": "c", "ќ": "k",
    "џ": "dz",
})  # fmt: skip


def new_table_id(name: str) -> str:
    """A readable, unguessable-enough table id: a slug of the name in ASCII letters
    and digits ("Pátek" → ``patek``, "Пятница" → ``piatnitsa``, "Київ" → ``kiiv``),
    and 8 hex digits."""
    # lower again: a compatibility form may be a capital ("𝕯" → "D", "ℍ" → "H")
    ascii_name = unicodedata.normalize("NFKD", name.lower().translate(_SPELLED)).lower()
    ascii_name = "".join(c for c in ascii_name if not unicodedata.combining(c))
    slug = _SLUG.sub("-", ascii_name).strip("-")[:24].strip("-") or "table"
    return f"{slug}-{secrets.token_hex(4)}"


class TableService:
    """Tables on one store, executed one request at a time.

    :param store: where tables live.
    :param host: the plugin host (rulesets, observers).
    :param dice: makes the dice source of each request (default: secure).
    :param dice_key: the key of verifiable dice (default: :meth:`DiceKey.for_store`).
    :param clock: the time now, in seconds since the Unix epoch, recorded in each
        event (default: the system's; None: events carry no time).
    """

    def __init__(
        self,
        store: Store,
        host: PluginHost,
        *,
        dice: Callable[[], DiceSource] = SecureDice,
        dice_key: DiceKey | None = None,
        clock: Callable[[], float] | None = time.time,
    ) -> None:
        self.store = store
        self.clock = clock
        self.host = host
        self.dice = dice
        #: The key of verifiable dice: the store's (beside its file), unless given.
        self.dice_key = dice_key if dice_key is not None else DiceKey.for_store(store)
        self._open: dict[str, TableProtocol] = {}

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
        :raises UnknownRuleset: InvalidSettings: InvalidRequest: a bad name.
        """
        check_name(name)
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
        verifiable = info.settings.get("verifiable")
        if verifiable:  # on through the engine, so that the first segment is committed
            info.settings["verifiable"] = False
        self.store.create_table(info, records)
        self.host.notify("table_created", table=info.to_dict())
        if verifiable:
            change = {"type": "settings", "id": "create", "settings": {"verifiable": True}}
            self.handle(info.id, change, Principal("gm", "rollbridge", "create"))
            info = self.table(info.id).info
        return info, tokens

    def protocol(self, table_id: str) -> TableProtocol:
        """The table's protocol, opened from the store on first use.

        :raises UnknownTable: RulesetUnavailable:
        """
        protocol = self._open.get(table_id)
        if protocol is None:
            loaded = LoadTable(table_id=table_id).run(self.store)
            protocol = TableProtocol.open(
                loaded,
                self.host.rulesets,
                dice=self.dice,
                dice_key=self.dice_key,
                clock=self.clock,
                retain=self.store.retain,
            )
            self._open[table_id] = protocol
        return protocol

    def table(self, table_id: str) -> Table:
        """The table engine, opened from the store on first use.

        :raises UnknownTable: RulesetUnavailable:
        """
        return self.protocol(table_id).table

    def forget(self, table_id: str) -> None:
        """Drop the in-memory table; the next request loads it from the store."""
        self._open.pop(table_id, None)

    def handle(
        self,
        table_id: str,
        message: Mapping[str, Any],
        who: Principal,
        dice: DiceSource | None = None,
        *,
        locale: str = "en",
    ) -> JSON:
        """Handle one request message for ``who`` and return the reply (its fields
        besides ``type`` and ``id``, its texts in ``locale``), once any change it
        made is committed.

        :raises RollbridgeError: a typed error (:meth:`~rollbridge.exceptions.
            RollbridgeError.render` gives its message in ``locale``); nothing was changed.
        """
        protocol = self.protocol(table_id)
        replies: list[Reply] = []
        self._carry(protocol.receive(message, who, dice=dice, locale=locale), replies)
        reply = replies[-1]
        if reply.error is not None:
            raise reply.error
        return {k: v for k, v in reply.message.items() if k not in ("type", "id")}

    def _carry(self, effects: list[Effect], replies: list[Reply]) -> None:
        """Carry out effects in order, and the effects they lead to."""
        pending = list(effects)
        while pending:
            effect = pending.pop(0)
            follow: list[Effect] = []
            if isinstance(effect, Reply):
                replies.append(effect)
            elif isinstance(effect, Read):
                try:
                    result = effect.run(self.store)
                except Exception as exc:
                    follow = effect.fail(exc)
                else:
                    follow = effect.resume(result)
            elif isinstance(effect, Persist):
                try:
                    assert effect.commit is not None
                    self.store.commit(effect.table_id, effect.commit)
                except Exception as exc:
                    follow = effect.fail(exc)
                else:
                    follow = effect.resume(None)
            elif isinstance(effect, Notify):
                assert effect.table is not None
                notify(self.host, effect.table, effect.events)
            pending[:0] = follow
