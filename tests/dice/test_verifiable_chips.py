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
from pathlib import Path
from typing import Any

import pytest

from rollbridge.cli import main
from rollbridge.cli.offline import offline_host
from rollbridge.dice.records import DiceGroup, Die
from rollbridge.dice.verifiable import DiceKey
from rollbridge.dice.verify import verify_events
from rollbridge.engine.model import Principal
from rollbridge.offline import TableService
from rollbridge.stores.backup import backup
from rollbridge.stores.memory import MemoryStore
from rollbridge.stores.sqlite import SQLiteStore

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


# -- a restored table: the epochs' seqs apart ----------------------------------------


def _view_log(svc: TableService, after: int = 0) -> list[dict[str, Any]]:
    """A player's log: the event frames it was sent."""
    return [{"type": "event", **event} for event in log(svc, gm=False, after=after)]


def test_a_player_who_plays_on_through_a_restored_backup_verifies(tmp_path):
    """The player saw rolls the backup lost; the table, restored, rolls again at those
    seqs (a new epoch) while the player is away, and its chips name them. Before,
    verify matched them with the lost history's rolls of the same seq and reported
    an honest log ``carried_mismatch``. Now a chip is matched strictly within its
    epoch; a seq only an earlier epoch showed is matched when its dice agree (the
    history the epochs share), else counted apart: where the epochs part, the log
    does not say."""
    lost = tmp_path / "lost.db"
    with SQLiteStore(lost) as store:
        svc = TableService(store, HOST)
        svc.create_table("t", "wilddie", table_id="t", settings={"verifiable": True})
        for index, (name, controllers) in enumerate([("Ana", ["pat"]), ("Guard", [])]):
            actor = {"id": name.lower(), "name": name, "sheet": SHEETS[name],
                     "controllers": controllers}  # fmt: skip
            svc.handle("t", {"type": "actor.create", "id": f"a{index}", "actor": actor}, GM)
        shared = resolve(svc, "x0", "trait", "ana", params={"trait": "notice"})["seq"]
        svc.handle("t", {"type": "dice.reveal", "id": "v0"}, GM)
        backup(lost, tmp_path / "b.db")
        for n in range(6):  # the history the backup loses: the player saw it
            resolve(svc, f"lost{n}", "trait", "ana", params={"trait": "fighting"})
        svc.handle("t", {"type": "dice.reveal", "id": "v1"}, GM)
        seen = _view_log(svc)
    Path(f"{tmp_path / 'b.db'}.dice-key").write_bytes(Path(f"{lost}.dice-key").read_bytes())
    with SQLiteStore(tmp_path / "b.db") as store:
        assert store.finish_restore() is not None
        svc = TableService(store, HOST)
        svc.handle("t", {"type": "dice.reveal", "id": "r1"}, GM)  # the restored segment
        again = resolve(svc, "new0", "trait", "ana", params={"trait": "notice"})
        table = svc.table("t")
        welcome = {"type": "welcome", "id": "h", "protocol": 1, "role": "player",
                   "epoch": table.info.epoch, "seq": table.info.seq,
                   "table": json.loads(json.dumps(table.view(gm=False)))}  # fmt: skip
        start = table.info.seq
        on_new = resolve(svc, "c1", "chip", "ana", params={"roll": "new0"})
        on_shared = resolve(svc, "c2", "chip", "ana", params={"roll": "x0"})
        svc.handle("t", {"type": "dice.reveal", "id": "r2"}, GM)
        later = _view_log(svc, after=start)
    assert chip_group(on_new)["earlier"] == again["seq"]
    assert chip_group(on_shared)["earlier"] == shared
    old = next(e for e in seen if e["seq"] == again["seq"])  # the lost roll at that seq
    assert old["kind"] == "resolution" and old["data"]["dice"] != again["data"]["dice"]
    report = verify_events([*seen, welcome, *later])
    assert report.ok, report.problems
    assert len(report.epochs) == 2
    assert (report.carried, report.carried_matched) == (1, 1)  # new0 apart, x0 matched
    # the shared roll's carried die changed: not that roll, yet still not a mismatch
    forged = copy.deepcopy(later)
    group = chip_group(next(e for e in forged if e["seq"] == on_shared["seq"]))
    carried_die(group)["rolls"] = [carried_die(group)["rolls"][0] % 6 + 1]
    report = verify_events([*seen, welcome, *forged])
    assert report.ok and (report.carried, report.carried_matched) == (2, 0)


# -- what a chip's group names: an earlier event that showed its roll -----------------


