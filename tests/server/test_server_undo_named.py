"""An undo or redo that names the event it means (``seq``), over a real socket:
two GMs at one table, one of them a step behind (docs/protocol.md, ``undo`` /
``redo``; docs/engine.md, "Undo and redo")."""

from __future__ import annotations

#: A change: two boxes of stun on the guard.
HIT = {"type": "adjust", "actor": "guard-a", "track": "stun", "delta": 2}
#: A change that changes nothing: an attack whose six dice all show 1 (SR-3).
MISS = {"type": "resolve", "action": "attack", "actor": "tukan", "targets": ["guard-a"],
        "params": {"weapon": "Hackler", "range": "short"}, "dice": [1] * 6}  # fmt: skip


async def test_the_welcome_names_what_undo_and_redo_take(tables):
    gm, welcome = await tables.join("sr2", "gm")
    history = welcome["table"]["undo_redo"]
    # the two actor creations of the seed are the undo stack, the latest last
    assert history["undo"] == [1, 2] and history["redo"] == []
    assert history["seq"] == welcome["seq"] == 2 and history["depth"] == 100
    player, player_welcome = await tables.join("sr2", "player")
    assert "undo_redo" not in player_welcome["table"]  # the GM's alone, as can_undo
    hit = await gm.request({**HIT, "id": "a1"})
    assert hit["status"] == "done" and hit["event"]["actors"], hit
    state = (await gm.request({"type": "state"}))["table"]["undo_redo"]
    assert state["undo"] == [1, 2, hit["seq"]] and state["seq"] == hit["seq"]
    assert "undo_redo" not in (await player.request({"type": "state"}))["table"]


async def test_a_named_undo_of_an_event_that_is_not_the_latest_changes_nothing(tables):
    first, _ = await tables.join("sr2", "gm")
    second, welcome = await tables.join("sr2", "gm")
    meant = welcome["table"]["undo_redo"]["undo"][-1]  # what the second GM's button says
    hit = await first.request({**HIT, "id": "a1"})  # the first GM changes the table
    assert hit["status"] == "done"
    before = (await first.request({"type": "state"}))["table"]

    refused = await second.request({"type": "undo", "seq": meant})
    assert refused["type"] == "error" and refused["code"] == "not_latest", refused
    assert refused["details"] == {"seq": meant, "latest": hit["seq"]}
    assert f"#{meant}" in refused["message"] and f"#{hit['seq']}" in refused["message"]
    assert (await first.request({"type": "state"}))["table"] == before  # nothing changed

    undone = await second.request({"type": "undo", "seq": hit["seq"]})
    assert undone["status"] == "done" and undone["event"]["data"]["undoes"] == hit["seq"]
    wrong_redo = await second.request({"type": "redo", "seq": meant})
    assert wrong_redo["code"] == "not_latest"
    assert wrong_redo["details"] == {"seq": meant, "latest": hit["seq"]}
    redone = await second.request({"type": "redo", "seq": hit["seq"]})
    assert redone["status"] == "done" and redone["event"]["data"]["redoes"] == hit["seq"]


async def test_a_missed_attack_is_not_what_undo_takes(tables):
    """A change that changed nothing is not undoable: the stacks say so, and an undo
    naming the miss is refused instead of taking the actor's creation back."""
    gm, _ = await tables.join("sr2", "gm")
    miss = await gm.request({**MISS, "id": "m1"})
    assert miss["status"] == "done" and not miss["event"]["actors"], miss
    history = (await gm.request({"type": "state"}))["table"]["undo_redo"]
    assert history["undo"] == [1, 2] and history["seq"] == miss["seq"]
    refused = await gm.request({"type": "undo", "seq": miss["seq"]})
    assert refused["code"] == "not_latest" and refused["details"]["latest"] == 2


async def test_a_bad_seq_is_an_invalid_request(tables):
    gm, _ = await tables.join("sr2", "gm")
    for seq in (0, -1, "2", 1.5, None, 2**64):
        reply = await gm.request({"type": "undo", "seq": seq})
        assert reply["type"] == "error" and reply["code"] in ("invalid_request",), (seq, reply)
    assert (await gm.request({"type": "state"}))["table"]["undo_redo"]["undo"] == [1, 2]
