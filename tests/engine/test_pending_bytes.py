"""The requests waiting for the GM's approval are bounded in bytes, not only in
number: the list is part of the table's meta, which the SQLite store writes again in
every commit's log row, so a list of 64 rolls that supply their dice (~15 KiB each)
made every retained log row ~1 MiB — 1 GiB of log per table at ``--retain 1000``
(docs/operations.md, "What one table can store")."""

from __future__ import annotations

import contextlib
import itertools
import sqlite3
from pathlib import Path

import pytest

from rollbridge.dice import SeededDice
from rollbridge.engine import Principal
from rollbridge.engine.pending import MAX_PENDING_PER_PLAYER
from rollbridge.exceptions import Conflict
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.plain import pack
from rollbridge.stores import MemoryStore, SQLiteStore

GM = Principal("gm", "gm", "tok-gm")
#: ``rollbridge.engine.pending.MAX_PENDING_BYTES`` and ``…_PER_PLAYER`` (not
#: imported: the test must fail, not error, on the code before it).
MAX_PENDING_BYTES = 64 * 1024
MAX_PENDING_BYTES_PER_PLAYER = 8 * 1024
#: A roll whose supplied dice make a pending entry of ~15 KiB (2,997 dice).
BIG = {"type": "roll", "formula": "999d1000000+999d1000000+999d1000000", "label": "L" * 200,
       "dice": [1_000_000] * 2997}  # fmt: skip
#: A roll whose supplied dice make a pending entry of ~7.7 KiB (1,499 dice): the most
#: one player may keep waiting; eight of them (eight players) nearly fill a table.
MEDIUM = {"type": "roll", "formula": "999d1000000+500d1000000", "label": "L" * 200,
          "dice": [1_000_000] * 1499}  # fmt: skip


def player(n: int) -> Principal:
    return Principal("player", f"p{n}", f"tok-p{n}")


