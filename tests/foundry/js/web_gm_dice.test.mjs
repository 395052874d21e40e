// The GM's own dice as written in a request's *With my dice…* field
// (core/server/webui/controls.mjs, diceOf): whole numbers from 1 up, split by commas
// or spaces, sent in order as `approve`'s `dice`; anything else is no dice (the page
// says so beside the field and sends nothing).
import assert from "node:assert/strict";
import { test } from "node:test";

import { diceOf } from "../../../core/server/webui/controls.mjs";

test("die results split by commas or spaces are read in order", () => {
  assert.deepEqual(diceOf("9"), [9]);
  assert.deepEqual(diceOf(" 6, 2 5 ;1 "), [6, 2, 5, 1]);
  assert.deepEqual(diceOf("6,,2"), [6, 2]);
});

test("what is not whole numbers from 1 up is no dice", () => {
  for (const text of ["", " , ", "0", "6, -2", "2.5", "neun", "6, x", "1e3", "1234567890", undefined, null]) {
    assert.equal(diceOf(text), null, String(text));
  }
  assert.equal(diceOf(Array(1_001).fill("6").join(",")), null);
  assert.equal(diceOf(Array(1_000).fill("6").join(",")).length, 1_000);
});
