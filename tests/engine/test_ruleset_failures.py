"""A ruleset's own failure, wherever the engine calls into it — resolve, odds,
statistics and their counts, common_state, player_view — reaches the client as
``internal`` naming the ruleset only, and the engine's log has the exception with its
traceback, naming the ruleset and the table (audit finding 2: the client read
"ruleset 'x' failed: Exception: boom: secret capacity is 5" and nothing was logged)."""

from __future__ import annotations

import logging

import pytest

from rollbridge.contract import Statistics
from rollbridge.engine import Principal
from rollbridge.exceptions import InternalError

from ..conftest import Tally

GM = Principal("gm", "gm", "tok-gm")
ALICE = Principal("player", "alice", "tok-alice")
SECRET = "secret capacity is 5"


def _raise(*_args, **_kwargs):
    raise RuntimeError(SECRET)


def _counting_fails(self):
    return Statistics((), _raise)


BROKEN = {
    "resolve": ("resolve", _raise, GM,
                {"type": "resolve", "action": "hit", "targets": ["guard"], "dice": [3]}),
    "odds": ("odds", _raise, GM, {"type": "odds", "action": "hit", "targets": ["guard"]}),
    "statistics": ("statistics", _raise, GM, {"type": "stats"}),
    "statistics-count": ("statistics", _counting_fails, GM, {"type": "stats"}),
    "common_state": ("common_state", _raise, GM, {"type": "state"}),
    "player_view": ("player_view", _raise, ALICE, {"type": "state"}),
    # staging a change: the views of the actors it changed, for each audience
    "common_state-staged": ("common_state", _raise, GM,
                            {"type": "resolve", "action": "hit", "targets": ["guard"],
                             "dice": [3]}),
    "player_view-staged": ("player_view", _raise, GM,
                           {"type": "resolve", "action": "hit", "targets": ["guard"],
                            "dice": [3]}),
    "player_view-in-odds": ("player_view", _raise, ALICE,
                            {"type": "odds", "action": "hit", "actor": "ana",
                             "targets": ["guard"]}),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_rulesets_failure_names_the_ruleset_only_and_is_logged(seated, monkeypatch, caplog, case):
    method, broken, who, request = BROKEN[case]
    if case == "statistics-count":
        seated.handle("t", {"type": "resolve", "id": "h", "action": "hit",
                            "targets": ["guard"], "dice": [3]}, GM)  # fmt: skip
    monkeypatch.setattr(Tally, method, broken)
    if case == "player_view-in-odds":  # a ruleset without odds is refused before any view
        monkeypatch.setattr(Tally, "odds", lambda self, context: None)
    before = seated.table("t").info.seq
    with (
        caplog.at_level(logging.ERROR, logger="rollbridge.engine"),
        pytest.raises(InternalError) as raised,
    ):
        seated.handle("t", {"id": "x", **request}, who)
    assert seated.table("t").info.seq == before  # nothing applied
    assert raised.value.to_dict() == {"code": "internal", "message": "ruleset 'tally' failed"}
    for locale in ("cs", "de", "ru"):
        assert SECRET not in raised.value.render(locale)
    logged = [r for r in caplog.records if r.name == "rollbridge.engine"]
    assert logged and logged[0].levelno == logging.ERROR
    assert "'tally'" in logged[0].getMessage() and "'t'" in logged[0].getMessage()
    assert logged[0].exc_info is not None and SECRET in caplog.text
