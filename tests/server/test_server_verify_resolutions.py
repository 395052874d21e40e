"""A GM's own client log, received over a real socket from a server on SQLite, is
checked by ``rollbridge verify`` resolution by resolution: every attack and damage
it holds is resolved again on the table its ``welcome`` and events show, in the
GM's locale. The same log with a resolution's damage changed fails with
``wrong_resolution``, its line and seq named (before, it verified: its dice were
the seed's)."""

from __future__ import annotations

import json

from websockets.asyncio.client import connect

from rollbridge.cli import main

from .conftest import Peer

ATTACK = {"weapon": "Hackler", "skill": 5, "attacker_pool": 2, "rounds": 3, "range": "short"}


async def test_a_gms_client_log_is_resolved_again_and_a_changed_damage_is_caught(
    tables, tmp_path, capsys
):
    gm, _ = await tables.join("sr2", "gm", locale="de")
    player, _ = await tables.join("sr2", "player")
    await gm.request({"type": "settings", "settings": {"verifiable": True}})
    attack = {"type": "resolve", "action": "attack", "actor": "tukan", "targets": ["guard-a"],
              "params": ATTACK}  # fmt: skip
    assert (await player.request(attack))["status"] == "done"
    damage = {"type": "resolve", "action": "damage", "targets": ["tukan"],
              "params": {"code": "6M", "attack_successes": 1}}  # fmt: skip
    assert (await gm.request(damage))["status"] == "done"
    await gm.request({"type": "dice.reveal"})
    await gm.wait_for(lambda p: sum(e["kind"] == "dice.committed" for e in p.events) == 2)
    log = tmp_path / "gm.jsonl"
    log.write_text("".join(f"{frame}\n" for frame in gm.frames), encoding="utf-8")
    assert json.loads(gm.frames[0])["type"] == "welcome"
    assert main(["verify", str(log), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["resolved"], report["unresolved"], report["verified_events"]) == (2, {}, 2)

    lines = log.read_text(encoding="utf-8").splitlines()
    at = next(n for n, line in enumerate(lines)
              if line.startswith('{"type":"event"') and '"action":"damage"' in line)  # fmt: skip
    event = json.loads(lines[at])
    event["data"]["outcome"]["boxes"] += 1  # the boxes it says Tukan took
    lines[at] = json.dumps(event)
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["verify", str(log)]) == 1
    out = capsys.readouterr().out
    assert f"MISMATCH at line {at + 1}: seq {event['seq']}: resolved again" in out
    assert "its data.outcome.boxes differs from the log's" in out


async def test_a_resumed_gms_log_goes_on_with_the_table_it_held(tables, tmp_path, capsys):
    """A GM whose connection dropped resumes: the missed events follow the new
    welcome, and continue the table the log held, so the damage dealt meanwhile is
    resolved again too. A log that starts at that welcome counts the missed ones
    apart (``no_table``: the table before them is not in it)."""
    gm, _ = await tables.join("sr2", "gm")
    attack = {"type": "resolve", "action": "attack", "actor": "tukan", "targets": ["guard-a"],
              "params": ATTACK}  # fmt: skip
    done = await gm.request(attack)
    await gm.close()
    other, _ = await tables.join("sr2", "gm")
    damage = {"type": "resolve", "action": "damage", "targets": ["tukan"],
              "params": {"code": "6M", "attack_successes": 1}}  # fmt: skip
    assert (await other.request(damage))["status"] == "done"
    back, welcome = await tables.join("sr2", "gm", resume={"epoch": 1, "seq": done["seq"]})
    assert welcome["resume"] == {"recovered": True, "missed": 1}
    await back.wait_for(lambda p: len(p.events) == 1)
    for frames, resolved, unresolved in (
        ([*gm.frames, *back.frames], 2, {}),
        (back.frames, 0, {"no_table": 1}),
    ):
        log = tmp_path / "gm.jsonl"
        log.write_text("".join(f"{frame}\n" for frame in frames), encoding="utf-8")
        assert main(["verify", str(log), "--json"]) == 0
        report = json.loads(capsys.readouterr().out)
        assert (report["resolved"], report["unresolved"]) == (resolved, unresolved)


async def test_a_foundry_gms_frames_are_resolved_again_as_the_plain_protocols(
    tables, tmp_path, capsys
):
    """A client of the Foundry dialect is sent its adapter's translation (``foundry``
    fields, the players' frame): taken off again (the adapter's ``plain``), its
    resolutions are resolved again as the plain protocol's, and agree; its dice still
    verify. Before 7 December 2026 they were counted apart (``dialect``)."""
    peer = Peer(await connect(tables.server.url))
    tables.peers.append(peer)
    hello = {"type": "hello", "table": "sr2", "token": tables.tokens["sr2"]["gm"],
             "dialect": "foundry"}  # fmt: skip
    assert (await peer.request(hello))["type"] == "welcome"
    attack = {"type": "resolve", "action": "attack", "actor": "tukan", "targets": ["guard-a"],
              "params": ATTACK}  # fmt: skip
    assert (await peer.request(attack))["status"] == "done"
    await peer.wait_for(lambda p: len(p.events) == 1)
    assert "foundry" in peer.events[0]
    log = tmp_path / "foundry.jsonl"
    log.write_text("".join(f"{frame}\n" for frame in peer.frames), encoding="utf-8")
    assert main(["verify", str(log), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["resolved"], report["unresolved"]) == (1, {})


async def test_a_log_whose_welcome_names_a_region_is_resolved_again_in_its_language(
    tables, tmp_path, capsys
):
    """A log whose welcome's locale is a region's or an environment's name
    (``de_AT.UTF-8``, as an older client's log or one edited by hand holds it) reads in
    German, as a hello naming it would: its resolutions were made again in English
    and every one was a mismatch of its narration."""
    gm, _ = await tables.join("sr2", "gm", locale="de")
    attack = {"type": "resolve", "action": "attack", "actor": "tukan", "targets": ["guard-a"],
              "params": ATTACK}  # fmt: skip
    assert (await gm.request(attack))["status"] == "done"
    welcome = json.loads(gm.frames[0])
    assert welcome["type"] == "welcome" and welcome["locale"] == "de"
    welcome["locale"] = "de_AT.UTF-8"
    log = tmp_path / "gm.jsonl"
    log.write_text("".join(f"{frame}\n" for frame in [json.dumps(welcome), *gm.frames[1:]]),
                   encoding="utf-8")  # fmt: skip
    assert main(["verify", str(log), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["resolved"], report["unresolved"], report["problems"]) == (1, {}, [])
