"""A parameter whose choices are on the action's target (``choicesFrom`` with
``"of": "target"``, docs/plugins.md): techlevel's hit ``section``, in the web view,
in real headless Chromium against a real server (browser/target_choices.mjs):

- the player, on a 390 px phone, has no section to pick before a target is chosen;
  with the raider chosen, the sections of the raider's vehicle (TL-10), as the
  player's limited view of the NPC holds them — exactly those, the vehicle's name
  never (players see an NPC's sections, not its vehicle's name); the walker, on
  foot, none; the bed picked is what is sent and struck;
- the list follows the target as the table changes: the GM has the walker mount a
  vehicle, and the player's form, rebuilt, keeps the walker chosen and offers its
  sections;
- the GM, who sees the raider whole, gets the same sections;
- a target the viewer's view holds without the part (a ruleset whose players' view
  hides it) offers nothing: choices come only from what the view holds.

Needs what tests/web/test_web_browser.py needs; skipped without chromium.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rollbridge.engine.model import Principal
from rollbridge.offline import TableService
from rollbridge.plugins.techlevel.ruleset import TechLevel
from tests.web.test_web_browser import CHROMIUM, run_script
from tests.web.test_web_sheet_choices import _actor_views

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no {CHROMIUM}")

GM = Principal("gm", "gm", "setup")
DEFAULT = ["", "(default)"]
#: The raider's vehicle: its name is the NPC's detail, hidden from players.
RIG = {"name": "War rig", "tl": 2, "sections": [{"name": "cab"}, {"name": "bed"}]}


def _tech_table(world) -> dict[str, str]:
    """The techlevel table ``tech`` on the running server's store (as the admin API
    makes one): Ana the player's, the raider riding the War rig, the walker on foot."""
    server = world.server
    service = TableService(server.store, server.host, dice_key=server.dice_key)
    _, tokens = service.create_table("Road war", "techlevel", table_id="tech")
    sheets = TechLevel.example_sheets
    cast = [
        ("ana", "Ana", dict(sheets["Ana"]), ["player"]),
        ("raider", "Raider", {"body_tl": 1, "vehicles": [RIG], "mounted": "War rig"}, []),
        ("walker", "Walker", dict(sheets["Guard"]), []),
    ]
    for index, (actor_id, name, sheet, controllers) in enumerate(cast):
        actor = {"id": actor_id, "name": name, "sheet": sheet, "controllers": controllers}
        service.handle("tech", {"type": "actor.create", "id": f"tech-{index}", "actor": actor}, GM)
    return tokens


async def test_a_player_picks_the_section_of_the_target_s_vehicle_from_what_they_see(web_world):
    tokens = {**web_world.tokens, "tech": _tech_table(web_world)}
    env = {
        "RB_BASE": web_world.base,
        "RB_TOKENS": json.dumps(tokens),
        "RB_CHROMIUM": CHROMIUM,
        "RB_SPEC": json.dumps(TechLevel().describe()["actions"]["hit"]),
    }
    secrets = [token for table in tokens.values() for token in table.values()]
    result = await run_script("target_choices.mjs", env, secrets)
    assert result["trouble"] == {"errors": [], "dialogs": []}

    player = result["player"]
    assert player["none"] == [DEFAULT] and not player["folded"]  # no target: no section
    assert player["raider"] == [DEFAULT, ["cab", "cab"], ["bed", "bed"]]
    assert player["fits"]
    assert player["walker"] == [DEFAULT]  # on foot
    assert player["sent"]["targets"] == ["raider"]
    assert player["sent"]["params"]["section"] == "bed"
    reply = player["reply"]
    assert reply["status"] == "done", reply
    assert '"bed"' in json.dumps(reply["event"]["data"]["outcome"])  # the section struck

    # the list follows the table: the walker now rides a vehicle (kept chosen)
    assert result["mounted"] == "done"
    mounted = player["mounted"]
    assert mounted["checked"] == "walker"
    assert mounted["options"] == [DEFAULT, ["frame", "frame"], ["sidecar", "sidecar"]]

    assert result["gm"]["raider"] == [DEFAULT, ["cab", "cab"], ["bed", "bed"]]
    assert result["hidden"] == [""]  # a view without the vehicle: nothing but "(default)"

    # what the player offered is exactly what the player's view of the raider holds
    frames = [json.loads(frame) for frame in result["wire"]["frames"]]
    views = [v for v in _actor_views(frames) if v["id"] == "raider"]
    assert views and all(v["limited"] for v in views), views
    held = [s["name"] for s in views[0]["state"]["vehicle"]["sections"]]
    assert [value for value, _ in player["raider"][1:]] == held
    # and the vehicle's name, the NPC's detail, reached the player's page nowhere
    assert "War rig" not in result["wire"]["text"]
    assert not [frame for frame in result["wire"]["frames"] if "War rig" in frame]
