"""Supplied actor states are validated and completed (issue 16, item 2).

``actor.create`` and ``actor.update`` with a ``state`` go through the ruleset's
``validate_state``: an ill-typed or out-of-range field is refused as
``invalid_state`` naming it, before the table changes; a partial state is the fresh
state with the given fields over it.
"""

from __future__ import annotations

import copy

import pytest

from rollbridge.engine import Principal
from rollbridge.exceptions import InvalidRequest, InvalidState
from rollbridge.offline import TableService
from rollbridge.plugins.bandits import BanditsRuleset
from rollbridge.plugins.sr2.ruleset import SR2Ruleset
from rollbridge.plugins.techlevel import TechLevel
from rollbridge.plugins.wilddie.ruleset import WildDieRuleset
from rollbridge.stores import MemoryStore
from rollbridge.testing import host_with

GM = Principal("gm", "gm", "tok-gm")
RULESETS = {
    "sr2": SR2Ruleset(),
    "wilddie": WildDieRuleset(),
    "techlevel": TechLevel(),
    "bandits": BanditsRuleset(),
}
TUKAN = {"body": 5, "combat_pool": 6, "armor": {"ballistic": 3, "impact": 1}}
BELT = {"name": "Belt shield", "kind": "shield", "boxes": 5, "tl": 4}
VEST = {"name": "Vest", "kind": "armour", "boxes": 10, "tl": 3}


@pytest.fixture
def service() -> TableService:
    """A service with a table of each built-in ruleset, ``t-<ruleset id>``."""
    svc = TableService(MemoryStore(), host_with(*RULESETS.values()))
    for ruleset_id in RULESETS:
        svc.create_table(ruleset_id, ruleset_id, table_id=f"t-{ruleset_id}")
    return svc


class Requests:
    """Requests on one table of the service, with fresh request ids."""

    def __init__(self, service: TableService, ruleset_id: str) -> None:
        self.service, self.table_id, self.count = service, f"t-{ruleset_id}", 0

    def send(self, message: dict) -> dict:
        self.count += 1
        return self.service.handle(self.table_id, {"id": f"q{self.count}", **message}, GM)

    def create(self, name: str, sheet: dict, state: dict | None = None) -> dict:
        actor: dict = {"name": name, "sheet": sheet}
        if state is not None:
            actor["state"] = state
        return self.send({"type": "actor.create", "actor": actor})

    def update(self, actor_id: str, **fields) -> dict:
        return self.send({"type": "actor.update", "actor": actor_id, **fields})

    @property
    def table(self):
        return self.service.table(self.table_id)

    def snapshot(self) -> tuple:
        table = self.table
        return copy.deepcopy(
            (table.info.seq, {a: r.to_dict() for a, r in table.actors.items()}, table.undo_stack)
        )


def refused(requests: Requests, call) -> InvalidState:
    """Run ``call`` expecting ``invalid_state``; the table must not change."""
    before = requests.snapshot()
    with pytest.raises(InvalidState) as info:
        call()
    assert requests.snapshot() == before
    assert info.value.code == "invalid_state" and isinstance(info.value, InvalidRequest)
    assert info.value.text is not None  # a Text, read in each client's language
    return info.value


