"""What docs/protocol.md ("Odds") now says of the explosion depth of an ``odds``
request: the server computes at the default depth, and a request cannot choose
another. (The docs said nothing of it; a GM who sent ``depth`` met an unknown field.)"""

from __future__ import annotations

import pytest

from rollbridge.cli.offline import offline_host
from rollbridge.engine.model import Principal
from rollbridge.exceptions import InvalidRequest
from rollbridge.offline import TableService
from rollbridge.stores.memory import MemoryStore

PLAYER = Principal("player", "pat", "player-token")


def test_odds_are_at_the_default_depth_and_a_depth_is_refused():
    service = TableService(MemoryStore(), offline_host())
    service.create_table("t", "bandits", table_id="t")
    answer = service.handle("t", {"type": "odds", "id": "o", "formula": "1d6x"}, PLAYER)
    assert answer["distribution"]["depth"] == 10
    assert answer["distribution"]["truncated"] == "1/362797056"  # (1/6)^11
    with pytest.raises(InvalidRequest) as refused:
        service.handle("t", {"type": "odds", "id": "p", "formula": "1d6x", "depth": 2}, PLAYER)
    assert (refused.value.code, refused.value.details) == (
        "invalid_request",
        {"field": "odds.depth"},
    )
