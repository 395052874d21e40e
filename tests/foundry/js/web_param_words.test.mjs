// A request waiting for the GM names its parameters in the ruleset's words (the
// welcome's `labels` and `choices`), in the GM's list and the player's own log entry
// (core/server/webui/session.mjs, paramWords): an enum's value that is no string
// (bandits' dual wield: "No choice" is `null`) is looked up as the form looks it up.
import assert from "node:assert/strict";
import { test } from "node:test";

import { Session } from "../../../core/server/webui/session.mjs";

/** bandits' harm as a Czech welcome gives it (its dual wield choices, keyed as the
 * server writes an enum's value: `null`), with a made-up number list beside it. */
const harm = {
  labels: { attacker_dual_wield: "Útočník se dvěma zbraněmi", rounds: "Dávka" },
  choices: {
    attacker_dual_wield: { pierce: "+1 Průraz", armour: "+1 Zbroj", null: "Bez volby" },
    rounds: { 3: "krátká dávka" },
    flag: { true: "ano" },
  },
};

/** The words of a parameter of `spec` as a session whose welcome offers it as the
 * action `harm` says them (Session#paramWords, what the page's lines call). */
const paramWords = (spec, key, value) => Session.prototype.paramWords.call(
  { ruleset: { actions: spec === undefined ? {} : { harm: spec } } }, "harm", key, value);

test("an enum's value is said in the ruleset's words, a null, a number and a boolean too", () => {
  assert.deepEqual(paramWords(harm, "attacker_dual_wield", "pierce"), ["Útočník se dvěma zbraněmi", "+1 Průraz"]);
  // the form said "Bez volby"; the GM's list said "null"
  assert.deepEqual(paramWords(harm, "attacker_dual_wield", null), ["Útočník se dvěma zbraněmi", "Bez volby"]);
  assert.deepEqual(paramWords(harm, "rounds", 3), ["Dávka", "krátká dávka"]);
  assert.deepEqual(paramWords(harm, "flag", true), ["Flag", "ano"]);
});

test("a value without words is said as it is, a key as words; a list or an object is never a choice", () => {
  assert.deepEqual(paramWords(harm, "rounds", 5), ["Dávka", 5]);
  assert.deepEqual(paramWords(harm, "constructor", "toString"), ["Constructor", "toString"]);
  assert.deepEqual(paramWords(harm, "attacker_dual_wield", ["pierce"]), ["Útočník se dvěma zbraněmi", ["pierce"]]);
  assert.deepEqual(paramWords({}, "range", "short"), ["Range", "short"]);
  assert.deepEqual(paramWords(undefined, "range", null), ["Range", null]);
});

test("a parameter without the ruleset's label is its schema's title, else its key in words", () => {
  const spec = { labels: { rounds: "Dávka", blank: " " },
    params: { properties: { aim: { title: "Aim bonus" }, blank: { title: "Blank" } } } };
  assert.deepEqual(paramWords(spec, "rounds", 1), ["Dávka", 1]);
  assert.deepEqual(paramWords(spec, "aim", 1), ["Aim bonus", 1]);
  assert.deepEqual(paramWords(spec, "blank", 1), ["Blank", 1]); // a label that shows nothing is none
  for (const [key, words] of [["combat_pool", "Combat pool"], ["targetNumber", "Target number"], ["max_TN", "Max TN"],
    ["HTMLParser", "HTML parser"], ["skill2", "Skill 2"], ["dice-pool", "Dice pool"], ["ёлка_пух", "Ёлка пух"]]) {
    assert.deepEqual(paramWords({}, key, 1), [words, 1], key);
  }
});
