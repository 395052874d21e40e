"""A player's log of a table where nobody rolled in secret is not said to hold a
secret event.

Every reveal sends the GM stream's seed in a GM-only ``dice.revealed.gm``, which a
player's log holds as a ``hidden`` stand-in. ``rollbridge verify`` said of it "1
secret event, hidden from this view, was not resolved again": a suspicious player read
that the GM had rolled in secret, and that a resolution had gone unchecked."""

from __future__ import annotations

import json
from pathlib import Path

from rollbridge.cli import main
from rollbridge.cli.offline import offline_host
from rollbridge.engine.model import Principal
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore

GM = Principal("gm", "gm", "gm-token")
PLAYER = Principal("player", "pat", "player-token")


def test_a_reveal_in_a_players_log_is_named_among_what_only_the_gm_sees(tmp_path, capsys):
    path = tmp_path / "v.db"
    with SQLiteStore(path) as store:
        service = TableService(store, offline_host())
        service.create_table("t", "bandits", table_id="t", settings={"verifiable": True})
        service.handle("t", {"type": "roll", "id": "r", "formula": "2d6"}, PLAYER)
        service.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
    assert main(["table", "export", "t", "--db", str(path), "--as", "player",
                 "--format", "jsonl"]) == 0  # fmt: skip
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(line).get("kind") for line in lines].count("hidden") == 1
    log = Path(tmp_path / "player.jsonl")
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["verify", str(log)]) == 0
    out = capsys.readouterr().out
    assert "secret event" not in out
    assert (
        "1 event for the GM only, hidden from this view, was not checked (a secret roll or "
        "action, an approval request, or the GM's seed at a reveal: only the GM's log "
        "checks it)\n"
    ) in out
