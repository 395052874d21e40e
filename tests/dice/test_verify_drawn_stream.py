"""``rollbridge verify`` judges the stream of a client's draw as it does a roll's.

A ``draw`` (the Foundry module's dice fulfillment: the server's dice for each roll a
client evaluates itself) is logged as ``dice.drawn`` and drawn by the engine's rule
(rollbridge.engine.segments.stream_of): on the public stream unless it is secret or
for an NPC. Before, verify judged ``roll`` and ``resolution`` events only: a
player's draw for their own actor that the log said was drawn on the GM's stream,
whose seed players never see, was counted as the GM's business and the player's
export verified (exit 0), so a server could keep every Foundry roll of a night from
the players' check by saying ``gm``.
"""

from __future__ import annotations

import pytest

from tests.dice.test_verify_players_dice import (
    GM,
    PLAYER,
    _ana_and_guard,
    _moved_to_gm,
    _roll,
    _verified,
)

pytestmark = pytest.mark.usefixtures("english_without_stores")


@pytest.fixture
def exports(tmp_path) -> dict[str, list[dict]]:
    """A verifiable wilddie table: the player's draw for Ana, the GM's for the NPC
    guard and the GM's secret draw, then a reveal; the GM's and the player's
    exports, as lines."""

    draws = [
        (PLAYER, {"id": "mine", "faces": 20, "number": 1, "actor": "ana", "label": "1d20"}),
        (GM, {"id": "npc", "faces": 6, "number": 2, "actor": "guard", "label": "2d6"}),
        (GM, {"id": "hid", "faces": 6, "number": 1, "secret": True, "label": "1d6"}),
    ]
    return _ana_and_guard(tmp_path, "d", [(w, {"type": "draw", **r}) for w, r in draws])


@pytest.mark.parametrize("who", ["gm", "player"])
def test_the_honest_logs_verify(tmp_path, exports, who):
    lines = exports[who]
    assert _roll(lines, "mine")["kind"] == "dice.drawn"
    assert _roll(lines, "mine")["data"]["draws"]["stream"] == "public"
    if who == "gm":
        assert _roll(lines, "npc")["data"]["draws"]["stream"] == "gm"
        assert _roll(lines, "hid")["data"]["draws"]["stream"] == "gm"
    status, report = _verified(tmp_path, lines)
    assert status == 0 and report["ok"], report["problems"]


def test_a_players_draw_moved_to_the_gms_stream_is_a_mismatch(tmp_path, exports):
    status, problems, _ = _moved_to_gm(tmp_path, exports["player"], "mine")
    assert (status, problems) == (1, [("public_on_gm", _roll(exports["player"], "mine")["seq"])])
