"""A model-based test of a whole table: random interleavings of the GM's and a
player's requests, for every built-in ruleset, on a real SQLite file, with the
table's promises checked after every step:

* a table loaded again from the file is the live table (the GM's and the players'
  view of it);
* ``state`` with ``at`` shows the table as it stood after that seq (the view taken
  then), for every seq the store still retains;
* a refused request changes nothing;
* a request sent again under its id is answered as the first time and applied once;
* ``undo`` puts back the actors, encounter and settings as they were before the
  event it undoes; ``redo`` as they were after it.

Bounded (20 examples of 30 steps per ruleset, derandomised, a small retained log so
that snapshots and pruning are walked through); the dice are seeded per request. For
a deeper run: ``ROLLBRIDGE_MODEL_EXAMPLES=500 pytest tests/engine/test_table_model.py``.
"""

from __future__ import annotations

import copy
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from rollbridge.dice.sources import SeededDice
from rollbridge.engine.model import Principal
from rollbridge.exceptions import RollbridgeError
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.plain import JSON
from rollbridge.stores.base import Store
from rollbridge.stores.sqlite import SQLiteStore
from tests.conftest import ALICE, GM

HOST = PluginHost()
TABLE = "model"
#: Events the store keeps beyond its snapshot: small, so that steps cross snapshots.
RETAIN = 6
#: What a view of an earlier seq leaves out (the log cannot tell it).
PRESENT_ONLY = ("pending", "can_undo", "can_redo", "undo_redo")
#: What undo and redo restore.
RESTORED = ("actors", "encounter", "settings")


def _past(view: JSON) -> JSON:
    return {k: v for k, v in view.items() if k not in PRESENT_ONLY}


def _setting_choices(ruleset_id: str) -> list[tuple[str, Any]]:
    """Each of the ruleset's settings with each value it may take (booleans, enums)."""
    schema = HOST.rulesets[ruleset_id].settings_schema.get("properties", {})
    choices: list[tuple[str, Any]] = []
    for name, spec in sorted(schema.items()):
        if spec.get("type") == "boolean":
            choices += [(name, True), (name, False)]
        for value in spec.get("enum", ()):
            choices.append((name, value))
    return choices


