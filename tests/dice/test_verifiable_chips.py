"""A chip's carried dice (docs/dice.md, "Verifiable dice"): a wilddie chip (WD-4)
shows its earlier roll again with some dice rerolled, in a group tagged ``reroll``
that names the event that showed that roll (``earlier``). Where that event is in the
log, ``rollbridge verify`` matches the dice shown again with its roll, die for die:
a carried die changed is ``carried_mismatch``. Before, they were counted as
``carried`` and never compared, so a server could show any dice there. Where the
earlier event is not in the log, they are still counted as ``carried``.

Real chips through the engine at a verifiable table (a fixed dice key): on a trait
test, a melee attack, a recovery rolled by the turn hook, with the whole roll
rerolled, on an NPC's roll in the GM's log."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from rollbridge.cli import main
from rollbridge.cli.offline import offline_host
from rollbridge.dice.verifiable import DiceKey
from rollbridge.dice.verify import verify_events
from rollbridge.engine.model import Principal
from rollbridge.offline import TableService
from rollbridge.stores.memory import MemoryStore

GM = Principal("gm", "gm", "gm-token")
PLAYER = Principal("player", "pat", "player-token")
HOST = offline_host()
KEY = DiceKey(bytes(range(32)))
SHEETS = HOST.ruleset("wilddie").example_sheets


def table(**ruleset_settings: Any) -> TableService:
    """A verifiable wilddie table with the player's Ana and the GM's Guard."""
    svc = TableService(MemoryStore(), HOST, dice_key=KEY)
    settings = {"verifiable": True, "ruleset": ruleset_settings}
    svc.create_table("t", "wilddie", table_id="t", settings=settings)
    for index, (name, controllers) in enumerate([("Ana", ["pat"]), ("Guard", [])]):
        actor = {"id": name.lower(), "name": name, "sheet": SHEETS[name],
                 "controllers": controllers}  # fmt: skip
        svc.handle("t", {"type": "actor.create", "id": f"a{index}", "actor": actor}, GM)
    return svc


def resolve(svc: TableService, rid: str, action: str, actor: str, who: Principal = PLAYER,
            **fields: Any) -> dict[str, Any]:  # fmt: skip
    message = {"type": "resolve", "id": rid, "action": action, "actor": actor, **fields}
    return svc.handle("t", message, who)["event"]


def log(svc: TableService, *, gm: bool = True, after: int = 0) -> list[dict[str, Any]]:
    """The events after ``after`` as the GM or a player received them."""
    view = svc.table("t")
    return [json.loads(json.dumps(view.view_event(e, gm=gm)))
            for e in svc.store.events_after("t", after)]  # fmt: skip


def chip_group(event: dict[str, Any]) -> dict[str, Any]:
    return next(g for g in event["data"]["dice"] if "reroll" in g.get("tags", ()))


def played() -> tuple[TableService, dict[str, int]]:
    """Chips on a trait test (trait die, then wild die), a melee attack on Guard,
    Ana's recovery rolled by the turn hook, and a GM's chip for Guard; revealed."""
    svc = table()
    seqs: dict[str, int] = {}
    for n, die in enumerate(("trait", "wild")):
        seqs[f"test{n}"] = resolve(svc, f"t{n}", "trait", "ana", params={"trait": "notice"})["seq"]
        seqs[f"chip{n}"] = resolve(svc, f"c{n}", "chip", "ana", params={"die": die})["seq"]
    seqs["attack"] = resolve(svc, "h", "attack", "ana", targets=["guard"],
                             params={"mode": "melee"})["seq"]  # fmt: skip
    seqs["chip_attack"] = resolve(svc, "ch", "chip", "ana", targets=["guard"],
                                  params={"roll": "h"})["seq"]  # fmt: skip
    svc.handle("t", {"type": "actor.update", "id": "u", "actor": "ana",
                     "state": {"shaken": True, "chips": 3}}, GM)  # fmt: skip
    start = svc.handle("t", {"type": "encounter.start", "id": "e", "order": ["ana"]}, GM)
    seqs["hook"] = start["seq"]
    assert start["event"]["data"]["hooks"][-1]["hook"] == "on_turn_start"
    seqs["chip_hook"] = resolve(svc, "cr", "chip", "ana", params={"die": "trait"})["seq"]
    resolve(svc, "gt", "trait", "guard", GM, params={"trait": "notice"})
    svc.handle("t", {"type": "resolve", "id": "w", "action": "award_chips", "targets": ["guard"],
                     "params": {"count": 1}}, GM)  # fmt: skip
    seqs["chip_npc"] = resolve(svc, "cg", "chip", "guard", GM, params={"die": "trait"})["seq"]
    svc.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
    return svc, seqs


@pytest.fixture(scope="module")
def night() -> tuple[TableService, dict[str, int]]:
    return played()


def test_every_chip_names_the_event_of_its_roll(night):
    svc, seqs = night
    events = {e["seq"]: e for e in log(svc)}
    for chip, roll in (("chip0", "test0"), ("chip1", "test1"), ("chip_attack", "attack"),
                       ("chip_hook", "hook")):  # fmt: skip
        assert chip_group(events[seqs[chip]])["earlier"] == seqs[roll], chip


@pytest.mark.parametrize("gm", [True, False])
def test_an_honest_log_matches_every_chips_carried_dice(night, gm):
    svc, _ = night
    report = verify_events(log(svc, gm=gm))
    assert report.ok, report.problems
    if gm:  # every chip checked: its new dice from the seed, the others matched
        assert (report.carried_matched, report.carried) == (5, 0)
    else:  # the chips on rolls at Guard or by Guard: withheld or on the GM's stream here
        assert (report.carried_matched, report.carried) == (3, 0)


def carried_die(group: dict[str, Any]) -> dict[str, Any]:
    """The first die of a chip's group that it shows again (not rolled anew)."""
    return next(d for d in group["dice"] if "reroll" not in d.get("tags", ()))


