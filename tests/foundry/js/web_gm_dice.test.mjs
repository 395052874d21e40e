// The GM's own dice as written in a request's *With my dice…* field
// (core/server/webui/controls.mjs, diceOf): whole numbers from 1 up, split by commas
// or spaces, sent in order as `approve`'s `dice`; anything else is no dice (the page
// says so beside the field and sends nothing).
import assert from "node:assert/strict";
import { test } from "node:test";

import { diceOf, readDice } from "../../../core/server/webui/controls.mjs";

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

test("what is no dice is named: nothing, the first word that is no die, too many", () => {
  const key = (name) => `ROLLBRIDGE.Web.Field.${name}`;
  assert.deepEqual(readDice(" , "), { problem: { key: key("NotDice") } });
  for (const [text, word] of [["6, neun, x", "neun"], ["6 0", "0"], ["-2", "-2"], ["2.5", "2.5"], ["\u0663", "\u0663"],
    ["\uff16", "\uff16"], ["1234567890", "1234567890"], [`6 ${"9".repeat(40)}`, `${"9".repeat(20)}…`]]) {
    assert.deepEqual(readDice(text), { problem: { key: key("NotADie"), data: { word } } }, text);
  }
  assert.deepEqual(readDice(Array(1_001).fill("6").join(",")), { problem: { key: key("TooManyDice"), data: { max: 1_000 } } });
  assert.deepEqual(readDice("6, 2 5"), { dice: [6, 2, 5] });
});
