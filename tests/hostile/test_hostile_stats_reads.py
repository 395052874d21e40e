"""``stats`` of a log of the largest rolls counts no more than it must (hostile29).

A player who filled their table with ~1,000 rolls of 2,997 dice of a million faces
each and asked ``stats`` made a reader thread count every face of every event and
build a reply of ~10 MB — ~7 s of the interpreter's lock a request — only to refuse
it as larger than a reply may carry. Now the counting stops at the first event whose
faces alone show the reply too large (:meth:`~rollbridge.stats.tally.Tally.least_bytes`),
and a group's faces are counted in bulk (:mod:`rollbridge.stats.faces`).

Counted, not timed: the events counted while the request is out. The statistics
themselves are what they were: counted here again by hand from each audience's
views, die by die, for the GM and a player, over rolls, exploding dice, an sr2
attack with hits, undo and redo, and a GM's secret roll (a player's ``hidden``
stand-in)."""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

import pytest

from rollbridge.dice.sources import SeededDice
from rollbridge.engine.views import Audience
from rollbridge.export import read_log
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stats import check_scope, table_stats
from rollbridge.stats.dice import groups_of
from rollbridge.stats.scope import undone_seqs
from rollbridge.stats.tally import Tally
from rollbridge.stores.sqlite import SQLiteStore
from tests.export.conftest import GM, PLAYER, play_night
from tests.server.conftest import make_tables  # noqa: F401  (a fixture)

#: More rolls after the night's: sizes mixed, exploding and compounding dice.
MORE = ["2d6+1d20", "4d10x", "3d8!!", "1d100+2d6", "5d6x"]


def _by_hand(views: list[dict[str, Any]]) -> dict[str | None, dict[str, Any]]:
    """Dice counted face by face from the views (no scope, so every event not hidden):
    per actor (None: the session) per die size the faces shown and explosions."""
    counted: dict[str | None, dict[str, Any]] = {}
    for view in views:
        if view.get("kind") == "hidden":
            continue
        for owner, group in groups_of(view):
            rerolled = "reroll" in (group.get("tags") or ())
            for die in group.get("dice") or ():
                tags = die.get("tags") or ()
                if rerolled and "reroll" not in tags:
                    continue
                for who in {None, owner}:
                    sizes = counted.setdefault(who, {})
                    faces, blown = sizes.setdefault(die["faces"], (Counter(), [0]))
                    faces.update(r for r in die["rolls"] if r.__class__ is int)
                    blown[0] += ("exploded" in tags) + (
                        max(0, len(die["rolls"]) - 1) if "compounded" in tags else 0
                    )
    return counted


def _dice_of(summary: dict[str, Any]) -> dict[int, tuple[dict[int, int], int]]:
    return {
        int(size): ({int(f): n for f, n in d["faces"].items() if n}, d["explosions"])
        for size, d in summary["dice"].items()
    }


def _expected(hand: dict[str, Any]) -> dict[int, tuple[dict[int, int], int]]:
    return {size: (dict(faces), blown[0]) for size, (faces, blown) in hand.items()}


@pytest.mark.parametrize("audience", ["gm", "player"])
def test_the_statistics_are_the_faces_each_audience_was_shown(tmp_path, audience):
    path, host = tmp_path / "night.db", PluginHost()
    with SQLiteStore(path) as store:
        service = TableService(store, host, dice=lambda: SeededDice(29))
        service.create_table("Night", "sr2", table_id="sr2")
        seqs = play_night(service)
        for n, formula in enumerate(MORE):
            who = PLAYER if n % 2 else GM
            service.handle("sr2", {"id": f"m{n}", "type": "roll", "formula": formula}, who)
        log = read_log(store, "sr2", host.rulesets)
    stats = table_stats(log.table, log.events, audience=audience, scope=check_scope({}))["stats"]
    seen = Audience(audience == "gm", "en")
    views = [log.table.view_event(e, audience=seen) for e in log.events]
    hand = _by_hand(views)
    assert _dice_of(stats["session"]) == _expected(hand[None])
    for actor in stats["actors"]:
        assert _dice_of(stats["actors"][actor]) == _expected(hand[actor]), actor
    assert set(stats["actors"]) == {a for a in hand if a is not None}
    # the night's: the secret roll is the GM's alone, the attack hit, undone and redone
    hidden = [v for v in views if v.get("kind") == "hidden"]
    assert (audience == "player") == (len(hidden) == 1) and not undone_seqs(views)
    assert seqs["undo"] < seqs["redo"]
    assert {r["key"]: r["value"] for r in stats["session"]["ruleset"]}["hits"] == 1
    assert stats["session"]["explosions"] > 0


async def test_stats_too_large_stops_counting_where_the_faces_show_it(make_tables, monkeypatch):  # noqa: F811
    """60 rolls of 999 dice of a million faces (seeded): ~1,000 faces listed an event,
    5 bytes of the reply each at least, so the event after which the faces shown
    pass 131,072 / 5 is the last counted — found here from the events the player was
    sent."""
    draws = itertools.count()
    world = await make_tables(dice=lambda: SeededDice(f"hostile29:{next(draws)}"))
    counted: list[Any] = []
    add = Tally.add

    def counting(self: Tally, view: Any, *, undone: bool) -> None:
        counted.append(view["seq"])
        add(self, view, undone=undone)

    monkeypatch.setattr(Tally, "add", counting)
    player, _ = await world.join("sr2", "player")
    for _ in range(60):
        rolled = await player.request({"type": "roll", "formula": "999d1000000"})
        assert rolled["status"] == "done", rolled
    await player.wait_for(lambda p: len(p.events) >= 60)
    shown: set[int] = set()
    last = None
    for event in player.events:
        for _, group in groups_of(event):
            shown.update(r for die in group["dice"] for r in die["rolls"])
        if 5 * len(shown) > 131072:
            last = event["seq"]
            break
    refused = await player.request({"type": "stats"}, timeout=60)
    assert refused["type"] == "error" and refused["code"] == "limit_exceeded", refused
    assert refused["details"] == {"size": 5 * len(shown), "limit": 131072}, refused
    # before: every event counted (the 60 rolls, the two actors made), then refused
    assert last is not None and counted[-1] == last and len(counted) < 62, counted
    one = await player.request({"type": "stats", "since": last + 1, "until": last + 2})
    assert one["type"] == "result" and one["stats"]["session"]["rolls"] == 2, one
