// The web table's log line joins a roll's label, actor and text: a label holding
// right-to-left text (an RLM, Hebrew) is isolated so it cannot reorder the numbers
// beside it ("Dodge" + RLM before "1d100 [62] = 62" read otherwise).
import assert from "node:assert/strict";
import { test } from "node:test";

import { eventSummary, isolated } from "../../../core/server/webui/render.mjs";

test("right-to-left pieces of a joined line are isolated, others left as they are", () => {
  assert.equal(isolated("Dodge"), "Dodge");
  assert.equal(isolated("Pátek, Пятница"), "Pátek, Пятница");
  assert.equal(isolated("Dodge\u200f"), "\u2068Dodge\u200f\u2069");
  assert.equal(isolated("שלום"), "\u2068שלום\u2069");
  const roll = { kind: "roll", data: { label: "Dodge\u200f", actor: "a", text: "1d100 [62] = 62" } };
  assert.equal(eventSummary(roll, () => "Ana"), "\u2068Dodge\u200f\u2069 — Ana — 1d100 [62] = 62");
});

test("a draw's right-to-left label is isolated from the dice drawn", () => {
  // a player's draw (Foundry's dice) labelled in Arabic: without the isolation the
  // numbers after the label took its direction and read in another order
  const drawn = { kind: "dice.drawn", data: { label: "مرحبا", results: [3, 4], faces: 6, number: 2 } };
  assert.equal(eventSummary(drawn, () => ""), "\u2068مرحبا\u2069 [3, 4]");
  const plain = { kind: "dice.drawn", data: { label: "1d20 + 5", results: [14] } };
  assert.equal(eventSummary(plain, () => ""), "1d20 + 5 [14]");
  assert.equal(eventSummary({ kind: "dice.drawn", data: { results: [2] } }, () => ""), " [2]");
});
