// The form of an approval with the GM's own dice (docs/foundry.md, "Approve / reject
// (GM)"): the one labelled field the GM writes their die results in, in the order the
// request uses them, as the approval card's *Approve with my dice…* opens it, and the
// results read back from it. The approve request's `dice` (docs/protocol.md), as
// `rollbridge connect`'s `approve PENDING supply=…` sends them: how many an action
// uses and which dice they fit is the ruleset's (explosions, rerolls), which the
// server checks — every result must fit its die and every one must be used.
// Foundry-independent (tests/foundry/js/buttons.test.mjs); the dialog itself is
// scripts/foundry/approvedice.mjs.

import { labelledFieldHtml } from "./field.mjs";

/** The field's id and name. */
export const DICE_FIELD = "dice";

/**
 * The dialog's content: one labelled text field named `dice`.
 * @param {{localize: (key: string) => string}} i18n
 * @returns {string}
 */
export function diceFormHtml(i18n) {
  return labelledFieldHtml({
    kind: "dice", id: "rollbridge-approve-dice", name: DICE_FIELD,
    label: i18n.localize("ROLLBRIDGE.Button.DiceField"), attrs: { inputmode: "numeric" },
  });
}

/** A die result as written: 1 to 9 ASCII digits (a die's faces are far fewer; the
 * server checks each fits its die). */
const DIE = /^[0-9]{1,9}$/u;
/** The most die results one approval sends (the web view's limit too). */
export const MAX_DICE = 1_000;

/**
 * The die results in the form's values (`enteredValues`): whole numbers of 1 or more,
 * at most MAX_DICE of them, separated by spaces or commas ("4 6 2", "4,6,2"), in
 * order; null for anything else (nothing written, a letter, a fraction, 0, another
 * script's digits, a number of more than 9 digits, more than MAX_DICE numbers): the
 * approval is not sent.
 * @param {Record<string, string | boolean> | null | undefined} values
 * @returns {number[] | null}
 */
export function diceOf(values) {
  const words = String(values?.[DICE_FIELD] ?? "").trim().split(/[\s,]+/u).filter(Boolean);
  if (!words.length || words.length > MAX_DICE || !words.every((word) => DIE.test(word))) return null;
  const dice = words.map(Number);
  return dice.every((die) => die >= 1) ? dice : null;
}
