"""A ``RuleViolation`` subclass whose ``__init__`` never calls ``super().__init__``
and keeps its words itself: its arguments a list that holds itself (the path a
ruleset walked, linking back) read "…" there since hostile19; one that sets its own
``message`` to a list — a list holding itself too — was answered ``internal`` with a
traceback logged (``str.isascii`` of a list, where a message is read as text). Each
now reads as a list given as the message reads, a ``Private`` in it hidden from
players, over a real WebSocket."""

from __future__ import annotations

import pytest

from rollbridge.exceptions import RuleViolation
from rollbridge.text import Private
from tests.engine.test_recursive_arguments import holding_itself

RESOLVE = {"type": "resolve", "action": "hit", "actor": "ana", "targets": ["guard"]}


class Lost(RuleViolation):
    """Keeps the path it was given; the message is its arguments."""

    code = "lost"

    def __init__(self, path: list) -> None:
        self.path = path


class LostSaying(RuleViolation):
    """Keeps the path as its own message."""

    code = "lost"

    def __init__(self, path: list) -> None:
        self.message = path


def path_with_armor() -> list:
    """A path holding itself and the guard's armour (private)."""
    path = holding_itself()
    path.append(Private(7, of="guard", aspect="armor"))
    return path


@pytest.mark.parametrize("kind", [Lost, LostSaying])
@pytest.mark.parametrize("locale", ["en", "de"])
async def test_a_no_super_refusal_of_a_list_holding_itself_reads_its_words(
    tables, tally, monkeypatch, kind, locale
):
    def resolve(self, context, dice):
        raise kind(path_with_armor())

    monkeypatch.setattr(type(tally), "resolve", resolve)
    gm, _ = await tables.join("tally", "gm", locale=locale)
    player, _ = await tables.join("tally", "player", locale=locale)
    refused = await player.request(RESOLVE)
    assert refused["code"] == "lost", refused
    assert refused["message"].startswith("cave, …, ") and "7" not in refused["message"]
    full = await gm.request(RESOLVE)
    assert (full["code"], full["message"]) == ("lost", "cave, …, 7"), full
