// The web table's choices of a parameter from the acting actor's sheet or state
// (`choicesFrom`, docs/plugins.md): read as rollbridge.contract.sheet_choices reads
// them (tests/test_sheet_choices.py), and never from an actor the viewer sees limited
// (an NPC to a player), whatever that view holds. Of a target (`"of": "target"`):
// from the target as the viewer holds it, a limited view too, and only what that
// view holds.
import assert from "node:assert/strict";
import { test } from "node:test";

import { ofTarget, sheetChoices } from "../../../core/server/webui/forms.mjs";

const WEAPON = { type: "string", choicesFrom: { sheet: "weapons", value: "name", only: true } };
const SHEET = {
  weapons: [{ name: "Hackler", code: "7M" }, { name: "Stun baton" }, { code: "9M" }],
  stats: { cool: 2, hard: 1 },
  gear: { a: { label: "Rope" }, b: { label: "Lamp" }, c: { label: 3 } },
  tags: ["quick", "quick", true, null, { x: 1 }, 2.5, "sly"],
};
const tukan = { id: "tukan", sheet: SHEET, state: { carried: [{ name: "Chainmail" }] } };

test("choices come from a list, an object or the state, as the Python helper reads them", () => {
  assert.deepEqual(sheetChoices(WEAPON, tukan), ["Hackler", "Stun baton"]);
  assert.deepEqual(sheetChoices({ choicesFrom: { sheet: "stats" } }, tukan), ["cool", "hard"]);
  assert.deepEqual(sheetChoices({ choicesFrom: { sheet: "gear", value: "label" } }, tukan), ["Rope", "Lamp", 3]);
  assert.deepEqual(sheetChoices({ choicesFrom: { sheet: "tags" } }, tukan), ["quick", 2.5, "sly"]);
  assert.deepEqual(sheetChoices({ choicesFrom: { state: "carried", value: "name" } }, tukan), ["Chainmail"]);
});

test("nothing there, no annotation, no actor or a limited view offer nothing", () => {
  for (const sheet of [null, {}, { weapons: null }, { weapons: "Hackler" }, { weapons: [] }]) {
    assert.deepEqual(sheetChoices(WEAPON, { id: "x", sheet }), []);
  }
  assert.deepEqual(sheetChoices({ type: "string" }, tukan), []);
  assert.deepEqual(sheetChoices(WEAPON, undefined), []);
  // an NPC as a player sees it: even a sheet the table's settings reveal is no choice
  assert.deepEqual(sheetChoices(WEAPON, { id: "npc", sheet: SHEET, limited: true }), []);
});

/** techlevel's hit.section as its welcome describes it. */
const SECTION = {
  type: ["string", "null"], maxLength: 80, default: null,
  choicesFrom: { state: "vehicle.sections", value: "name", only: true, of: "target" },
};

test("a target's choices come from the target as the viewer holds it, a player's limited view too", () => {
  assert.equal(ofTarget(SECTION), true);
  assert.equal(ofTarget(WEAPON), false);
  // the GM holds the raider whole: its vehicle's name and its sections
  const whole = { id: "raider", state: { vehicle: { name: "War rig", sections: [{ name: "cab", boxes: 20 }, { name: "bed" }] } } };
  assert.deepEqual(sheetChoices(SECTION, whole), ["cab", "bed"]);
  // a player holds it limited, as techlevel's player_view shows it: the sections, not the name
  const seen = { id: "raider", limited: true, sheet: null, state: { vehicle: { kind: "vehicle", sections: [{ name: "cab" }, { name: "bed" }] } } };
  assert.deepEqual(sheetChoices(SECTION, seen), ["cab", "bed"]);
  assert.ok(!JSON.stringify(sheetChoices(SECTION, seen)).includes("War rig"));
});

test("a target whose view hides the part offers nothing: nothing is offered beyond what the view holds", () => {
  // a ruleset whose players' view leaves the vehicle out, or the whole state
  for (const state of [null, undefined, {}, { vehicle: null }, { vehicle: { kind: "vehicle" } }]) {
    assert.deepEqual(sheetChoices(SECTION, { id: "npc", limited: true, sheet: null, state }), [], JSON.stringify(state));
  }
  // what the view holds is all: a sheet the view withholds is never read instead
  const fromSheet = { ...SECTION, choicesFrom: { sheet: "vehicles", value: "name", of: "target" } };
  assert.deepEqual(sheetChoices(fromSheet, { id: "npc", limited: true, sheet: null, state: { vehicles: [{ name: "X" }] } }), []);
  assert.deepEqual(sheetChoices(SECTION, undefined), [], "no target chosen");
  // the acting actor's own choices still never come from a limited view
  assert.deepEqual(sheetChoices(WEAPON, { id: "npc", limited: true, sheet: SHEET }), []);
});
