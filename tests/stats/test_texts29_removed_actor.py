"""Statistics name an actor removed from the table as the log knows it: by the name
its retained creation event showed, else in the reader's words as a removed actor —
never by its id. Before (texts29): ``"name": "ana"`` (the id) once the creation
had left the retained log (docs/statistics.md)."""

from __future__ import annotations

import pytest

from rollbridge.dice.sources import SeededDice
from rollbridge.export import read_log
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stats import check_scope, table_stats
from rollbridge.stores.sqlite import SQLiteStore
from tests.export.conftest import GM

SHEET = {"body": 4, "combat_pool": 3, "armor": {"ballistic": 4, "impact": 2}}
REMOVED = {"en": "a removed actor", "cs": "odebraná postava", "de": "eine entfernte Figur",
           "ru": "удалённый персонаж"}  # fmt: skip


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """Ana created, rolling once, removed: three events of an sr2 table."""
    path = tmp_path_factory.mktemp("removed") / "t.db"
    host = PluginHost()
    with SQLiteStore(path) as store:
        service = TableService(store, host, dice=lambda: SeededDice(1))
        service.create_table("t", "sr2", table_id="sr2")
        actor = {"id": "ana", "name": "Ana", "sheet": SHEET}
        service.handle("sr2", {"type": "actor.create", "id": "a", "actor": actor}, GM)
        roll = {"type": "roll", "id": "r", "formula": "2d6", "actor": "ana", "dice": [3, 4]}
        service.handle("sr2", roll, GM)
        service.handle("sr2", {"type": "actor.remove", "id": "x", "actor": "ana"}, GM)
    return path, host


def _named(played, retain: int, locale: str) -> dict:
    path, host = played
    with SQLiteStore(path, retain=retain) as store:
        log = read_log(store, "sr2", host.rulesets)
    stats = table_stats(log.table, log.events, audience="gm", scope=check_scope({}),
                        locale=locale)  # fmt: skip
    return stats["stats"]["actors"]["ana"]


@pytest.mark.parametrize("locale", sorted(REMOVED))
def test_a_removed_actor_keeps_the_name_its_retained_creation_showed(played, locale):
    assert _named(played, 100, locale)["name"] == "Ana"


@pytest.mark.parametrize("locale", sorted(REMOVED))
def test_a_removed_actor_no_retained_event_names_is_a_removed_actor_in_words(played, locale):
    ana = _named(played, 2, locale)  # the roll and the removal: the creation is gone
    assert ana["rolls"] == 1
    assert ana["name"] == REMOVED[locale]