@pytest.mark.parametrize(
    ("ruleset_id", "sheet", "state", "field"),
    [
        # the cases: a TypeError inside the ruleset used to be `internal`
        ("sr2", TUKAN, {"physical": "x"}, "state.physical"),
        ("sr2", TUKAN, {"stun": 5.5}, "state.stun"),
        ("sr2", TUKAN, {"stun": "x"}, "state.stun"),
        # SR-11: a monitor has 10 boxes; overflow past Body + 1 means nothing (SR-13)
        ("sr2", TUKAN, {"stun": 11}, "state.stun"),
        ("sr2", TUKAN, {"overflow": 7}, "state.overflow"),
        # SR-14: the pool holds at most the sheet's Combat Pool
        ("sr2", TUKAN, {"pool": 7}, "state.pool"),
        ("sr2", TUKAN, {"hits": 1}, "state.hits"),
        ("bandits", {}, {"slots": "x"}, "state.slots"),
        ("bandits", {}, {"slots": {"heavily": 1}}, "state.slots.heavily"),
        # BD-9: an extra has no status slots; the state's kind is the sheet's
        ("bandits", {"kind": "extra"}, {"slots": {}}, "state.slots"),
        ("bandits", {}, {"kind": "extra"}, "state.kind"),
        ("bandits", {}, {"dual_wield": "both"}, "state.dual_wield"),
        ("techlevel", {"body_tl": 2}, {"ksk": "x"}, "state.ksk"),
        # TL-2 / TL-8: 10 KSK and 10 GSK boxes
        ("techlevel", {"body_tl": 2}, {"gsk": 11}, "state.gsk"),
        # TL-2: a shield is worn on the shield layer, not the armour layer
        ("techlevel", {"body_tl": 2}, {"armour": BELT}, "state.armour.kind"),
        # TL-11: an armour has 10 or 20 boxes
        ("techlevel", {"body_tl": 2}, {"armour": {**VEST, "boxes": 15}}, "state.armour.boxes"),
        ("wilddie", {}, {"wounds": "x"}, "state.wounds"),
        # WD-8: a PC's track holds 3 wounds, an NPC's 1
        ("wilddie", {}, {"wounds": 4}, "state.wounds"),
        ("wilddie", {"kind": "npc"}, {"wounds": 2}, "state.wounds"),
        ("wilddie", {}, {"chips": -1}, "state.chips"),
        ("wilddie", {}, {"rolls": [{"id": "r1"}]}, "state.rolls[0].kind"),
    ],
)
def test_a_bad_state_is_refused_naming_the_field(service, ruleset_id, sheet, state, field):
    requests = Requests(service, ruleset_id)
    sheet = _sheet(ruleset_id, sheet)
    error = refused(requests, lambda: requests.create("Hurt", sheet, state))
    # a ruleset's refusal, marked so by the table (docs/protocol.md, "Error codes")
    assert error.details == {"field": field, "origin": "ruleset"}
    assert field in error.message
    requests.create("Hurt", sheet)  # the same sheet without the state is fine
    error = refused(requests, lambda: requests.update("hurt", state=state))
    assert error.details == {"field": field, "origin": "ruleset"}


def _sheet(ruleset_id: str, sheet: dict) -> dict:
    if ruleset_id == "wilddie":
        return {**next(iter(RULESETS["wilddie"].example_sheets.values())), **sheet}
    return sheet


@pytest.mark.parametrize("ruleset_id", sorted(RULESETS))
def test_a_partial_state_is_the_fresh_state_with_the_given_fields(service, ruleset_id):
    requests = Requests(service, ruleset_id)
    ruleset = RULESETS[ruleset_id]
    for name, sheet in ruleset.example_sheets.items():
        actor_id = requests.create(name, sheet, {})["actor"]
        record = requests.table.actors[actor_id]
        assert record.state == ruleset.initial_state(record.sheet)


def test_wilddie_completes_a_partial_state(service):
    """The docs: missing fields take fresh values (a KeyError before); WD-8 wounds."""
    requests = Requests(service, "wilddie")
    sheet = next(iter(RULESETS["wilddie"].example_sheets.values()))
    actor_id = requests.create("Hurt", sheet, {"wounds": 2})["actor"]
    state = requests.table.actors[actor_id].state
    assert state == {**RULESETS["wilddie"].initial_state(sheet), "wounds": 2}
    reply = requests.send(
        {"type": "adjust", "actor": actor_id, "track": "wounds", "delta": 1}
    )  # WD-8: the third wound
    assert reply["seq"] == requests.table.info.seq
    assert requests.table.actors[actor_id].state["wounds"] == 3


