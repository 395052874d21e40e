"""An event's redaction is the table as that event left it (rollbridge.engine.redaction):
staged with the event; walked back to from the table now for events read from the log;
the same for a member in another language whose view is built at delivery, for a
request executed while the one before it is still being written, for a cluster's
follower that applies both at once, and for statistics."""

from __future__ import annotations

import json
from typing import Any

from rollbridge.dice.sources import SeededDice
from rollbridge.engine.model import Principal
from rollbridge.engine.views import Audience
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.protocol.effects import Deliver, Effect, LoadTable, Persist, Read
from rollbridge.protocol.members import Member
from rollbridge.protocol.table import TableProtocol
from rollbridge.server.cluster_table import ClusterTable, Ownership
from rollbridge.stores.memory import MemoryStore
from tests.server.cluster_driver import Driver

HOST = PluginHost(environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
GM = Principal("gm", "gm", "tok-gm")
ALICE = Principal("player", "alice", "tok-alice")
SHEETS = HOST.rulesets["sr2"].example_sheets
#: a seed whose attack hits (the guard rolls its resistance test)
ATTACK = {"type": "resolve", "action": "attack", "actor": "tukan", "targets": ["guard"],
          "params": {"weapon": "Hackler", "range": "short"}}  # fmt: skip
REVEAL = {"type": "settings", "settings": {"ruleset": {"show_npc_sheet": True}}}


def sr2_table() -> TableService:
    """An sr2 table ``t``: Tukan (alice's) and an NPC guard; seeded dice."""
    seeds = iter(range(10**6))
    service = TableService(MemoryStore(), HOST, dice=lambda: SeededDice(f"r:{next(seeds)}"))
    service.create_table("T", "sr2", table_id="t")
    for actor in ({"id": "tukan", "name": "Tukan", "sheet": SHEETS["Tukan"],
                   "controllers": ["alice"]},
                  {"id": "guard", "name": "Guard A", "sheet": SHEETS["Guard A"]}):  # fmt: skip
        service.handle("t", {"type": "actor.create", "id": actor["id"], "actor": actor}, GM)
    return service


def resistance(view: dict[str, Any]) -> dict[str, Any]:
    """The guard's armour, Body and TN as a view shows them (absent: hidden)."""
    shown = view["data"]["outcome"]["resistance"] or {}
    return {k: shown[k] for k in ("armor", "body", "tn") if k in shown}


def carry(store: MemoryStore, effects: list[Effect], held: list[Persist] | None = None) -> list:
    """Carry out effects at once (reads, commits), keeping the commits in ``held``
    unwritten when given (the server writes them later, on its writer thread)."""
    out, pending = [], list(effects)
    while pending:
        effect = pending.pop(0)
        follow: list[Effect] = []
        if isinstance(effect, Read):
            follow = effect.resume(effect.run(store))
        elif isinstance(effect, Persist) and held is not None:
            held.append(effect)
        elif isinstance(effect, Persist):
            store.commit(effect.table_id, effect.commit)
            follow = effect.resume(None)
        else:
            out.append(effect)
        pending[:0] = follow
    return out


def events_to(out: list, member: Member) -> dict[int, dict[str, Any]]:
    return {
        json.loads(frame)["seq"]: json.loads(frame)
        for effect in out
        if isinstance(effect, Deliver)
        for to, frame in effect.frames
        if to is member
    }


def test_a_request_executed_while_the_one_before_is_written_does_not_change_its_views():
    service = sr2_table()
    store = service.store
    protocol = TableProtocol.open(LoadTable(table_id="t").run(store), HOST.rulesets,
                                  dice=lambda: SeededDice("r:hit"))  # fmt: skip
    members = {locale: Member(ALICE, kind="json", locale=locale, origin=locale)
               for locale in ("en", "de")}  # fmt: skip
    for member in members.values():
        carry(store, protocol.join(member, None))
    held: list[Persist] = []
    carry(store, protocol.receive({**ATTACK, "id": "a"}, ALICE, "en", member=members["en"]), held)
    carry(store, protocol.receive({**REVEAL, "id": "s"}, GM, "gm"), held)  # before "a" is durable
    out = []
    for persist in held:  # both written, in order
        store.commit(persist.table_id, persist.commit)
        out += carry(store, persist.resume(None))
    seen = {locale: events_to(out, m)[3] for locale, m in members.items()}
    assert seen["en"]["data"]["outcome"]["resistance"] is not None  # it hit: there is a TN
    assert resistance(seen["en"]) == {} == resistance(seen["de"])  # hidden when it happened
    # shown to the English players at staging, to the German ones at delivery: alike
    assert events_to(out, members["de"])[4]["kind"] == "settings"


def test_a_follower_applying_an_attack_and_a_reveal_at_once_shows_the_attack_as_it_was():
    service = sr2_table()
    store = service.store
    follower = ClusterTable.open(LoadTable(table_id="t").run(store), HOST.rulesets,
                                 ownership=Ownership())  # fmt: skip
    member = Member(ALICE, kind="json", locale="de", origin="m")
    driver = Driver(store)
    driver.carry(follower.join(member, None))
    for n in range(6):  # the owner (another process) executes both before the notice
        service.handle("t", {**ATTACK, "id": f"a{n}"}, ALICE)
    service.handle("t", {**REVEAL, "id": "s"}, GM)
    out = driver.carry(follower.notified(1, 9))
    frames = events_to(out, member)
    hits = [f for f in frames.values() if f["kind"] == "resolution"
            and f["data"]["outcome"]["resistance"] is not None]  # fmt: skip
    assert hits, "the seeded dice hit"
    assert all(resistance(frame) == {} for frame in hits)
    assert frames[9]["kind"] == "settings"


def test_recall_walks_back_through_settings_and_controllers_and_stops_at_a_gap():
    service = sr2_table()
    service.handle("t", {**ATTACK, "id": "a1"}, ALICE)  # seq 3: hidden
    service.handle("t", {**REVEAL, "id": "s1"}, GM)  # 4
    service.handle("t", {**ATTACK, "id": "a2"}, ALICE)  # 5: shown (the setting)
    service.handle("t", {**REVEAL, "id": "s2", "settings": {"ruleset": {"show_npc_sheet":
                                                                        False}}}, GM)  # fmt: skip
    service.handle("t", {"type": "actor.update", "id": "u", "actor": "guard",
                         "controllers": ["alice"]}, GM)  # fmt: skip
    service.handle("t", {**ATTACK, "id": "a3"}, ALICE)  # 8: shown (the guard is a player's)
    table = service.table("t")
    stored = service.store.events_after("t", 0)
    assert all(e.redaction is None for e in stored)  # read back: none of their own
    table.recall(stored[4:])  # seqs 5-8 only: from the table now
    by_seq = {e.seq: e for e in stored}
    assert by_seq[3].redaction is None  # not given: not walked to
    assert by_seq[5].redaction.settings["show_npc_sheet"] is True
    assert by_seq[5].redaction.npcs == {"guard"} and not by_seq[5].redaction.controlled("guard")
    assert by_seq[8].redaction.controlled("guard") and by_seq[8].redaction.settings == {
        **by_seq[5].redaction.settings, "show_npc_sheet": False}  # fmt: skip
    table.recall(stored)
    assert by_seq[3].redaction.settings["show_npc_sheet"] is False
    assert by_seq[3].redaction.npcs == {"guard"} and by_seq[2].redaction.npcs == {"guard"}
    assert by_seq[1].redaction.npcs == frozenset()  # before the guard was created
    views = {s: table.view_event(by_seq[s], audience=Audience(False, "ru")) for s in (3, 5, 8)}
    assert [bool(resistance(views[s])) for s in (3, 5, 8)] == [False, True, True]

    gap = service.store.events_after("t", 0)
    table.recall([e for e in gap if e.seq != 6])  # seq 6 missing: 5 and below keep none
    assert [e.redaction is None for e in gap] == [True] * 5 + [True, False, False]


def test_a_table_knows_from_which_seq_its_redaction_holds():
    service = sr2_table()
    table = service.table("t")
    service.handle("t", {**ATTACK, "id": "a1"}, ALICE)
    assert table.redaction_from <= 3  # a hit changes the guard, not who controls it
    service.handle("t", {**REVEAL, "id": "s1"}, GM)
    assert table.redaction_from == 4
    service.handle("t", {**ATTACK, "id": "a2"}, ALICE)
    assert table.redaction_from == 4
    service.handle("t", {"type": "settings", "id": "s2", "settings": {"approval": True}}, GM)
    assert table.redaction_from == 4  # a core setting: what views depend on is the same
    fresh = service.store.events_after("t", 2)
    table.recall([e for e in fresh if e.seq == 5])  # no walk needed: the table's own
    assert [e.redaction is table.redaction() for e in fresh] == [False, False, True, False]


def test_a_resume_read_out_while_the_table_is_loaded_again_is_not_shown_with_a_gap():
    """Review of the redaction (4 December): a player resumes from before an attack;
    while its read of the log is out, a commit that landed is reported failed and the
    table is loaded again, past the events the read holds. The read's events could
    not be walked back to (the walk starts at the table's new seq) and were shown as
    the table is now — the NPC's numbers a setting now reveals, hidden when it
    happened — and the event between was never sent. Such a read is stale: the
    resume is welcomed with the table as it is (``recovered: false``), no gap."""
    service = sr2_table()
    store = service.store
    protocol = TableProtocol.open(LoadTable(table_id="t").run(store), HOST.rulesets,
                                  dice=lambda: SeededDice("r:hit"))  # fmt: skip
    carry(store, protocol.receive({**ATTACK, "id": "a"}, ALICE, "en"))  # seq 3, hidden
    held: list[Persist] = []
    carry(store, protocol.receive({**REVEAL, "id": "s"}, GM, "gm"), held)  # seq 4, held
    bob = Member(Principal("player", "bob", "tok-bob"), kind="json", locale="en", origin="b")
    reads: list[Read] = []
    for effect in protocol.join(bob, {"epoch": 1, "seq": 2}):
        (reads if isinstance(effect, Read) else []).append(effect)
    (read,) = reads
    stored = read.run(store)  # the missed events as the log holds them now: seq 3
    (persist,) = held
    store.commit(persist.table_id, persist.commit)  # it landed, but is reported failed
    carry(store, persist.fail(RuntimeError("timed out")))  # the table is loaded again
    out = carry(store, read.resume(stored))
    welcome = next(
        json.loads(frame)
        for effect in out
        if isinstance(effect, Deliver)
        for to, frame in effect.frames
        if to is bob and json.loads(frame)["type"] == "welcome"
    )
    assert welcome["resume"] == {"recovered": False, "missed": 0}
    assert welcome["seq"] == 4
    sent = [f for f in events_to(out, bob).values() if f["type"] == "event"]
    assert sent == []  # nothing shown as the table is now
