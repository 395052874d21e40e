// What the GM's *Undo* and *Redo* say (core/server/webui/controls.mjs, historyWords):
// the event's number and its kind in the log's words where the page knows the kind;
// the number alone for an event not seen or of a kind the page has no words for.
import assert from "node:assert/strict";
import { test } from "node:test";

import { historyWords } from "../../../core/server/webui/controls.mjs";

const KEYS = ["ROLLBRIDGE.Web.Button.Undo", "ROLLBRIDGE.Web.Button.UndoSeq", "ROLLBRIDGE.Web.Button.UndoSeqKind"];

test("no event named: the plain word", () => {
  assert.deepEqual(historyWords(KEYS, null, null), { key: KEYS[0] });
});

test("an event of a kind the page knows: its number and kind", () => {
  const { key, data } = historyWords(KEYS, 3, "actor.created");
  assert.equal(key, KEYS[2]);
  assert.equal(data.seq, 3);
  assert.equal(typeof data.kind, "string");
  assert.notEqual(data.kind, "actor.created"); // the log's words, not the code
});

test("an event not seen, or of a kind the page has no words for: its number alone", () => {
  // a newer server's kind said "Undo #3 (table.noted)": a code, no word of the GM's
  for (const kind of [null, "table.noted", "constructor", "__proto__", ""]) {
    assert.deepEqual(historyWords(KEYS, 3, kind), { key: KEYS[1], data: { seq: 3 } }, String(kind));
  }
});
