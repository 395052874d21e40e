"""A ruleset with an action that is always secret: ``listen``, the GM's hidden
perception check (a d10 under the actor's skill, rolled behind the screen; its odds), beside
:class:`~tests.plugins.rollunder.RollUnder`'s ``test``. Whoever asks, and however,
players learn only that something happened (docs/plugins.md, "Secret requests")."""

from __future__ import annotations

from rollbridge import ActionContext, ActionSpec, Resolution
from rollbridge.contract import Odds, distribution
from rollbridge.dice import DiceGroup, DiceSource, roll_die
from rollbridge.text import Messages
from tests.plugins.rollunder import D10, RollUnder

say = Messages("rollunder_tests")
HEARS = say("listen.hears", "{actor} rolls {roll} under {skill}: hears something")
MISSES = say("listen.misses", "{actor} rolls {roll}, needing under {skill}: hears nothing")
HEARD = {"hears": say("odds.hears", "hears something")(),
         "misses": say("odds.misses", "hears nothing")()}  # fmt: skip


class Listener(RollUnder):
    """RollUnder with ``listen``, always secret, and its odds."""

    id = "listener"
    name = "Listener (test fixture)"
    actions = {
        **RollUnder.actions,
        "listen": ActionSpec(
            "listen", "The GM's hidden perception check: a d10 under skill.",
            params={"type": "object"}, example={}, secret=True,
        ),
    }  # fmt: skip

    def resolve(self, context: ActionContext, dice: DiceSource) -> Resolution:
        if context.action != "listen":
            return super().resolve(context, dice)
        me = context.actor
        assert me is not None
        die = roll_die(dice, 10)
        skill = me.sheet["skill"]
        said = HEARS if die.value < skill else MISSES
        group = DiceGroup(D10(), (die,), formula="1d10", total=die.value)
        narration = said(actor=me.name, roll=die.value, skill=skill)
        return Resolution(narration, {"heard": die.value < skill}, dice=[group])

    def odds(self, context: ActionContext) -> Odds | None:
        """``listen``'s: a d10 under the actor's skill; no other action's."""
        if context.action != "listen" or context.actor is None:
            return None
        totals = distribution("1d10")
        hears = totals.at_most(context.actor.sheet["skill"] - 1)
        return Odds({"hears": hears, "misses": 1 - hears}, totals=totals, labels=HEARD)