@pytest.mark.parametrize("gm", [True, False])
@pytest.mark.parametrize("chip", ["chip0", "chip1", "chip_attack", "chip_hook", "chip_npc"])
def test_a_changed_carried_die_is_a_mismatch(night, chip, gm):
    """In a player's log too: the match needs no seed (the dice of an attack on an
    NPC, rolled on the GM's stream, are shown to players)."""
    svc, seqs = night
    events = log(svc, gm=gm)
    event = next(e for e in events if e["seq"] == seqs[chip])
    die = carried_die(chip_group(event))
    die["rolls"] = [die["rolls"][0] % die["faces"] + 1]  # another face, no ace
    problems = verify_events(events).problems
    assert [(p.code, p.seq) for p in problems] == [("carried_mismatch", seqs[chip])]
    assert f"seq {seqs[chip]} shows again dice of the roll of seq" in problems[0].message


@pytest.mark.parametrize(
    ("earlier", "why"),
    [(lambda seqs: seqs["test1"], "another roll"), (lambda seqs: seqs["chip0"], "itself"),
     (lambda seqs: seqs["chip0"] + 1, "a later event")],
)  # fmt: skip
def test_a_chip_naming_another_event_is_a_mismatch(night, earlier, why):
    svc, seqs = night
    events = log(svc)
    event = next(e for e in events if e["seq"] == seqs["chip0"])
    chip_group(event)["earlier"] = earlier(seqs)
    problems = verify_events(events).problems
    assert [(p.code, p.seq) for p in problems] == [("carried_mismatch", seqs["chip0"])], why


def test_a_roll_not_in_the_log_leaves_its_chips_carried_dice_counted_apart(night):
    """A log that starts after the roll (a client that joined later, an export with
    since): its chip's carried dice cannot be matched, and are counted, not failed."""
    svc, seqs = night
    events = log(svc, after=seqs["test0"])  # from chip0 on: test0 is not in the log
    welcome = {"type": "welcome", "table": svc.table("t").view(gm=True, at=seqs["test0"],
               later=svc.store.events_after("t", seqs["test0"]))}  # fmt: skip
    report = verify_events([json.loads(json.dumps(welcome)), *events])
    assert report.ok, report.problems
    assert (report.carried, report.carried_matched) == (1, 4)
    # a group that names no event (written before groups named one): counted apart
    events = log(svc)
    for event in events:
        for group in (event.get("data") or {}).get("dice") or ():
            group.pop("earlier", None)
    report = verify_events(events)
    assert report.ok and (report.carried, report.carried_matched) == (5, 0)


