"""The terminal client shows odds before a roll and marks verified rolls (issue 18,
item 5): `rollbridge connect` against a real `rollbridge serve` on a table made
verifiable by `rollbridge table create`."""

from __future__ import annotations

import json

from .test_server_lifecycle import Serve, cli


def test_connect_shows_odds_and_marks_rolls_verified_at_the_reveal(tmp_path, monkeypatch):
    db = tmp_path / "odds.db"
    made = json.loads(cli("table", "create", "--ruleset", "sr2", "--name", "V", "--json",
                          "--settings", '{"verifiable": true}', db=db).stdout)  # fmt: skip
    server = Serve(db, "--no-demo")
    url = f"ws://127.0.0.1:{server.port}/tables/{made['table']}"
    try:
        commands = ("odds 2d6+1\nodds success_test dice=3 tn=4\nodds 999d20\n"
                    "3d6\n2d6\nreveal\nstate\nquit\n")  # fmt: skip
        monkeypatch.setenv("ROLLBRIDGE_TOKEN", made["tokens"]["gm"])
        out = cli("connect", url, db=db, input=commands).stdout
        assert "2d6 + 1: exact odds" in out
        assert "1/36" in out and "16.6667%" in out  # P(total 8) = 6/36 of 2d6 + 1
        assert "sr2 success_test: exact odds of the outcomes" in out
        assert "! dice_limit" in out  # past the server's bounds
        # segment 1 was committed before this client joined: its welcome named it
        assert "verifiable dice: segment 1 revealed" in out
        assert "verifiable dice: segment 2 committed" in out
        verified = [line for line in out.splitlines() if line.startswith("✓ verified")]
        assert len(verified) == 1 and "segment 1" in verified[0]
        assert verified[0].count("#") == 2  # the two rolls
        assert "✗" not in out
    finally:
        server.stop()