def _forged_chip(earlier: Any) -> list[dict[str, Any]]:
    """A trait test and a chip on it, revealed (the player's log), the chip's carried
    trait die changed and its ``earlier`` set to ``earlier`` (a callable of the log's
    seqs by kind; ``...``: removed)."""
    svc = table()
    test = resolve(svc, "t1", "trait", "ana", params={"trait": "notice"})
    resolve(svc, "s", "trait", "guard", GM, params={"trait": "notice"}, secret=True)
    svc.handle("t", {"type": "resolve", "id": "w", "action": "award_chips", "targets": ["ana"],
                     "params": {"count": 1}}, GM)  # fmt: skip
    chip = resolve(svc, "c1", "chip", "ana", params={"roll": "t1"})
    svc.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
    events = log(svc, gm=False)
    kinds = {e["seq"]: e["kind"] for e in events}
    group = chip_group(next(e for e in events if e["seq"] == chip["seq"]))
    assert group["earlier"] == test["seq"]
    die = carried_die(group)
    die["rolls"] = [die["rolls"][0] % die["faces"] + 1]
    if earlier is ...:
        del group["earlier"]
    else:
        group["earlier"] = earlier(kinds)
    return events


def _seq_of(kind: str, nth: int = 0):
    return lambda kinds: [s for s, k in kinds.items() if k == kind][nth]


@pytest.mark.parametrize(
    "earlier",
    [_seq_of("dice.committed"), _seq_of("actor.created"), _seq_of("settings"),
     lambda kinds: str(_seq_of("resolution")(kinds)),
     lambda kinds: float(_seq_of("resolution")(kinds)),
     lambda kinds: None, lambda kinds: True, lambda kinds: 0, lambda kinds: -1],
    ids=["dice.committed", "actor.created", "settings", "text", "float", "null", "true",
         "zero", "negative"],
)  # fmt: skip
def test_a_chip_naming_an_event_that_shows_no_roll_or_no_seq_is_a_mismatch(earlier):
    """Before, such a chip's carried dice (here changed) were counted ``carried``
    and the log passed: naming an event in the log that shows no roll, or something
    that is no seq, took them out of the match."""
    events = _forged_chip(earlier)
    assert [p.code for p in verify_events(events).problems] == ["carried_mismatch"]


@pytest.mark.parametrize(
    "earlier",
    [..., _seq_of("hidden"), _seq_of("resolution", 1), _seq_of("resolution")],
    ids=["no earlier", "a secret event", "a resolution with no dice", "not in the log"],
)
def test_a_chip_whose_roll_the_log_cannot_show_is_counted_apart(earlier, request):
    """What the log cannot hold the chip to — no event named, a secret event's
    stand-in, a resolution that shows no dice groups (``award_chips``), an event not
    in the log (a log with a gap, which is itself a mismatch: ``missing``) — leaves
    its carried dice counted (``carried``), not matched."""
    events = _forged_chip(earlier)
    if "not in the log" in request.node.name:
        events = [e for e in events if e["seq"] != earlier({e["seq"]: e["kind"] for e in events})]
    if earlier is not ...:
        named = chip_group(next(e for e in events if e["kind"] == "resolution"
                                and "reroll" in str(e["data"].get("dice"))))["earlier"]  # fmt: skip
        shown = next((e for e in events if e["seq"] == named), None)
        assert shown is None or shown["kind"] == "hidden" or not shown["data"].get("dice")
    report = verify_events(events)
    # the event left out is a gap, reported as such, and nothing else is wrong
    gap = ["missing"] if "not in the log" in request.node.name else []
    assert [p.code for p in report.problems] == gap, report.problems
    assert (report.carried, report.carried_matched) == (1, 0)


