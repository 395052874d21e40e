"""A GM's log written before the server read a stored private form in an outcome as
its ``Private`` (review rev-22p of plugins-22): a ruleset that built one
(``{"private": 4242, "of": "guard-a", "aspect": "sheet"}``) into its outcome had it
logged as data, the map itself; resolved again now the outcome holds the value, and
``rollbridge verify`` called the log's own resolution a MISMATCH ("the rules were not
applied as logged"). The form reads as its value on both sides now; a changed value is
still a mismatch. A real server on SQLite, the GM's frames over a real socket."""

from __future__ import annotations

import json
from dataclasses import replace

import rollbridge.text
from rollbridge.cli import main
from rollbridge.plugins.sr2.ruleset import SR2Ruleset

ATTACK = {"type": "resolve", "action": "attack", "actor": "tukan", "targets": ["guard-a"],
          "params": {"weapon": "Hackler", "skill": 5, "rounds": 3, "range": "short"}}  # fmt: skip


async def test_an_older_logs_stored_form_in_an_outcome_still_verifies(
    tables, tmp_path, capsys, monkeypatch
):
    resolve = SR2Ruleset.resolve

    def keeps_a_form(self, context, dice):
        resolution = resolve(self, context, dice)
        kept = {"private": 4242, "of": context.targets[0].id, "aspect": "sheet"}
        return replace(resolution, outcome={**resolution.outcome, "kept": kept})

    monkeypatch.setattr(SR2Ruleset, "resolve", keeps_a_form)
    with monkeypatch.context() as older:  # the server as it was: the form is data
        older.setattr(rollbridge.text, "stored_private", lambda value: None)
        gm, _ = await tables.join("sr2", "gm")
        assert (await gm.request(ATTACK))["status"] == "done"
        await gm.wait_for(lambda peer: len(peer.events) == 1)
    logged = gm.events[0]["data"]["outcome"]["kept"]
    assert logged == {"private": 4242, "of": "guard-a", "aspect": "sheet"}, logged
    log = tmp_path / "gm.jsonl"
    log.write_text("".join(f"{frame}\n" for frame in gm.frames), encoding="utf-8")
    assert main(["verify", str(log), "--json"]) == 0, capsys.readouterr().out
    report = json.loads(capsys.readouterr().out)
    assert (report["resolved"], report["unresolved"]) == (1, {}), report

    lines = log.read_text(encoding="utf-8").splitlines()
    at = next(n for n, line in enumerate(lines) if json.loads(line)["type"] == "event")
    event = json.loads(lines[at])
    event["data"]["outcome"]["kept"]["private"] = 4243  # another number: altered
    lines[at] = json.dumps(event)
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["verify", str(log)]) == 1
    assert "its data.outcome.kept differs from the log's" in capsys.readouterr().out
