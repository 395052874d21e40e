"""``rollbridge verify``: an event said to be approved at a table that never held
a request for approval is a mismatch (``unasked_approval``).

An approved event's dice are drawn on the GM's stream (the engine's rule,
rollbridge.engine.segments.stream_of), and verify does not judge its stream. Before,
a server had only to write ``approved_by`` into a player's trait test, drawn on the
GM's stream, for the player's export to verify (exit 0): the player cannot check
the GM's seed. A request waits for approval only while the table's setting
``approval`` is on (and may be approved after it is turned off); a log that shows
the table from its first seq, with the setting off all along, holds no approval.
"""

from __future__ import annotations

import json

import pytest

from rollbridge.dice.verifiable import DiceKey
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore
from tests.dice.test_verify_players_dice import GM, PLAYER, _run, _verified
from tests.dice.test_verify_players_dice import _roll as _event
from tests.dice.test_verify_resolution_stream import exports  # noqa: F401 (a fixture)

pytestmark = pytest.mark.usefixtures("english_without_stores")


@pytest.mark.parametrize("who", ["gm", "player"])
def test_an_approval_the_table_never_held_is_a_mismatch(tmp_path, exports, who):  # noqa: F811
    lines = exports[who]
    trait = _event(lines, "trait")
    trait["data"]["draws"]["stream"] = "gm"
    trait["data"].update(approved="p9", approved_by="gm")
    status, report = _verified(tmp_path, lines)
    assert status == 1
    found = [(p["code"], p["seq"], p["message"]) for p in report["problems"]]
    assert found[0] == ("unasked_approval", trait["seq"], (
        f"seq {trait['seq']}: the log says the GM approved it, but the table's setting "
        "approval was off from the table's first seq up to it, so no request could wait "
        "for the GM: an approved event's dice are on the GM's stream, where players "
        "cannot check them"))  # fmt: skip


def _export(db, who: str, *options: str) -> list[dict]:
    status, said = _run("table", "export", "a", "--db", str(db), "--as", who,
                        "--format", "jsonl", *options)  # fmt: skip
    assert status == 0, said
    return [json.loads(line) for line in said.splitlines()]


@pytest.mark.parametrize("who", ["gm", "player"])
def test_a_request_approved_after_the_setting_went_off_verifies(tmp_path, who):
    """The player's roll waits while approval is on; the GM turns it off, then
    approves the roll: honest, and so is an export that begins after the setting
    went on (it does not show the table's start)."""
    db = tmp_path / "a.db"
    with SQLiteStore(db) as store:
        service = TableService(store, PluginHost(), dice_key=DiceKey.for_store(store))
        service.create_table("A", "wilddie", settings={"verifiable": True}, table_id="a")
        on = service.handle("a", {"type": "settings", "id": "on",
                                  "settings": {"approval": True}}, GM)  # fmt: skip
        held = service.handle("a", {"type": "roll", "id": "r", "formula": "1d6"}, PLAYER)
        service.handle("a", {"type": "settings", "id": "off", "settings": {"approval": False}}, GM)
        service.handle("a", {"type": "approve", "id": "ap", "request": held["pending"]}, GM)
        service.handle("a", {"type": "dice.reveal", "id": "v"}, GM)
    for since in ("0", str(on["seq"] + 1)):
        lines = _export(db, who, "--since", since)
        rolled = [line for line in lines if line.get("kind") == "roll"]
        assert len(rolled) == 1 and rolled[0]["data"]["approved_by"]
        status, report = _verified(tmp_path, lines)
        assert status == 0 and report["ok"], report["problems"]
