"""A stored private form (``{"private": 4, "of": "a1", "aspect": "sheet"}``, what an
event keeps a ``Private`` as) that a ruleset builds into its result (review
plugins-22). In the outcome the server reads it as the ``Private`` it stands for now
(players' outcome leaves it out: tests/server/test_stored_private_refusal.py); in a
follow-up's ``apply`` it is data everyone who sees the event reads — the NPC's number
to every player. The conformance suite passed such a ruleset; it fails it now, saying
where and how to mend it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rollbridge.contract import Resolution
from rollbridge.exceptions import InternalError, RuleViolation
from rollbridge.testing import PLAYER, RulesetHarness
from rollbridge.text import Messages, Private
from tests.plugins.rollunder import RollUnder, conformance_of, failure_of

SUITE_TEST = "test_texts_are_data_and_render_for_every_audience"


def guard_kept(context) -> dict:
    """The target's guard in its stored form, as a ruleset would keep it."""
    target = context.targets[0]
    return {"private": target.sheet["guard"], "of": target.id, "aspect": "sheet"}


class KeepsGuardInApply(RollUnder):
    """Names itself as a follow-up with the target's guard kept in stored form."""

    def resolve(self, context, dice):
        resolution = super().resolve(context, dice)
        return replace(
            resolution, apply={"action": "test", "params": {"guard": guard_kept(context)}}
        )


class KeepsGuardInOutcome(RollUnder):
    """Puts the target's guard, in stored form, back in its outcome."""

    def resolve(self, context, dice):
        resolution = super().resolve(context, dice)
        return replace(resolution, outcome={**resolution.outcome, "guard": guard_kept(context)})


def test_the_suite_fails_a_stored_form_players_read_saying_how_to_mend_it():
    said = failure_of(KeepsGuardInApply(), SUITE_TEST)
    assert said.startswith(
        "test: players' view holds a stored private form at data.apply.params.guard "
        "({'private': …, 'of': …}): every player reads its number there. Give a "
        "Private(value, of=actor_id, aspect=...) in its place"
    ), said
    assert said.endswith(
        "keep hidden numbers out of apply, which everyone who sees the event reads"
    )


def test_in_the_outcome_it_reaches_no_player_and_the_suite_passes():
    table = RulesetHarness(KeepsGuardInOutcome())
    table.add_actor("Hero", {"skill": 7, "guard": 1, "toughness": 4}, actor_id="hero")
    table.add_actor("Bandit", {"skill": 9, "guard": 4, "toughness": 3}, actor_id="bandit")
    table.resolve("test", actor="hero", targets=["bandit"], dice=[1])
    gm, players = table.views()
    assert gm["data"]["outcome"]["guard"] == 4
    assert "guard" not in players["data"]["outcome"], players["data"]["outcome"]
    getattr(conformance_of(KeepsGuardInOutcome()), SUITE_TEST)()


class ChainsForms(RollUnder):
    """Puts a chain of stored forms, each the value of the next, in its outcome."""

    links = 5000

    def resolve(self, context, dice):
        resolution = super().resolve(context, dice)
        value: object = context.targets[0].sheet["guard"]
        for _ in range(self.links):
            value = {"private": value, "of": context.targets[0].id}
        return replace(resolution, outcome={"chain": value})


def test_a_chain_of_stored_forms_is_refused_as_too_deep_as_the_maps_were():
    """Review rev-22p: the server read each form of the chain as its ``Private`` at the
    same depth, so a chain nested past the 64 levels an outcome may have was taken in
    (as one value), and a long one failed the request with a RecursionError (answered
    ``internal``, "the server failed", a traceback logged) — before it was refused,
    naming the ruleset and the depth, as the nested maps it is."""
    table = RulesetHarness(ChainsForms())
    table.add_actor("Hero", {"skill": 7, "guard": 1, "toughness": 4}, actor_id="hero")
    table.add_actor("Bandit", {"skill": 9, "guard": 4, "toughness": 3}, actor_id="bandit")
    for links in (5000, 70):
        ChainsForms.links = links
        with pytest.raises(InternalError) as refused:
            table.resolve("test", actor="hero", targets=["bandit"], dice=[1])
        assert str(refused.value) == (
            "ruleset 'rollunder' returned a result that cannot be stored or sent: "
            "outcome/chain: nested more than 64 levels"
        ), refused.value
    ChainsForms.links = 3  # a short one reads as the Private it stands for
    table.resolve("test", actor="hero", targets=["bandit"], dice=[1])
    gm, players = table.views()
    assert gm["data"]["outcome"] == {"chain": 4} and players["data"]["outcome"] == {}


class KeepsGuardInDiceTarget(RollUnder):
    """Gives its dice group's target as the target's guard in stored form."""

    def resolve(self, context, dice):
        resolution = super().resolve(context, dice)
        group = replace(resolution.dice[0], target=guard_kept(context))
        return replace(resolution, dice=[group])


def test_for_a_dice_groups_field_the_suite_says_to_give_a_private_there():
    """Review rev-22p: the suite told an author to keep hidden numbers out of a dice
    group's fields, where a ``Private`` is what they take (docs/plugins.md, "Secret
    requests": a group's ``total``, ``target``, ``note`` may be private); it says to
    give one there, and names ``apply`` alone as no place for a hidden number."""
    said = failure_of(KeepsGuardInDiceTarget(), SUITE_TEST)
    assert "at data.dice[0].target " in said, said
    assert "Private(value, of=actor_id, aspect=...) in its place" in said, said
    assert "out of apply" in said and "dice groups' fields" not in said, said


TOO_TOUGH = Messages("rollunder_tests")("refused.too_tough", "{target}'s guard {guard} is too high")


