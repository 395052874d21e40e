"""``rollbridge connect`` names the turn hooks an encounter event ran in the reader's
language: against a real ``rollbridge serve``, sr2's ``on_round_start`` (the Combat
Pool refill, docs/rulesets/sr2.md) reads "Rundenbeginn: …" in German, not the hook's
raw name. Before (texts29): "on_round_start: …" in every language."""

from __future__ import annotations

import json

from .test_server_lifecycle import Serve, cli
from .test_server_terminal_encounter import _actor

#: The start of a round in each language, as the catalogues say it.
ROUND_START = {"en": "start of round", "cs": "začátek kola", "de": "Rundenbeginn",
               "ru": "начало раунда"}  # fmt: skip


def test_connect_names_the_round_start_hook_in_each_language(tmp_path, monkeypatch):
    db = tmp_path / "hooks.db"
    created = cli("table", "create", "--ruleset", "sr2", "--name", "T", "--json", db=db)
    made = json.loads(created.stdout)
    monkeypatch.setenv("ROLLBRIDGE_TOKEN", made["tokens"]["gm"])
    server = Serve(db, "--no-demo")
    try:
        url = f"ws://127.0.0.1:{server.port}/tables/{made['table']}"
        cli("connect", url, db=db, input=f"{_actor('ana', 'Ana', [])}\nquit\n")
        for locale, word in ROUND_START.items():
            typed = "start ana\nend\nquit\n"
            out = cli("connect", url, "--locale", locale, db=db, input=typed).stdout
            assert f"  {word}: " in out, (locale, out)
            assert "on_round_start" not in out, (locale, out)
    finally:
        server.stop()
