"""``rollbridge resolve … --as player`` printed a ruleset's refusal as the GM reads
it: an NPC's private number in it ("the Bandit is too quick: guard 2") read in full,
though the README says ``--as player`` shows what players are told, and the server
sends players that refusal with the number hidden. The command now renders a refusal
for a player with the table's players' hides, as the server does."""

from __future__ import annotations

import json

import pytest

import rollbridge.cli.offline as offline
from rollbridge.cli import main
from rollbridge.exceptions import RuleViolation
from rollbridge.testing import host_with
from rollbridge.text import HIDDEN, Messages, Private
from tests.plugins.rollunder import RollUnder

say = Messages("test_cli_resolve_player_refusal")
TOO_QUICK = say("too_quick", "{target} is too quick: guard {guard}")


class RefusesByGuard(RollUnder):
    """Refuses every test, naming the target's guard (the target's own detail)."""

    def resolve(self, context, dice):
        target = context.targets[0]
        guard = Private(target.sheet["guard"], of=target.id, aspect="sheet")
        raise RuleViolation(TOO_QUICK(target=target.name, guard=guard), code="too_quick")


@pytest.fixture
def refusing(monkeypatch):
    monkeypatch.setattr(offline, "offline_host", lambda: host_with(RefusesByGuard()))


@pytest.mark.parametrize("json_out", [False, True])
def test_a_player_reads_a_refusal_with_the_npcs_detail_hidden(refusing, capsys, json_out):
    argv = ["resolve", "rollunder", "test", "--as", "player", *(["--json"] if json_out else [])]
    assert main(argv) == 1
    out, err = capsys.readouterr()
    said = json.loads(out)["message"] if json_out else err
    assert f"Bandit is too quick: guard {HIDDEN().render()}" in said
    assert "guard 2" not in said


def test_the_gm_reads_it_in_full(refusing, capsys):
    assert main(["resolve", "rollunder", "test"]) == 1
    assert "Bandit is too quick: guard 2" in capsys.readouterr().err


def test_a_player_reads_a_players_characters_detail(refusing, capsys):
    """A player's character's guard (another player's) reads in full to players."""
    hero = {"name": "Hero", "sheet": {"skill": 7, "guard": 1, "toughness": 4}}
    ally = {**hero, "name": "Ally", "controllers": ["ana"]}
    actors = json.dumps([{**hero, "controllers": ["player"]}, ally])
    argv = ["resolve", "rollunder", "test", "--as", "player", "--actors", actors]
    assert main(argv) == 1
    assert "Ally is too quick: guard 1" in capsys.readouterr().err


class RefusesWithATuple(RollUnder):
    """Refuses every test with a tuple (no text): a text naming the target's guard, a
    number (1.5, which Czech writes "1,5") and a control character (review of core17)."""

    def resolve(self, context, dice):
        target = context.targets[0]
        guard = Private(target.sheet["guard"], of=target.id, aspect="sheet")
        raise RuleViolation((TOO_QUICK(target=target.name, guard=guard), 1.5, "\x1b[2J"), code="x")


@pytest.mark.parametrize("as_player", [False, True])
def test_a_refusal_of_a_tuple_reads_in_the_locale_its_control_characters_shown(
    monkeypatch, capsys, as_player
):
    """A refusal whose message is a tuple printed in English to the GM whatever
    ``--locale`` said, and ``--as player`` printed its control character raw to the
    terminal (the GM's line shows it, as for any text's argument)."""
    monkeypatch.setattr(offline, "offline_host", lambda: host_with(RefusesWithATuple()))
    argv = ["resolve", "rollunder", "test", "--locale", "cs"]
    assert main([*argv, *(["--as", "player"] if as_player else [])]) == 1
    err = capsys.readouterr().err
    guard = HIDDEN().render("cs") if as_player else "2"
    assert f"Bandit is too quick: guard {guard}, 1,5, \\x1b[2J" in err, err
    assert "\x1b" not in err


WHY = say("why", "the blow is turned: {why}")


class RefusesWithARefusalInside(RollUnder):
    """Refuses every test with a text whose argument is a refusal naming the guard."""

    def resolve(self, context, dice):
        target = context.targets[0]
        guard = Private(target.sheet["guard"], of=target.id, aspect="sheet")
        inner = RuleViolation(TOO_QUICK(target=target.name, guard=guard), code="too_quick")
        raise RuleViolation(WHY(why=inner), code="turned")


@pytest.mark.parametrize(("as_player", "guard"), [(False, "2"), (True, HIDDEN().render())])
def test_a_refusal_given_as_an_argument_reads_as_each_audience_does(
    monkeypatch, capsys, as_player, guard
):
    """Review rev-22p: the command made a refusal among a text's arguments a string with
    ``str()`` — the players' reading since plugins22, so the GM read "(hidden)" where
    the server sends the GM the number (before, ``str()`` was the GM's, and a player
    at ``--as player`` read the number). Each reads it as the server tells them now."""
    monkeypatch.setattr(offline, "offline_host", lambda: host_with(RefusesWithARefusalInside()))
    assert main(["resolve", "rollunder", "test", *(["--as", "player"] if as_player else [])]) == 1
    said = capsys.readouterr().err
    assert f"the blow is turned: Bandit is too quick: guard {guard}" in said, said