def test_the_verify_command_fails_a_chip_naming_a_commitment(tmp_path, capsys):
    events = _forged_chip(_seq_of("dice.committed"))
    path = tmp_path / "forged.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    assert main(["verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert "MISMATCH at line" in out and "(a chip's reroll), but seq 2 shows no such roll" in out
    events = _forged_chip(...)  # naming none: counted, and the line says what that means
    path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    assert main(["verify", str(path)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert (
        "1 show dice of an earlier roll again (a chip's reroll) that this log cannot match "
        "with that roll (its event is not in the log, is secret or shows no dice here, is of "
        "an earlier epoch, or the chip does not name it): only their new dice are checked"
    ) in out


# -- what a chip's group names: that event's roll, of the same actor ------------------


def _two_tests_and_a_chip() -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """Ana's trait tests t1 and t2 (with different dice), Guard's gt, a chip on t2;
    revealed: the GM's log, and the events by request."""
    for attempt in range(40):
        svc = table()
        shown = {rid: resolve(svc, rid, "trait", "ana", params={"trait": "notice"})
                 for rid in ("t1", "t2")}  # fmt: skip
        dice = [e["data"]["dice"][0]["dice"] for e in shown.values()]
        if [d["rolls"] for d in dice[0]] != [d["rolls"] for d in dice[1]]:
            break
        svc.handle("t", {"type": "dice.reveal", "id": f"skip{attempt}"}, GM)
    shown["gt"] = resolve(svc, "gt", "trait", "guard", GM, params={"trait": "notice"})
    shown["c"] = resolve(svc, "c", "chip", "ana", params={"die": "trait", "roll": "t2"})
    svc.handle("t", {"type": "dice.reveal", "id": "v"}, GM)
    return log(svc), shown


def test_every_test_group_names_its_roll_and_a_chip_the_roll_it_rerolls():
    events, shown = _two_tests_and_a_chip()
    assert [shown[r]["data"]["dice"][0]["roll"] for r in ("t1", "t2", "gt")] == ["t1", "t2", "gt"]
    group = chip_group(shown["c"])
    assert (group["roll"], group["earlier"]) == ("t2", shown["t2"]["seq"])
    assert shown["c"]["data"]["outcome"]["roll"] == "t2"
    report = verify_events(events)
    assert report.ok and report.carried_matched == 1, report.problems


def _carry(events: list[dict[str, Any]], chip: int, source: dict[str, Any],
           roll: Any = None) -> None:  # fmt: skip
    """The chip's carried dice made ``source``'s (its new die kept), its ``earlier``
    that event's seq (and its ``roll`` ``roll``, if given)."""
    group = chip_group(next(e for e in events if e["seq"] == chip))
    new = [d for d in group["dice"] if "reroll" in d.get("tags", ())]
    group["dice"] = copy.deepcopy(source["data"]["dice"][0]["dice"]) + new
    group["earlier"] = source["seq"]
    if roll is not None:
        group["roll"] = roll


def test_a_chip_showing_another_of_the_actors_rolls_is_a_mismatch():
    """A chip on Ana's t2 shown as if it carried her t1's dice, ``earlier`` t1's seq:
    t1's event shows those dice, so before it was "matched". Now the dice are held to
    the group of that event that names the roll the chip names (t2): none does."""
    events, shown = _two_tests_and_a_chip()
    _carry(events, shown["c"]["seq"], shown["t1"])
    problems = verify_events(events).problems
    assert [(p.code, p.seq) for p in problems] == [("carried_mismatch", shown["c"]["seq"])]


def test_a_chip_showing_another_actors_roll_is_a_mismatch():
    """Ana's chip carrying Guard's roll — its dice, its event, even its roll's name —
    is not Ana's roll: only the groups the chip's actor rolled count."""
    events, shown = _two_tests_and_a_chip()
    _carry(events, shown["c"]["seq"], shown["gt"], roll="gt")
    assert [p.code for p in verify_events(events).problems] == ["carried_mismatch"]


def test_a_chip_that_names_no_roll_is_not_matched_where_the_rolls_are_named():
    """A chip's group without ``roll`` cannot be bound to one of the event's named
    groups: its dice are counted apart, not matched (and fail if that event shows no
    such dice of its actor). A log written before groups named their rolls is
    matched as before, by the actor's groups of that event."""
    events, shown = _two_tests_and_a_chip()
    del chip_group(next(e for e in events if e["seq"] == shown["c"]["seq"]))["roll"]
    report = verify_events(events)
    assert report.ok and (report.carried, report.carried_matched) == (1, 0), report.problems
    _carry(events, shown["c"]["seq"], shown["t1"])
    report = verify_events(events)
    assert report.ok and (report.carried, report.carried_matched) == (1, 0), report.problems
    _carry(events, shown["c"]["seq"], shown["gt"])
    assert [p.code for p in verify_events(events).problems] == ["carried_mismatch"]
    events, shown = _two_tests_and_a_chip()
    for event in events:
        for group in (event.get("data") or {}).get("dice") or ():
            group.pop("roll", None)
    report = verify_events(events)
    assert report.ok and (report.carried, report.carried_matched) == (0, 1), report.problems


def test_a_dice_group_from_plain_data_takes_only_a_seq_and_a_name():
    group = DiceGroup("Notice d6", (Die.single(6, 4),), tags=("reroll",), earlier=5, roll="t1")
    assert DiceGroup.from_dict(group.to_dict()) == group
    for bad in ({"earlier": "5"}, {"earlier": 5.0}, {"earlier": True}, {"roll": 7}):
        with pytest.raises(ValueError):
            DiceGroup.from_dict({**group.to_dict(), **bad})
