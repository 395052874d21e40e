"""A ruleset's text whose format spec does not fit a private argument (``{armour:d}``
given an NPC's 2.5 from its sheet) reads without the spec and is logged once as a
WARNING naming the argument — and the WARNING quoted the value, the NPC's number,
rendered for the GM's view of a player's request (review rev-22p: a player's request
put an NPC's number in the server's log at its default level). The line now gives the
value's type alone where the argument is private; a plain argument is quoted as
before. A real server on a real port, its log as ``rollbridge serve`` writes it."""

from __future__ import annotations

from rollbridge import Resolution
from rollbridge.text import Messages, Private

say = Messages("misformatted_private_log_tests")
ARMOUR = say("armour", "{target}'s armour {armour:d} turns the blow")
ROUNDS = say("rounds", "{rounds:d} rounds fired")
RESOLVE = {"type": "resolve", "action": "hit", "actor": "ana", "targets": ["guard"]}


async def test_the_warning_names_a_private_arguments_type_not_its_value(
    tables, tally, monkeypatch, debug_log
):
    def resolve(self, context, dice):
        target = context.targets[0]
        armour = Private(7173.5, of=target.id, aspect="sheet")
        return Resolution(
            ARMOUR(target=target.name, armour=armour), {}, steps=[ROUNDS(rounds=2.25)]
        )

    monkeypatch.setattr(type(tally), "resolve", resolve)
    gm, _ = await tables.join("tally", "gm")
    player, _ = await tables.join("tally", "player")
    done = await player.request(RESOLVE)
    assert done["status"] == "done", done
    await gm.wait_for(lambda peer: any(e.get("kind") == "resolution" for e in peer.events))
    shown = next(e for e in gm.events if e.get("kind") == "resolution")["data"]["narration"]
    assert shown == "Guard's armour 7173.5 turns the blow"  # the GM's reading, without the spec
    logged = debug_log.getvalue()
    warning = next(line for line in logged.splitlines() if "'armour'" in line)
    assert "its argument 'armour', a private float," in warning, warning
    assert "7173" not in logged, logged
    assert "its argument 'rounds', 2.25," in logged, logged  # a plain one: quoted
