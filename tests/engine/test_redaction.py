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
from rollbridge.protocol.effects import (
    Deliver,
    Effect,
    LoadTable,
    Persist,
    Read,
    ReadEvent,
    ReadEvents,
    Reply,
)
from rollbridge.protocol.members import Member
from rollbridge.protocol.table import TableProtocol
from rollbridge.server.cluster_table import ClusterTable, Ownership
from rollbridge.stores.backup import backup
from rollbridge.stores.base import Store
from rollbridge.stores.memory import MemoryStore
from rollbridge.stores.sqlite import SQLiteStore
from tests.server.cluster_driver import Driver

HOST = PluginHost(environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
GM = Principal("gm", "gm", "tok-gm")
ALICE = Principal("player", "alice", "tok-alice")
SHEETS = HOST.rulesets["sr2"].example_sheets
#: a seed whose attack hits (the guard rolls its resistance test)
ATTACK = {"type": "resolve", "action": "attack", "actor": "tukan", "targets": ["guard"],
          "params": {"weapon": "Hackler", "range": "short"}}  # fmt: skip
REVEAL = {"type": "settings", "settings": {"ruleset": {"show_npc_sheet": True}}}


def sr2_table(store: Store | None = None) -> TableService:
    """An sr2 table ``t`` (on ``store``; default: in memory): Tukan (alice's) and an
    NPC guard; seeded dice."""
    seeds = iter(range(10**6))
    service = TableService(store if store is not None else MemoryStore(), HOST,
                           dice=lambda: SeededDice(f"r:{next(seeds)}"))  # fmt: skip
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


def retry_read(protocol: TableProtocol, store: Store, request_id: str) -> Read:
    """Alice repeats her attack ``request_id``: the read of the event its reply names
    (after the reply itself is found in the store, when it is not in memory)."""
    effects = protocol.receive({**ATTACK, "id": request_id}, ALICE, "alice")
    while True:
        (effect,) = effects
        if isinstance(effect, (ReadEvent, ReadEvents)):
            return effect
        effects = effect.resume(effect.run(store))


def restarted(path: Any, service: TableService) -> TableService:
    """The table's server restarted: a new store on the same file, the table loaded
    again (it knows its redaction from its latest seq only)."""
    service.store.close()
    seeds = iter(range(10**6, 2 * 10**6))
    return TableService(SQLiteStore(path), HOST, dice=lambda: SeededDice(f"r:{next(seeds)}"))


def hits(live: dict[str, dict[str, Any]]) -> list[str]:
    """The attacks that hit (a resistance test to hide), by request id."""
    return [k for k, r in live.items() if r["event"]["data"]["outcome"]["resistance"] is not None]


def test_a_retry_after_a_restart_reads_only_up_to_where_the_redaction_holds(tmp_path):
    """A retry of an old attack, after a restart, forty more attacks, the GM's reveal
    and forty more: it read the whole rest of the log to walk back to its event (the
    store's thread, for 1,000 retained events, 33 ms against 0.44 ms for one). Now it
    reads the events from its own to the reveal (``until``), the first that left the
    table as it is, and walks back from there: the attack reads as it did live."""
    path = tmp_path / "t.db"
    service = sr2_table(SQLiteStore(path))
    live = {f"a{n}": service.handle("t", {**ATTACK, "id": f"a{n}"}, ALICE) for n in range(5)}
    assert hits(live) and all(resistance(live[k]["event"]) == {} for k in hits(live))
    service = restarted(path, service)
    for n in range(40):
        service.handle("t", {**ATTACK, "id": f"b{n}"}, ALICE)
    reveal = service.handle("t", {**REVEAL, "id": "s"}, GM)["seq"]
    for n in range(40):
        service.handle("t", {**ATTACK, "id": f"c{n}"}, ALICE)
    protocol, store = service.protocol("t"), service.store
    assert protocol.table.info.seq == reveal + 40
    for request_id, reply in live.items():
        seq = reply["seq"]
        read = retry_read(protocol, store, request_id)
        assert isinstance(read, ReadEvents)
        assert (read.after, read.until) == (seq - 1, reveal)
        stored = read.run(store)
        assert [e.seq for e in stored] == list(range(seq, reveal + 1))  # not to reveal + 40
        (answer,) = read.resume(stored)
        assert answer.message["event"] == reply["event"], request_id
    table, now = protocol.table, store.event("t", live[hits(live)[0]]["seq"])
    assert resistance(table.view_event(now, audience=Audience(False, "en"))), (
        "shown as the table is now, the hit would read otherwise: something at stake"
    )


def test_a_change_made_while_a_retry_reads_does_not_move_its_walk(tmp_path):
    """The walk starts where the table's redaction held when the read was sent: the
    GM adds an NPC (the table's redaction now holds from that seq) while a retry's
    read is out; the read still holds only the events up to the reveal, and the
    attack is shown as it was, not as the table is now."""
    service = sr2_table(SQLiteStore(tmp_path / "t.db"))
    live = {f"a{n}": service.handle("t", {**ATTACK, "id": f"a{n}"}, ALICE) for n in range(5)}
    reveal = service.handle("t", {**REVEAL, "id": "s"}, GM)["seq"]
    for n in range(10):
        service.handle("t", {**ATTACK, "id": f"b{n}"}, ALICE)
    protocol, store = service.protocol("t"), service.store
    request_id = hits(live)[0]
    read = retry_read(protocol, store, request_id)
    assert isinstance(read, ReadEvents) and read.until == reveal
    npc = {"id": "guard2", "name": "Guard B", "sheet": SHEETS["Guard A"]}
    carry(store, protocol.receive({"type": "actor.create", "id": "g2", "actor": npc}, GM, "gm"))
    assert protocol.table.redaction_from == reveal + 11  # moved while the read is out
    (answer,) = read.resume(read.run(store))
    assert answer.message["event"] == live[request_id]["event"]
    assert resistance(answer.message["event"]) == {}


def test_a_retry_read_out_while_the_table_is_loaded_again_is_stale(tmp_path):
    """The ranged read keeps the stale-read rule: a commit that landed is reported
    failed while a retry's read is out, and the table is loaded again; the retry is
    told its event left the log rather than shown with a walk that may miss events."""
    service = sr2_table(SQLiteStore(tmp_path / "t.db"))
    live = {f"a{n}": service.handle("t", {**ATTACK, "id": f"a{n}"}, ALICE) for n in range(3)}
    service.handle("t", {**REVEAL, "id": "s"}, GM)
    protocol, store = service.protocol("t"), service.store
    read = retry_read(protocol, store, "a0")
    assert isinstance(read, ReadEvents)
    held: list[Persist] = []
    hide = {**REVEAL, "id": "s2", "settings": {"ruleset": {"show_npc_sheet": False}}}
    carry(store, protocol.receive(hide, GM, "gm"), held)
    (persist,) = held
    store.commit(persist.table_id, persist.commit)  # it landed, but is reported failed
    carry(store, persist.fail(RuntimeError("timed out")))  # the table is loaded again
    (answer,) = read.resume(read.run(store))
    assert isinstance(answer, Reply) and "event" not in answer.message
    assert answer.message["note"] == "the event has left the retained log"
    assert answer.message["seq"] == live["a0"]["seq"]


def test_a_retry_across_a_restored_backup_reads_as_it_did_live(tmp_path):
    """Attacks hidden live, the GM's reveal, a backup restored (the table moves to a
    new epoch, its seqs go on), more events: each attack repeated reads as it did
    live. The walk back stopped at the epoch's edge, and the attacks of the old
    epoch were shown as the table is now — the guard's armour and Body, hidden when
    they were rolled, sent to the player (found by review)."""
    path, copy = tmp_path / "t.db", tmp_path / "restored.db"
    service = sr2_table(SQLiteStore(path))
    live = {f"a{n}": service.handle("t", {**ATTACK, "id": f"a{n}"}, ALICE) for n in range(4)}
    assert hits(live) and all(resistance(live[k]["event"]) == {} for k in hits(live))
    service.handle("t", {**REVEAL, "id": "s"}, GM)
    epoch = service.table("t").info.epoch
    service.store.close()
    backup(path, copy)
    restored = SQLiteStore(copy)
    restored.finish_restore()
    seeds = iter(range(10**6, 2 * 10**6))
    service = TableService(restored, HOST, dice=lambda: SeededDice(f"r:{next(seeds)}"))
    assert service.table("t").info.epoch != epoch
    for n in range(3):
        service.handle("t", {"type": "roll", "id": f"x{n}", "formula": "1d6"}, GM)
    for request_id, reply in live.items():
        again = service.handle("t", {**ATTACK, "id": request_id}, ALICE)
        assert again["event"] == reply["event"], request_id
    table, hit_seqs = service.table("t"), {live[k]["seq"] for k in hits(live)}
    stored = [e for e in restored.events_after("t", 0) if e.seq >= min(hit_seqs)]
    table.recall(stored)  # as an export reads the log: the same walk
    assert all(resistance(table.view_event(e, gm=False)) == {} for e in stored
               if e.seq in hit_seqs)  # fmt: skip


class CountingStore(MemoryStore):
    """A store that counts the reads of the log it is asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    def events_after(self, *args: Any) -> Any:
        self.reads += 1
        return super().events_after(*args)

    def changes_after(self, *args: Any) -> Any:  # what state at a seq reads (hostile28)
        self.reads += 1
        return super().changes_after(*args)


def test_a_resume_whose_client_left_before_its_turn_is_not_read():
    """Red-team (4 December): resumes dropped as soon as they were sent were each read
    from the log for nobody, and every table's joins waited behind them. A resume's
    read is needed only while its member is there: the server's reader threads skip
    one whose member left (:func:`rollbridge.server.app._run_if_wanted`), counted here
    without a clock."""
    from rollbridge.server.app import _run_if_wanted

    store = CountingStore()
    service = sr2_table(store)
    protocol = TableProtocol.open(LoadTable(table_id="t").run(store), HOST.rulesets,
                                  dice=lambda: SeededDice("r:hit"))  # fmt: skip
    carry(store, protocol.receive({**ATTACK, "id": "a"}, ALICE, "en"))
    assert service is not None and store.reads == 0
    stayed = Member(Principal("player", "bob", "tok-bob"), kind="json", locale="en", origin="b")
    left = Member(Principal("player", "eve", "tok-eve"), kind="json", locale="en", origin="e")
    reads = {}
    for member in (stayed, left):
        (reads[member],) = [e for e in protocol.join(member, {"epoch": 1, "seq": 1})
                            if isinstance(e, ReadEvents)]  # fmt: skip
    protocol.leave(left)  # its connection closed before its read's turn came
    assert _run_if_wanted(reads[left], store) is None and store.reads == 0
    assert _run_if_wanted(reads[stayed], store) and store.reads == 1


def test_reads_of_the_log_whose_askers_left_before_their_turn_are_not_read():
    """A table's reads of its log go out one at a time (the rest wait their turn):
    a ``state`` at an earlier seq, a ``stats`` and a repeated attack whose event must
    be read back, each asked by a member that left while its read waited, have
    nothing read for them, and no reply, as a resume's (above); the read of an asker
    that stayed is read and answered. Counted without a clock."""
    from rollbridge.server.app import _run_if_wanted

    store = CountingStore()
    sr2_table(store)
    protocol = TableProtocol.open(LoadTable(table_id="t").run(store), HOST.rulesets,
                                  dice=lambda: SeededDice("r:hit"))  # fmt: skip
    for n in range(3):
        carry(store, protocol.receive({**ATTACK, "id": f"a{n}"}, ALICE, "en"))
    carry(store, protocol.receive({**REVEAL, "id": "s"}, GM, "gm"))  # a0 read back to it
    members = {
        name: Member(
            Principal("player", name, f"tok-{name}"), kind="json", locale="en", origin=name
        )
        for name in ("first", "left-state", "left-stats", "left-repeat", "stayed")
    }
    for member in members.values():
        protocol.join(member, None)
    asks = {
        "first": {"type": "state", "at": 1, "id": "first"},
        "left-state": {"type": "state", "at": 2, "id": "left-state"},
        "left-stats": {"type": "stats", "id": "left-stats"},
        "left-repeat": {**ATTACK, "id": "a0"},  # answered with its event, read back
        "stayed": {"type": "state", "at": 1, "id": "stayed"},
    }
    out = {name: protocol.receive(ask, ALICE, name, member=members[name])
           for name, ask in asks.items()}  # fmt: skip
    (first,) = [e for e in out["first"] if isinstance(e, Read)]
    left = ("left-state", "left-stats", "left-repeat")
    assert all(not out[name] for name in (*left, "stayed")), out
    for name in left:
        protocol.leave(members[name])

    def turn(read: Read) -> tuple[list[Read], list[Effect]]:
        follow = read.resume(_run_if_wanted(read, store))
        return [e for e in follow if isinstance(e, Read)], [
            e for e in follow if isinstance(e, Reply)
        ]

    store.reads = 0
    (nxt,), replies = turn(first)
    assert [r.origin for r in replies] == ["first"] and store.reads == 1
    for _ in left:
        (nxt,), replies = turn(nxt)
        assert replies == [] and store.reads == 1, "read for an asker who left"
    reads, replies = turn(nxt)
    assert reads == [] and [r.origin for r in replies] == ["stayed"] and store.reads == 2