def service_on(store) -> TableService:
    seeds = itertools.count(1)
    host = PluginHost({}, environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
    service = TableService(store, host, dice=lambda: SeededDice(next(seeds)), clock=None)
    service.create_table("Waiting", "sr2", table_id="t")
    settings = {"approval": True, "player_dice": True}
    service.handle("t", {"type": "settings", "id": "s", "settings": settings}, GM)
    return service


def test_the_players_large_requests_stop_at_the_bytes_limit():
    service = service_on(MemoryStore())
    refused = []
    for n in range(10):
        try:
            request = {**MEDIUM, "id": f"m{n}"}
            assert service.handle("t", request, player(n))["status"] == "pending"
        except Conflict as exc:
            refused.append(exc)
    table = service.table("t")
    # eight fit in 64 KiB; the other two are refused, changing nothing
    assert len(table.pending) == 8 and len(refused) == 2
    assert {exc.code for exc in refused} == {"too_many_pending"}
    assert refused[0].details["limit"] == MAX_PENDING_BYTES
    assert refused[0].details["size"] > MAX_PENDING_BYTES
    assert refused[0].details["scope"] == "table"
    assert "64 KiB" in refused[0].message
    assert len(pack(table.pending)) <= MAX_PENDING_BYTES
    seq = table.info.seq
    with pytest.raises(Conflict):
        service.handle("t", {**MEDIUM, "id": "again"}, player(20))
    assert table.info.seq == seq and len(table.pending) == 8
    # a small request still fits: the bound is the list's bytes, not a count
    small = {"type": "roll", "formula": "1d6", "id": "small"}
    assert service.handle("t", small, player(21))["status"] == "pending"
    assert len(table.pending) == 9


def test_one_player_cannot_take_the_bytes_of_every_other():
    """A player's own requests may take 8 KiB (its share, as its 8 requests are of the
    table's 64): before, one player's four rolls supplying their 2,997 dice took the
    whole 64 KiB, and every other player's request — a plain ``1d6`` too — was
    refused until the GM approved or rejected them."""
    service = service_on(MemoryStore())
    refused = []
    for n in range(MAX_PENDING_PER_PLAYER):
        try:
            service.handle("t", {**BIG, "id": f"b{n}"}, player(1))
        except Conflict as exc:
            refused.append(exc)
    table = service.table("t")
    assert len(table.pending) == 0 and len(refused) == MAX_PENDING_PER_PLAYER
    assert refused[0].code == "too_many_pending"
    assert refused[0].details["scope"] == "player"
    assert refused[0].details["limit"] == MAX_PENDING_BYTES_PER_PLAYER
    assert refused[0].details["size"] > MAX_PENDING_BYTES_PER_PLAYER
    assert "8 KiB" in refused[0].message and "smaller" in refused[0].message
    assert service.handle("t", {**MEDIUM, "id": "m"}, player(1))["status"] == "pending"
    with pytest.raises(Conflict) as second:  # its share is taken: its next one waits
        service.handle("t", {**MEDIUM, "id": "m2"}, player(1))
    assert second.value.details["scope"] == "player"
    for n in range(2, 9):  # every other player still has room
        small = {"type": "roll", "formula": "1d6", "id": f"s{n}"}
        assert service.handle("t", small, player(n))["status"] == "pending"
    assert len(table.pending) == 8


def test_sqlite_log_rows_stay_small_while_players_wait(tmp_path: Path):
    """Sixteen players each try to leave four large rolls waiting, then the GM rolls
    on: no retained log row of the real file holds more than the bound's worth of
    meta."""
    path = tmp_path / "t.db"
    store = SQLiteStore(path, retain=10)
    try:
        service = service_on(store)
        for n in range(64):
            with contextlib.suppress(Conflict):
                service.handle("t", {**MEDIUM, "id": f"b{n}"}, player(n % 16))
        for n in range(20):
            service.handle("t", {"type": "roll", "formula": "1d6", "id": f"g{n}"}, GM)
    finally:
        store.close()
    with sqlite3.connect(path) as conn:
        rows = conn.execute('SELECT count(*), max(length(state)) FROM log WHERE "table" = ?',
                            ("t",)).fetchone()  # fmt: skip
    count, largest = rows
    assert count > 0
    assert largest <= MAX_PENDING_BYTES + 4096, largest


#: The longest formula the notation takes (256 characters: 1d6+1d6+…).
LONGEST_FORMULA = "+".join(["1d6"] * 64)


@pytest.mark.parametrize(
    ("letter", "fit"),
    [("L", MAX_PENDING_PER_PLAYER * 8), ("Ж", 6 * 8)],  # Latin: the count binds
)
def test_how_many_of_the_largest_plain_rolls_the_bytes_let_wait(letter: str, fit: int):
    """What docs/engine.md says 64 KiB holds: the largest rolls without supplied dice
    (the longest formula, a 200-letter label, a 64-letter id, players' 200-letter
    names) — 64 in Latin letters (~900 bytes each: the counts bind first), only six a
    player in Cyrillic (two bytes a letter, ~1.3 KB each: a player's 8 KiB), 48 in all.
    It said "the 64 largest plain rolls (~700 bytes each)", counting letters as
    bytes."""
    service = service_on(MemoryStore())
    waiting = 0
    refused: list[Conflict] = []
    for n in range(MAX_PENDING_PER_PLAYER * 8):
        who = Principal("player", letter * 199 + str(n % 8), f"key-{n % 8}")
        request = {"type": "roll", "id": letter * 62 + f"{n:02d}", "formula": LONGEST_FORMULA,
                   "label": letter * 200}  # fmt: skip
        try:
            assert service.handle("t", request, who)["status"] == "pending"
            waiting += 1
        except Conflict as exc:
            refused.append(exc)
    assert len(LONGEST_FORMULA) == 255
    assert waiting == fit, (waiting, refused[:1])
    assert all("limit" in exc.details for exc in refused)
