// The form of a rejection with a reason (docs/foundry.md, "Approve / reject (GM)"):
// the one labelled field the GM writes the reason in, as the approval card's
// *Reject with a reason…* opens it, and what is read back from it.
// Foundry-independent (tests/foundry/js/rejection.test.mjs); the dialog itself is
// scripts/foundry/rejection.mjs.

import { escapeHtml } from "./card.mjs";

/** The longest reason the protocol takes (docs/protocol.md, `reject`: `reason`, at
 * most 500 characters; core/engine/requests.py). */
export const REASON_MAX = 500;

/** The bidirectional controls, which the server refuses in a reason. */
const BIDI = /[\u202a-\u202e\u2066-\u2069]/u;

/**
 * A reason as the server sends one (a string of at most REASON_MAX characters, not
 * blank, without a bidirectional control), else null.
 * @param {unknown} reason
 * @returns {string | null}
 */
export function validReason(reason) {
  if (typeof reason !== "string" || !reason.trim() || [...reason].length > REASON_MAX || BIDI.test(reason)) return null;
  return reason;
}

/**
 * The dialog's content: one text field named `reason`, labelled, at most REASON_MAX
 * characters long (the browser stops the typing there).
 * @param {{localize: (key: string) => string}} i18n
 * @returns {string}
 */
export function reasonFormHtml(i18n) {
  const id = "rollbridge-reject-reason";
  return `<div class="form-group rollbridge-reason">`
    + `<label for="${id}">${escapeHtml(i18n.localize("ROLLBRIDGE.Button.ReasonField"))}</label>`
    + `<input type="text" id="${id}" name="reason" maxlength="${REASON_MAX}" autocomplete="off">`
    + `</div>`;
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
