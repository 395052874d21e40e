"""The GM's and the players' views staged in one walk (``rollbridge.text.view_pair``)
are exactly the views built one audience at a time, from the event as it is stored:
sr2 actions between a player's character and an NPC, under every reveal setting."""

from __future__ import annotations

import pytest

from rollbridge.dice import SeededDice
from rollbridge.engine import Principal, parse_request
from rollbridge.engine.model import Event
from rollbridge.engine.views import GM, PLAYERS, event_view, hides_for
from rollbridge.plain import unpack
from rollbridge.plugins.sr2 import SR2Ruleset
from rollbridge.testing import RulesetHarness
from rollbridge.text import view_of, view_pair

SHEETS = SR2Ruleset.example_sheets
TUKAN = SHEETS["Tukan"]
#: The example guard, armed.
GUARD = {**SHEETS["Guard A"], "weapons": [{"name": "Rifle", "code": "9M", "skill": 5}]}
SETTINGS = [{}, {"show_npc_sheet": True}, {"show_npc_details": True},
            {"show_npc_sheet": True, "show_npc_details": True}]  # fmt: skip
REQUESTS = [  # the guard acts before it is hurt
    {"type": "resolve", "action": "attack", "actor": "guard", "targets": ["tukan"],
     "params": {"weapon": "Rifle", "range": "medium"}},
    {"type": "resolve", "action": "success_test", "actor": "guard",
     "params": {"dice": 4, "tn": 5, "label": "Body (death roll)"}},
    {"type": "roll", "formula": "3d6", "label": "plain"},
    {"type": "resolve", "action": "attack", "actor": "tukan", "targets": ["guard"],
     "params": {"weapon": "Hackler", "range": "short", "rounds": 3}},
    {"type": "resolve", "action": "damage", "targets": ["guard"],
     "params": {"code": "10S", "attack_successes": 7}},
]  # fmt: skip
GM_PRINCIPAL = Principal("gm", "gm", "t-gm")


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: "+".join(s) or "none")
@pytest.mark.parametrize("seed", range(4))
def test_staged_views_are_the_views_built_one_at_a_time(settings, seed):
    harness = RulesetHarness(SR2Ruleset(), settings={"ruleset": settings})
    harness.add_actor("Tukan", TUKAN, actor_id="tukan", player=True)
    harness.add_actor("Guard", GUARD, actor_id="guard")
    table = harness.table
    for number, message in enumerate(REQUESTS):
        request = parse_request({**message, "id": f"r{number}"})
        (event,) = table.execute(request, GM_PRINCIPAL, SeededDice(f"{seed}:{number}")).events
        stored = Event.from_dict(unpack(event.packed()))
        for audience in (GM, PLAYERS):
            alone = event_view(
                stored,
                audience=audience,
                ruleset=table.ruleset,
                settings=table.ruleset_settings,
                controlled=table.controlled,
            )
            assert event.views[audience] == alone, (message, audience)


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: "+".join(s) or "none")
def test_view_pair_is_two_views_of(settings):
    harness = RulesetHarness(SR2Ruleset(), settings={"ruleset": settings})
    harness.add_actor("Tukan", TUKAN, actor_id="tukan", player=True)
    harness.add_actor("Guard", GUARD, actor_id="guard")
    table = harness.table
    for number, message in enumerate(REQUESTS):
        harness.request({**message, "id": f"p{number}"})
        (event,) = harness.events(table.info.seq - 1)
        hides = hides_for(event, table.ruleset, table.ruleset_settings, table.controlled)
        one = view_of(event.data, event.texts, event.private)
        other = view_of(event.data, event.texts, event.private, hides=hides)
        assert view_pair(event.data, event.texts, event.private, hides=hides) == (one, other)