def test_sr2_partial_state_keeps_the_pool_of_the_sheet(service):
    requests = Requests(service, "sr2")
    actor_id = requests.create("Tukan", TUKAN, {"stun": 3})["actor"]
    assert requests.table.actors[actor_id].state == {
        "stun": 3,
        "physical": 0,
        "overflow": 0,
        "pool": 6,  # SR-14: a fresh Combat Pool
        "stabilised": False,
    }


def test_techlevel_keeps_the_armour_worn_in_the_sheet(service):
    """TL-2: the sheet's worn items start on their layers; a starting state that leaves
    them out keeps them (they were dropped before), ``null`` takes one off."""
    requests = Requests(service, "techlevel")
    sheet = {"body_tl": 2, "worn": [VEST, BELT]}
    actor_id = requests.create("Ana", sheet, {"ksk": {"lethal": 3}})["actor"]
    state = requests.table.actors[actor_id].state
    assert state["ksk"] == {"lethal": 3, "shock": 0}
    assert state["armour"]["name"] == "Vest" and state["shield"]["name"] == "Belt shield"
    requests.update(actor_id, state={"shield": None})
    state = requests.table.actors[actor_id].state
    assert state["shield"] is None and state["armour"]["name"] == "Vest"
    assert state["ksk"] == {"lethal": 0, "shock": 0}  # a new state: the rest is fresh


def test_bandits_dying_follows_slot_four(service):
    """BD-8: ``dying`` is slot 4 marked and not dead, unless the state says otherwise."""
    requests = Requests(service, "bandits")
    actor_id = requests.create("Ash", {}, {"slots": {"dying": True}})["actor"]
    state = requests.table.actors[actor_id].state
    assert state["slots"] == {"lightly": False, "seriously": False, "heavily": False, "dying": True}
    assert state["dying"] is True


def test_update_checks_the_state_against_the_new_sheet(service):
    """Sheet and state changed together: the state fits the new sheet (SR-11 overflow up
    to the new Body + 1) or is refused, and nothing changes."""
    requests = Requests(service, "sr2")
    actor_id = requests.create("Tukan", TUKAN)["actor"]
    requests.update(actor_id, sheet={**TUKAN, "body": 8}, state={"overflow": 9})
    assert requests.table.actors[actor_id].state["overflow"] == 9
    error = refused(requests, lambda: requests.update(actor_id, sheet=TUKAN, state={"overflow": 9}))
    assert error.details == {"field": "state.overflow", "origin": "ruleset"}


def test_a_new_sheet_alone_must_leave_the_current_state_valid(service):
    """A sheet changed without a state: the current state is checked against the new
    sheet (SR-11: overflow up to Body + 1), so a shorter track cannot leave boxes
    crossed past its end; the refusal names the field and nothing changes."""
    requests = Requests(service, "sr2")
    actor_id = requests.create("Tukan", {**TUKAN, "body": 8})["actor"]
    requests.update(actor_id, state={"overflow": 9})
    seq = requests.table.info.seq
    error = refused(requests, lambda: requests.update(actor_id, sheet=TUKAN))
    assert error.details == {"field": "state.overflow", "origin": "ruleset"}
    assert requests.table.info.seq == seq and requests.table.actors[actor_id].sheet["body"] == 8
    requests.update(actor_id, state={"overflow": 0})  # healed first: the sheet now fits
    requests.update(actor_id, sheet=TUKAN)
    assert requests.table.actors[actor_id].sheet["body"] == TUKAN["body"]


def test_a_refused_state_is_not_undoable_and_a_good_one_is(service):
    requests = Requests(service, "sr2")
    actor_id = requests.create("Tukan", TUKAN)["actor"]
    refused(requests, lambda: requests.update(actor_id, state={"stun": "x"}))
    requests.update(actor_id, state={"stun": 4})
    assert requests.table.actors[actor_id].state["stun"] == 4
    requests.send({"type": "undo"})
    assert requests.table.actors[actor_id].state["stun"] == 0
