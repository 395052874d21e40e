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
