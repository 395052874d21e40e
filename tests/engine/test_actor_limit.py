"""A table holds at most ``max_actors`` actors (``serve --max-actors``; docs/
operations.md, "Limits"): ``actor.create`` past it is refused ``limit_exceeded``
with the limit, and changes nothing; a removal makes room again. Over a real
server: tests/hostile/test_hostile_limits.py."""

from __future__ import annotations

import pytest

from rollbridge.engine.table import MAX_ACTORS, Table
from rollbridge.exceptions import LimitExceeded
from tests.conftest import GM


def create(service, actor_id: str) -> dict:
    actor = {"id": actor_id, "name": actor_id.title(), "sheet": {"hp": 5}}
    return service.handle("t", {"type": "actor.create", "id": f"c-{actor_id}", "actor": actor}, GM)


def test_the_actor_past_the_limit_is_refused_and_nothing_changes(service, monkeypatch):
    assert Table.max_actors == MAX_ACTORS == 1000
    protocol = service.protocol("t")
    protocol.max_actors = 3  # the driver's option (serve --max-actors), on its table
    protocol.adopt(protocol.table)
    for n in range(3):
        assert create(service, f"a{n}")["status"] == "done"
    before = service.table("t").view(gm=True)
    with pytest.raises(LimitExceeded) as refused:
        create(service, "a3")
    assert refused.value.code == "limit_exceeded"
    assert refused.value.details == {"limit": 3}
    assert "holds 3 actors, its limit" in str(refused.value)
    assert service.table("t").view(gm=True) == before  # no seq, no actor, no undo
    service.handle("t", {"type": "actor.remove", "id": "rm", "actor": "a0"}, GM)
    assert create(service, "a3")["status"] == "done"  # room again
    assert [a["id"] for a in service.table("t").view(gm=True)["actors"]] == ["a1", "a2", "a3"]


def test_no_limit_when_it_is_off(service):
    protocol = service.protocol("t")
    protocol.max_actors = None
    protocol.adopt(protocol.table)
    for n in range(5):
        assert create(service, f"a{n}")["status"] == "done"