def test_the_whole_roll_rerolled_matches_the_replaced_dice():
    """``chip_reroll: whole_roll`` rerolls both dice: the dice shown again are the
    replaced ones, and they must be the earlier roll's too."""
    svc = table(chip_reroll="whole_roll")
    test = resolve(svc, "t", "trait", "ana", params={"trait": "notice"})
    chip = resolve(svc, "c", "chip", "ana")
    svc.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
    group = chip_group(chip)
    assert [d.get("tags", [])[-1:] for d in group["dice"]].count(["rerolled"]) == 2
    assert group["earlier"] == test["seq"]
    events = log(svc)
    report = verify_events(events)
    assert report.ok and report.carried_matched == 1, report.problems
    forged = copy.deepcopy(events)
    group = chip_group(next(e for e in forged if e["seq"] == chip["seq"]))
    replaced = next(d for d in group["dice"] if "rerolled" in d["tags"])
    replaced["rolls"] = [replaced["rolls"][0] % replaced["faces"] + 1]
    assert [p.code for p in verify_events(forged).problems] == ["carried_mismatch"]


def _chip_after_the_gms_state(change) -> list[dict[str, Any]]:
    """A trait test, the GM's ``actor.update`` of Ana with her state changed by
    ``change`` (the state as it stands, a remembered roll's die edited...), a chip on
    that roll, revealed: the GM's log."""
    svc = table()
    resolve(svc, "t", "trait", "ana", params={"trait": "notice"})
    state = copy.deepcopy(svc.table("t").actors["ana"].state)
    assert state["rolls"][-1]["seq"] == svc.table("t").info.seq  # the trait test's event
    change(state["rolls"][-1])
    svc.handle("t", {"type": "actor.update", "id": "u", "actor": "ana", "state": state}, GM)
    resolve(svc, "c", "chip", "ana", params={"die": "trait"})
    svc.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
    return log(svc)


def _edited(record: dict[str, Any]) -> None:
    record["wild_die"].update(rolls=[record["wild_die"]["rolls"][0] % 6 + 1], value=1)


def test_a_roll_the_gm_supplies_is_matched_as_it_names_its_event():
    """A state resent as it stands keeps each roll's event: its chip is matched. A
    remembered die the GM changed is not the dice that event showed: the chip that
    carries it is a mismatch, the GM's edit before it. Without ``seq`` (the GM's
    edit said so) the chip's dice are counted apart."""
    report = verify_events(_chip_after_the_gms_state(lambda record: None))
    assert report.ok and (report.carried, report.carried_matched) == (0, 1), report.problems
    events = _chip_after_the_gms_state(_edited)
    assert [e["kind"] for e in events][-5:-3] == ["actor.updated", "resolution"]
    assert [p.code for p in verify_events(events).problems] == ["carried_mismatch"]

    def edited_without_its_event(record: dict[str, Any]) -> None:
        _edited(record)
        del record["seq"]

    report = verify_events(_chip_after_the_gms_state(edited_without_its_event))
    assert report.ok and (report.carried, report.carried_matched) == (1, 0), report.problems


def test_the_verify_command_reports_the_mismatch_and_the_matches(night, tmp_path, capsys):
    svc, seqs = night
    events = log(svc, gm=False)
    path = tmp_path / "player.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in events), encoding="utf-8")
    assert main(["verify", str(path)]) == 0
    out = capsys.readouterr().out
    assert "show dice of an earlier roll again (a chip's reroll): matched to that roll" in out
    event = next(e for e in events if e["seq"] == seqs["chip1"])
    die = carried_die(chip_group(event))
    die["rolls"] = [die["rolls"][0] % die["faces"] + 1]
    path.write_text("\n".join(json.dumps(e) for e in events), encoding="utf-8")
    assert main(["verify", str(path), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert [p["code"] for p in report["problems"]] == ["carried_mismatch"]