class AlwaysTooTough(RollUnder):
    """Refuses every test, quoting the target's guard as a Private."""

    def resolve(self, context, dice):
        target = context.targets[0]
        guard = Private(target.sheet["guard"] + 40, of=target.id, aspect="sheet")
        raise RuleViolation(TOO_TOUGH(target=target.name, guard=guard), code="too_tough")


def test_the_suite_tells_its_author_the_refusals_words_as_the_gm_reads_them():
    """Review rev-22p: since ``str()`` of a refusal is the players' reading, the suite's
    "no action example resolved" named the rule that refused as "Bandit's guard
    (hidden) is too high": the author, who wrote the number, could not tell which
    number was refused. The suite's words are the author's: the GM's reading."""
    said = failure_of(AlwaysTooTough(), "test_actions_resolve_through_the_engine")
    assert "('test': too_tough: Bandit's guard 42 is too high)" in said, said


class FollowsUpWithNoAction(RollUnder):
    """Names a follow-up that is none of its actions, the target's guard kept in it."""

    def resolve(self, context, dice):
        resolution = super().resolve(context, dice)
        kept = {**guard_kept(context), "private": 7173}
        return replace(resolution, apply={"action": "nope", "params": {"guard": kept}})


def test_a_bad_follow_ups_error_quotes_no_stored_forms_number():
    """Review rev-22p: the ``internal`` error of a follow-up naming no action quoted
    ``repr(apply)``, a stored form's number with it, to the requester — a player —
    and the log. The form reads as a ``Private`` there, as in a refusal's details."""
    table = RulesetHarness(FollowsUpWithNoAction())
    table.add_actor("Hero", {"skill": 7, "guard": 1, "toughness": 4}, actor_id="hero", player=True)
    table.add_actor("Bandit", {"skill": 9, "guard": 4, "toughness": 3}, actor_id="bandit")
    with pytest.raises(InternalError) as failed:
        table.resolve("test", actor="hero", targets=["bandit"], dice=[1], who=PLAYER)
    said = failed.value.render()
    assert "'action': 'nope'" in said and "7173" not in said, said
    assert "Private(<hidden>, of='bandit', aspect='sheet')" in said, said


class KeepsGuardWithANote(RollUnder):
    """Puts the target's guard in its outcome as a stored form with a key of its own."""

    def resolve(self, context, dice):
        resolution = super().resolve(context, dice)
        kept = {**guard_kept(context), "note": "kept for the next turn"}
        return replace(resolution, outcome={**resolution.outcome, "kept": [kept]})


def test_a_look_alike_with_other_keys_fails_the_suite_naming_its_path_and_the_fix():
    """Review plugins-22's closing note: a map with ``private`` and ``of`` and another
    key (``note``) is no stored form: the server sends it to every player as data, the
    guard with it, and the suite passed it. An author who wrote ``private`` meant it
    hidden: the suite fails it now, saying where, which keys are too many, and what to
    give instead."""
    said = failure_of(KeepsGuardWithANote(), SUITE_TEST)
    assert said.startswith(
        "test: players' view holds a map with 'private' and 'of' that is not a stored "
        "private form, at data.outcome.kept[0] (other keys: note): it is plain data, and "
        "every player reads its 'private'. Give a Private(value, of=actor_id, aspect=...)"
    ), said
    assert said.endswith("or name the keys otherwise if the value is not private"), said


class KeepsGuardsEachRound(RollUnder):
    """Keeps every participant's guard at each round's start, in a map with
    ``private`` and ``of`` and a note: a look-alike, in a turn hook's outcome."""

    def on_round_start(self, context, dice):
        kept = [
            {"private": a.sheet["guard"], "of": a.id, "aspect": "sheet", "note": "this round"}
            for a in context.participants
        ]
        return Resolution(ROUND(round=context.round), {"kept": kept})


ROUND = Messages("rollunder_tests")("round", "round {round}")
HOOKS_TEST = "test_what_players_see_of_every_hook_holds_no_look_alike"


def test_a_look_alike_in_a_turn_hooks_outcome_fails_the_suite_naming_the_hook():
    """Review plugins-23's closing note: the suite looked for look-alikes in the
    players' view of each action's resolution only — one a turn hook put in its
    outcome reached every player, the guard with it, and the suite passed. It fails
    now, naming the hook, the event, the path and the fix."""
    said = failure_of(KeepsGuardsEachRound(), HOOKS_TEST)
    assert said.startswith(
        "on_round_start (encounter.started event): players' view holds a map with "
        "'private' and 'of' that is not a stored private form, at "
        "data.hooks[0].outcome.kept[0] (other keys: note), data.hooks[0].outcome.kept[1] "
        "(other keys: note): it is plain data, and every player reads its 'private'. "
        "Give a Private(value, of=actor_id, aspect=...)"
    ), said
    getattr(conformance_of(RollUnder()), HOOKS_TEST)()  # without it, it passes


class ShowsGuardAsALookAlike(RollUnder):
    """Shows players an NPC's guard in a look-alike map of its ``player_view``."""

    def player_view(self, actor, settings):
        shown = {"guard": {"private": actor.sheet["guard"], "of": actor.id, "why": "shown"}}
        return replace(super().player_view(actor, settings), sheet=shown)


def test_a_look_alike_in_an_actors_player_view_fails_the_suite_naming_the_actor():
    """What ``player_view`` made of an actor is a hook's output players see too: a
    look-alike there, in the view of its creation, fails the suite."""
    said = failure_of(ShowsGuardAsALookAlike(), HOOKS_TEST)
    assert said.startswith(
        "actor.create: actor a0: players' view holds a map with 'private' and 'of' that "
        "is not a stored private form, at actors[0].sheet.guard (other keys: why)"
    ), said
