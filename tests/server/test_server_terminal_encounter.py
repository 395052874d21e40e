"""The terminal client shows the running encounter — the round, the turn order and
whose turn it is — on joining, in `state`, and at each start, turn and new order:
`rollbridge connect` against a real `rollbridge serve` (a player at the terminal
otherwise cannot tell when it is their actor's turn)."""

from __future__ import annotations

import json

from .test_server_lifecycle import Serve, cli


def _actor(actor_id: str, name: str, controllers: list[str]) -> str:
    sheet = {"body": 4, "combat_pool": 3, "armor": {"ballistic": 4, "impact": 2}}
    actor = {"id": actor_id, "name": name, "sheet": sheet, "controllers": controllers}
    return "json " + json.dumps({"type": "actor.create", "actor": actor})


def test_connect_shows_the_encounter_and_whose_turn_it_is(tmp_path, monkeypatch):
    db = tmp_path / "turns.db"
    made = json.loads(cli("table", "create", "--ruleset", "sr2", "--name", "T", "--json",
                          db=db).stdout)  # fmt: skip
    server = Serve(db, "--no-demo")
    url = f"ws://127.0.0.1:{server.port}/tables/{made['table']}"
    try:
        commands = "\n".join([_actor("ana", "Ana", ["player"]), _actor("bo", "Guard Bo", []),
                              "start ana bo", "next", "quit", ""])  # fmt: skip
        monkeypatch.setenv("ROLLBRIDGE_TOKEN", made["tokens"]["gm"])
        out = cli("connect", url, db=db, input=commands).stdout
        # the start and the turn: the round and the order, by name, whose turn marked
        assert "encounter, round 1: ▶ Ana, Guard Bo" in out, out
        assert "encounter, round 1: Ana, ▶ Guard Bo" in out, out
        # joining again, and the state: each says it
        again = cli("connect", url, db=db, input="state\nquit\n").stdout
        assert again.count("encounter, round 1: Ana, ▶ Guard Bo") == 2, again
        # a player who joins now reads it on joining, in the player's language
        monkeypatch.setenv("ROLLBRIDGE_TOKEN", made["tokens"]["player"])
        joined = cli("connect", url, "--locale", "de", db=db, input="quit\n").stdout
        assert "Begegnung, Runde 1: Ana, ▶ Guard Bo" in joined, joined
    finally:
        server.stop()
