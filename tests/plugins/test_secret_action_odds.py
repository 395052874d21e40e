"""The odds of an action that is always secret (``ActionSpec(secret=True)``; a GM's
hidden perception check), asked over a real server on a real port with a real SQLite
file. The ``odds`` hook is told the action is secret as ``resolve`` is
(``context.secret``; it was told ``False``: review plugins-24's closing note), and a
player is answered, not refused: a secret hides how a roll went, not its chance, and
the chance comes only from what the asker sees (tests/plugins/listener.py's
``listen``: a d10 under the actor's skill; the Bandit's sheet hidden from players)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from rollbridge.cli.odds import action_context
from rollbridge.contract import ActionContext, Odds, Resolution
from rollbridge.dice import DiceSource
from rollbridge.testing import RulesetHarness
from tests.plugins.listener import Listener
from tests.plugins.rollunder import conformance_of
from tests.plugins.test_secret_actions import joined, served


class Noting(Listener):
    """Listener whose ``odds`` and ``resolve`` note what each call was told."""

    def __init__(self) -> None:
        self.told: list[tuple[str, bool, bool]] = []
        self.resolved: set[tuple[str, bool]] = set()

    def odds(self, context: ActionContext) -> Odds | None:
        self.told.append((context.action, context.by_gm, context.secret))
        return super().odds(context)

    def resolve(self, context: ActionContext, dice: DiceSource) -> Resolution:
        self.resolved.add((context.action, context.secret))
        return super().resolve(context, dice)


def hears(reply: dict[str, Any]) -> Fraction:
    """The probability an ``odds`` reply gives ``hears``."""
    (outcome,) = [o for o in reply["odds"]["outcomes"] if o["outcome"] == "hears"]
    return Fraction(outcome["probability"])


@pytest.mark.parametrize(
    ("asker", "actor", "chance"),
    [("gm", "bandit", Fraction(4, 10)), ("player", "hero", Fraction(6, 10))],
)
async def test_the_odds_hook_is_told_an_always_secret_action_is_secret(
    tmp_path, asker, actor, chance
):
    """The GM's odds of the Bandit's ``listen`` (skill 5), the player's of their
    Hero's (skill 7): answered, the hook told ``secret`` as ``resolve`` is for every
    request of the action; for ``test`` (not secret) told it is not."""
    ruleset = Noting()
    server, store, tokens = await served(tmp_path, ruleset)
    try:
        peer, _ = await joined(server, tokens[asker])
        reply = await peer.request({"type": "odds", "action": "listen", "actor": actor})
        assert reply["type"] == "result" and hears(reply) == chance, reply
        test = {"type": "odds", "action": "test", "actor": "hero", "targets": ["bandit"]}
        if asker == "gm":  # a player is refused odds_hidden first (the Bandit's sheet)
            refused = await peer.request(test)
            assert refused["code"] == "odds_unavailable", refused  # Listener gives none
        by_gm = asker == "gm"
        expected = [("listen", by_gm, True)] + ([("test", True, False)] if by_gm else [])
        assert ruleset.told == expected
        await peer.close()
    finally:
        await server.stop()
        store.close()


async def test_a_players_odds_of_the_gms_hidden_check_come_from_what_players_see(tmp_path):
    """The player asks the odds of the GM's Bandit listening: the Bandit's sheet is
    hidden from players, so they are refused ``odds_hidden`` until they state one, and
    then answered from their statement (skill 9: 8/10), not from the Bandit's real
    skill 5 (4/10, the GM's answer); nothing is recorded."""
    server, store, tokens = await served(tmp_path)
    try:
        player, _ = await joined(server, tokens["player"])
        gm, _ = await joined(server, tokens["gm"])
        asked = {"type": "odds", "action": "listen", "actor": "bandit"}
        refused = await player.request(asked)
        assert refused["code"] == "odds_hidden", refused
        assert refused["details"] == {"actor": "bandit", "part": "sheet"}, refused
        stated = {"bandit": {"sheet": {"skill": 9}, "state": {}}}
        answered = await player.request({**asked, "assume": stated})
        assert hears(answered) == Fraction(8, 10), answered
        assert answered["limited"] == ["bandit"] and answered["assumed"] == ["bandit"]
        assert hears(await gm.request(asked)) == Fraction(4, 10)
        assert store.load("night")[0].info.seq == 2  # the two actors' creation only
        for peer in (player, gm):
            await peer.close()
    finally:
        await server.stop()
        store.close()


def test_rollbridge_odds_tells_the_hook_it_is_secret_as_the_server_does():
    """``rollbridge odds listener listen`` asks the hook with the context
    :func:`~rollbridge.cli.odds.action_context` makes: secret for ``listen``, not
    for ``test``, as the server's (it said ``False`` for both)."""
    table = RulesetHarness(Listener())
    for name in ("Hero", "Bandit"):
        table.add_actor(name, Listener.example_sheets[name], actor_id=name.lower())
    assert action_context(table.table, "listen", {}).secret is True
    assert action_context(table.table, "test", {}).secret is False


def test_the_suites_own_contexts_say_secret_as_the_server_does():
    """The conformance suite calls ``odds`` and ``resolve`` itself (exact odds,
    purity, fuzzed states): with ``secret`` for ``listen`` as the server gives it,
    not a context no table makes (they said ``False``)."""
    ruleset = Noting()
    suite = conformance_of(ruleset)
    suite.test_odds_are_exact_and_draw_no_dice()
    suite.test_resolution_is_pure_and_reproducible()
    suite.test_supplied_states_are_refused_or_work()
    assert {(action, secret) for action, _, secret in ruleset.told} == {("listen", True),
                                                                      ("test", False)}  # fmt: skip
    assert ruleset.resolved == {("listen", True), ("test", False)}
