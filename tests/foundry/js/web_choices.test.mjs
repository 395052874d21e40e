// The web table's choices of a parameter from the acting actor's sheet or state
// (`choicesFrom`, docs/plugins.md): read as rollbridge.contract.sheet_choices reads
// them (tests/test_sheet_choices.py), and never from an actor the viewer sees limited
// (an NPC to a player), whatever that view holds.
import assert from "node:assert/strict";
import { test } from "node:test";

import { sheetChoices } from "../../../core/server/webui/forms.mjs";

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
