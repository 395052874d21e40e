// The form of a rejection with a reason (docs/foundry.md, "Approve / reject (GM)"):
// the one labelled field the GM writes the reason in, as the approval card's
// *Reject with a reason…* opens it, and what is read back from it.
// Foundry-independent (tests/foundry/js/rejection.test.mjs); the dialog itself is
// scripts/foundry/rejection.mjs.

import { labelledFieldHtml } from "./field.mjs";

/** The longest reason the protocol takes (docs/protocol.md, `reject`: `reason`, at
 * most 500 characters; core/engine/requests.py). */
export const REASON_MAX = 500;

/** The field's name. */
export const REASON_FIELD = "reason";

/** The bidirectional controls, which the server refuses in a reason. */
const BIDI = /[\u202a-\u202e\u2066-\u2069]/u;

/** What is drawn as nothing, as the server reads it (core/names.py `shows_nothing`):
 * a space (as Python's `\s`: U+001C–U+001F and U+0085 too), a default-ignorable code
 * point (zero-width spaces and joiners, variation selectors, the Hangul fillers,
 * tags…), the blank Braille pattern, or a format character other than the prepended
 * concatenation marks (U+0600 and its kin, drawn). The browser's Unicode may know a
 * few format characters the server's does not yet (U+13439–U+1343F in Unicode 15). */
const NOTHING = /^(?:[\s\x1c-\x1f\x85\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\u{1bca0}-\u{1bca3}\u{1d173}-\u{1d17a}\u{e0000}-\u{e0fff}]|(?![\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2\u{110bd}\u{110cd}])\p{Cf})*$/u;

/**
 * Whether a text shows nothing: empty, or each of its characters drawn as nothing
 * (NOTHING). The server gives such a reason as "" (docs/protocol.md, `reject`), but a
 * rejection logged before it did keeps the one it was given, and the server replays it.
 * @param {string} text
 * @returns {boolean}
 */
export function showsNothing(text) {
  return NOTHING.test(text);
}

/**
 * A reason as the server sends one (a string of at most REASON_MAX characters that
 * shows something, without a bidirectional control), else null.
 * @param {unknown} reason
 * @returns {string | null}
 */
export function validReason(reason) {
  if (typeof reason !== "string" || showsNothing(reason) || [...reason].length > REASON_MAX || BIDI.test(reason)) return null;
  return reason;
}

/**
 * The dialog's content: one text field named `reason`, labelled, at most REASON_MAX
 * characters long (the browser stops the typing there).
 * @param {{localize: (key: string) => string}} i18n
 * @returns {string}
 */
export function reasonFormHtml(i18n) {
  return labelledFieldHtml({
    kind: REASON_FIELD, id: "rollbridge-reject-reason", name: REASON_FIELD,
    label: i18n.localize("ROLLBRIDGE.Button.ReasonField"), attrs: { maxlength: REASON_MAX },
  });
}

/**
 * The reason in the form's values (`enteredValues`), trimmed: "" when nothing but
 * spaces was written (the rejection then goes without one, as the web view's).
 * @param {Record<string, string | boolean> | null | undefined} values
 * @returns {string}
 */
export function reasonOf(values) {
  return String(values?.reason ?? "").trim();
}