class TableModel(RuleBasedStateMachine):
    """One table of :attr:`ruleset_id`, driven by random requests."""

    ruleset_id = "sr2"

    def __init__(self) -> None:
        super().__init__()
        self.dir = Path(tempfile.mkdtemp(prefix="rollbridge-model-"))
        self.path = self.dir / "table.db"
        self.store = self.open_store()
        self.rolls = 0
        self.service = self._service(self.store)
        self.ruleset = HOST.rulesets[self.ruleset_id]
        self.service.create_table("model", self.ruleset_id, table_id=TABLE)
        self.ids = 0
        self.sheets = list(self.ruleset.example_sheets.items())
        #: The GM's and the players' view after each seq (``state`` with ``at``).
        self.seen: dict[int, tuple[JSON, JSON]] = {}
        #: Requests applied: (message, who, reply), to be sent again.
        self.applied: list[tuple[JSON, Principal, JSON]] = []
        #: The restored parts of the view before and after each undoable event.
        self.around: dict[int, tuple[JSON, JSON]] = {}
        #: The latest undo: its seq and the seq it undid.
        self.undone: tuple[int, int] | None = None
        self._note_seq()

    def teardown(self) -> None:
        self.store.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    # helpers

    def open_store(self) -> Store:
        """The table's store, opened (again: as after a restart) on what it keeps:
        here the SQLite file (tests/stores/test_table_model_redis.py: a Redis)."""
        return SQLiteStore(self.path, retain=RETAIN)

    def _service(self, store: Store) -> TableService:
        def dice() -> SeededDice:
            self.rolls += 1
            return SeededDice(f"model:{self.rolls}")

        return TableService(store, HOST, dice=dice, clock=None)

    def _views(self, service: TableService | None = None) -> tuple[JSON, JSON]:
        table = (service or self.service).table(TABLE)
        return table.view(gm=True), table.view(gm=False)

    def _note_seq(self) -> None:
        gm, players = self._views()
        self.seen[gm["seq"]] = (copy.deepcopy(gm), copy.deepcopy(players))

    def _restored(self) -> JSON:
        gm = self.service.table(TABLE).view(gm=True)
        return copy.deepcopy({k: gm[k] for k in RESTORED})

    def _send(self, message: JSON, who: Principal = GM) -> JSON | None:
        """Send a request; the reply, or None when refused (then nothing changed)."""
        self.ids += 1
        message = {**message, "id": f"m{self.ids}"}
        before = self._views()
        restored = self._restored()
        try:
            reply = self.service.handle(TABLE, copy.deepcopy(message), who)
        except RollbridgeError as exc:
            assert exc.code, exc
            assert self._views() == before, f"refused {message} ({exc.code}) changed the table"
            return None
        self.applied.append((message, who, copy.deepcopy(reply)))
        seq = self.service.table(TABLE).info.seq
        if seq != before[0]["seq"]:
            self._note_seq()
            event = reply.get("event") or {}
            if message["type"] not in ("undo", "redo") and event.get("seq") == seq:
                self.around[seq] = (restored, self._restored())
        return reply

    def _actor_ids(self) -> list[str]:
        return [a["id"] for a in self.service.table(TABLE).view(gm=True)["actors"]]

    # set-up

    @initialize()
    def make_actors(self) -> None:
        for index, (name, sheet) in enumerate(self.sheets):
            actor: JSON = {"name": name, "sheet": sheet}
            if index == 0:
                actor["controllers"] = [ALICE.name]
            assert self._send({"type": "actor.create", "actor": actor}) is not None

    # rules

    @rule(action=st.data(), secret=st.booleans())
    def resolve(self, action: st.DataObject, secret: bool) -> None:
        self._resolve(action, secret, GM)

    @rule(action=st.data(), secret=st.booleans())
    def resolve_as_player(self, action: st.DataObject, secret: bool) -> None:
        self._resolve(action, secret, ALICE)

    def _resolve(self, action: st.DataObject, secret: bool, who: Principal) -> None:
        ids = self._actor_ids()
        name = action.draw(st.sampled_from(sorted(self.ruleset.actions)))
        spec = self.ruleset.actions[name]
        message: JSON = {"type": "resolve", "action": name, "params": spec.example_in("en") or {}}
        own = [a for a in ids if self.service.table(TABLE).actors[a].controllers]
        if spec.actor != "none" and ids:
            mine = who is ALICE and own and action.draw(st.booleans())
            message["actor"] = action.draw(st.sampled_from(own if mine else ids))
        wanted = spec.min_targets or (1 if (spec.max_targets or 0) >= 1 else 0)
        if ids and wanted and not spec.every_actor:
            message["targets"] = action.draw(
                st.lists(st.sampled_from(ids), min_size=wanted, max_size=wanted)
            )
        if secret:
            message["secret"] = True
        self._send(message, who)

    @rule(formula=st.sampled_from(["3d6", "1d20+2", "4d6kh3", "2d6/0", "d%"]))
    def roll(self, formula: str) -> None:
        self._send({"type": "roll", "formula": formula})

    @rule(index=st.integers(0, 8), player=st.booleans())
    def create(self, index: int, player: bool) -> None:
        name, sheet = self.sheets[index % len(self.sheets)]
        actor: JSON = {"name": f"{name} {self.ids}", "sheet": sheet}
        if player:
            actor["controllers"] = [ALICE.name]
        self._send({"type": "actor.create", "actor": actor})

    @rule(pick=st.data(), player=st.booleans())
    def hand_over(self, pick: st.DataObject, player: bool) -> None:
        ids = self._actor_ids()
        if ids:
            actor = pick.draw(st.sampled_from(ids))
            controllers = [ALICE.name] if player else []
            self._send({"type": "actor.update", "actor": actor, "controllers": controllers})

    @rule(pick=st.data())
    def remove(self, pick: st.DataObject) -> None:
        ids = self._actor_ids()
        if ids:
            self._send({"type": "actor.remove", "actor": pick.draw(st.sampled_from(ids))})

    @rule(pick=st.data())
    def change_setting(self, pick: st.DataObject) -> None:
        choices = _setting_choices(self.ruleset_id)
        if choices:
            name, value = pick.draw(st.sampled_from(choices))
            self._send({"type": "settings", "settings": {"ruleset": {name: value}}})

    @rule(name=st.sampled_from(["approval", "verifiable", "player_dice"]), on=st.booleans())
    def change_table_setting(self, name: str, on: bool) -> None:
        self._send({"type": "settings", "settings": {name: on}})

    @rule(pick=st.data(), approve=st.booleans())
    def decide(self, pick: st.DataObject, approve: bool) -> None:
        pending = self.service.table(TABLE).view(gm=True)["pending"]
        if pending:
            request = pick.draw(st.sampled_from(sorted(p["pending"] for p in pending)))
            self._send({"type": "approve" if approve else "reject", "request": request})

    def _named(self, message: JSON, stack: list[int], how: str) -> JSON:
        """``message`` naming the event it means (``seq``), the one the GM's view
        says it takes (``right``), another (``wrong``: refused, nothing changes), or
        none."""
        if how == "right" and stack:
            return {**message, "seq": stack[-1]}
        if how == "wrong":
            return {**message, "seq": (stack[-1] if stack else 0) + 1}
        return message

    @rule(how=st.sampled_from(["none", "right", "wrong"]))
    def undo(self, how: str) -> None:
        table = self.service.table(TABLE).view(gm=True)
        stack = table["undo_redo"]["undo"]
        reply = self._send(self._named({"type": "undo"}, stack, how))
        if reply is None:
            assert how == "wrong" or not table["can_undo"]
            return
        assert how != "wrong", "an undo naming another event than the latest was applied"
        target = reply["event"]["data"]["undoes"]
        assert target == stack[-1], "undo took another event than the GM's view named"
        if target == table["seq"] and target in self.around:  # nothing came between
            assert self._restored() == self.around[target][0], f"undo of {target}"
        self.undone = (reply["event"]["seq"], target)

    @rule(how=st.sampled_from(["none", "right", "wrong"]))
    def redo(self, how: str) -> None:
        table = self.service.table(TABLE).view(gm=True)
        stack = table["undo_redo"]["redo"]
        reply = self._send(self._named({"type": "redo"}, stack, how))
        if reply is None:
            assert how == "wrong" or not table["can_redo"]
            return
        assert how != "wrong", "a redo naming another event than the latest was applied"
        target = reply["event"]["data"]["redoes"]
        assert target == stack[-1], "redo took another event than the GM's view named"
        if self.undone == (table["seq"], target) and target in self.around:
            assert self._restored() == self.around[target][1], f"redo of {target}"

    @rule(pick=st.data())
    def encounter(self, pick: st.DataObject) -> None:
        ids = self._actor_ids()
        step = pick.draw(st.sampled_from(["start", "next", "next", "end"]))
        if step == "start" and ids:
            order = pick.draw(st.permutations(ids))
            self._send({"type": "encounter.start", "order": order})
        elif step != "start":
            self._send({"type": f"encounter.{step}"})

    @rule(
        bad=st.sampled_from(
            [
                {"type": "resolve", "action": "no such action"},
                {"type": "actor.remove", "actor": "nobody"},
                {"type": "roll", "formula": "999999999*999999999*999999999"},
                {"type": "roll", "formula": "3d"},
                {"type": "adjust", "actor": "nobody", "track": "x", "delta": 1},
                {"type": "settings", "settings": {"ruleset": {"no_such_setting": 1}}},
                {"type": "encounter.start", "order": ["nobody"]},
            ]
        )
    )
    def refused(self, bad: JSON) -> None:
        assert self._send(bad) is None, f"{bad} was not refused"

    @precondition(lambda self: bool(self.applied))
    @rule(pick=st.data(), restart=st.booleans())
    def send_again(self, pick: st.DataObject, restart: bool) -> None:
        message, who, reply = pick.draw(st.sampled_from(self.applied))
        if restart:  # the table loaded again from its store, as after a restart
            self.store.close()
            self.store = self.open_store()
            self.service = self._service(self.store)
        before = self._views()
        again = self.service.handle(TABLE, copy.deepcopy(message), who)
        assert self._views() == before, f"{message['id']} sent again changed the table"
        if "event" in reply and "event" in again:  # shown as it was: the same view
            assert again["event"] == reply["event"], f"{message['id']} sent again"

    # invariants

    @invariant()
    def loads_again_as_it_is(self) -> None:
        with_file = self.open_store()
        try:
            assert self._views(self._service(with_file)) == self._views()
        finally:
            with_file.close()

    @invariant()
    def earlier_seqs_read_as_they_were(self) -> None:
        latest = self.service.table(TABLE).info.seq
        for seq in range(max(1, latest - RETAIN + 1), latest):
            if seq not in self.seen:
                continue
            for who, index in ((GM, 0), (ALICE, 1)):
                self.ids += 1
                try:
                    reply = self.service.handle(
                        TABLE, {"type": "state", "id": f"s{self.ids}", "at": seq}, who
                    )
                except RollbridgeError as exc:
                    assert exc.code == "invalid_request", exc  # left the retained log
                    continue
                assert _past(reply["table"]) == _past(self.seen[seq][index]), (
                    f"state at {seq} as {who.role}"
                )


def run_model(machine: type[TableModel]) -> None:
    """Run a table model with this test's settings (``ROLLBRIDGE_MODEL_EXAMPLES``)."""
    machine.TestCase.settings = settings(
        max_examples=int(os.environ.get("ROLLBRIDGE_MODEL_EXAMPLES", "20")),
        stateful_step_count=30,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        derandomize=True,
    )
    machine.TestCase().runTest()


@pytest.mark.parametrize("ruleset_id", sorted(HOST.rulesets))
def test_a_table_keeps_its_promises(ruleset_id: str) -> None:
    run_model(type(f"TableModel_{ruleset_id}", (TableModel,), {"ruleset_id": ruleset_id}))
