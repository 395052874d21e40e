"""An eighth ruleset, written from docs/plugins.md alone (plugins-23): push your luck
against the house. The dealer (an NPC) stakes a hidden pool — the GM sends ``stake``
secret, the total kept in the dealer's state, which players never see; a player
pushes a few d6 at a time into a pot (any 1 busts it) and reads whether the pot beats
the house, never the house's number: it stands as a ``Private`` in a step and as the
dice group's ``target``. Its ``push`` cannot be done by fresh actors (the house has
staked nothing yet): what the conformance suite's ``example_states`` is for."""

from __future__ import annotations

import functools

import rollbridge
from rollbridge import ActionSpec, CommonState, Resolution, Ruleset, Track
from rollbridge.contract import PlayerView
from rollbridge.dice import DiceGroup, roll_die
from rollbridge.exceptions import RuleViolation
from rollbridge.text import Messages, Private

say = Messages("pushluck")
STAKES = say("stake.done", "{dealer} stakes the house's pool")
PUSHES = say("push.done", "{name} pushes: the pot is {pot}")
BUSTS = say("push.bust", "{name} rolls a 1 and busts")
AGAINST = say("push.against", "pot {pot} against the house's {house}")
AHEAD = say("push.ahead", "the pot beats the house")
BEHIND = say("push.behind", "the house still leads")
NO_STAKE = say("refused.no_stake", "{dealer} has staked nothing yet")
HOUSE_DICE = say("dice.house", "house pool")
PUSH_DICE = say("dice.push", "push")
POT = say("track.pot", "Pot")
HOUSE = say("track.house", "House pool")
DICE_LABEL = say("param.dice", "Dice")
DICE_HINT = say("hint.dice", "How many d6 to push at once: any 1 busts the pot.")
MAX_POT = 60


@functools.lru_cache(maxsize=64)
def state_schema_for_nerve(nerve: int | None = None) -> dict:
    return {
        "type": "object",
        "properties": {
            "pot": {"type": "integer", "minimum": 0, "maximum": MAX_POT},
            "house": {"type": "integer", "minimum": 0, "maximum": 36},
            "pushes": {
                "type": "integer",
                "minimum": 0,
                **({} if nerve is None else {"maximum": nerve}),
            },
        },
    }


class PushLuck(Ruleset):
    id = "pushluck"
    name = "Push your luck"
    version = "1.0.0"
    summary = "Push d6s into a pot against the house's hidden pool; a 1 busts."
    sheet_schema = {
        "type": "object",
        "properties": {"nerve": {"type": "integer", "minimum": 1, "maximum": 10}},
        "required": ["nerve"],
    }
    settings_schema = {"type": "object", "properties": {}}
    state_schema = state_schema_for_nerve()
    example_sheets = {"Gambler": {"nerve": 4}, "Dealer": {"nerve": 1}}
    actions = {
        "push": ActionSpec(
            "push",
            "Push d6s into your pot against the house.",
            params={
                "type": "object",
                "properties": {
                    "dice": {"type": "integer", "minimum": 1, "maximum": 3, "default": 1}
                },
            },
            min_targets=1,
            max_targets=1,
            example={"dice": 2},
            labels={"dice": DICE_LABEL()},
            hints={"dice": DICE_HINT()},
        ),
        "stake": ActionSpec(
            "stake",
            "The dealer stakes the house's pool (send it secret).",
            params={
                "type": "object",
                "properties": {
                    "dice": {"type": "integer", "minimum": 1, "maximum": 6, "default": 3}
                },
            },
            gm_only=True,
            max_targets=0,
            example={"dice": 3},
        ),
    }

    def initial_state(self, sheet):
        return {"pot": 0, "house": 0, "pushes": 0}

    def state_schema_for(self, sheet):
        return state_schema_for_nerve(sheet["nerve"])

    def resolve(self, context, dice):
        if context.action == "stake":
            return self._stake(context, dice)
        return self._push(context, dice)

    def _stake(self, context, dice):
        me = context.actor
        n = context.params["dice"]
        rolled = tuple(roll_die(dice, 6) for _ in range(n))
        total = sum(d.value for d in rolled)
        house = Private(total, of=me.id, aspect="state")
        return Resolution(
            STAKES(dealer=me.name),
            outcome={"house": house},
            dice=[DiceGroup(HOUSE_DICE(), rolled, formula=f"{n}d6", total=house)],
            states={me.id: {**me.state, "house": total}},
        )

    def _push(self, context, dice):
        me, dealer = context.actor, context.targets[0]
        if not dealer.state["house"]:
            raise RuleViolation(NO_STAKE(dealer=dealer.name), code="no_stake")
        if me.state["pushes"] >= me.sheet["nerve"]:
            raise RuleViolation(
                say("refused.nerve", "{name} has no nerve left")(name=me.name), code="no_nerve"
            )
        n = context.params["dice"]
        rolled = tuple(roll_die(dice, 6) for _ in range(n))
        bust = any(d.value == 1 for d in rolled)
        pot = 0 if bust else min(MAX_POT, me.state["pot"] + sum(d.value for d in rolled))
        house = Private(dealer.state["house"], of=dealer.id, aspect="state")
        ahead = pot > dealer.state["house"]
        narration = BUSTS(name=me.name) if bust else PUSHES(name=me.name, pot=pot)
        return Resolution(
            narration,
            outcome={"pot": pot, "bust": bust, "ahead": ahead},
            dice=[DiceGroup(PUSH_DICE(), rolled, formula=f"{n}d6", target=house)],
            states={me.id: {**me.state, "pot": pot, "pushes": me.state["pushes"] + 1}},
            steps=[AGAINST(pot=pot, house=house), AHEAD() if ahead else BEHIND()],
        )

    def common_state(self, actor):
        pot = actor.state["pot"]
        return CommonState("ok", (Track("pot", POT(), pot, MAX_POT),))

    def player_view(self, actor, settings):
        return PlayerView(self.common_state(actor))


@rollbridge.hookimpl
def register_rulesets(register):
    register(PushLuck())
