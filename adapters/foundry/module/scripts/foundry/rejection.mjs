// Foundry glue: the dialog of the approval card's *Reject with a reason…*
// (docs/foundry.md, "Approve / reject (GM)"): a dialog of one field (fielddialog.mjs,
// Foundry's own DialogV2, v12 and v13) holding core/rejection.mjs's field. Its
// *Reject* (the default button, so Enter in the field presses it) resolves to the
// reason written; Cancel, Escape and the close button to null, which sends nothing.

import { REASON_FIELD, reasonFormHtml, reasonOf } from "../core/rejection.mjs";
import { askField } from "./fielddialog.mjs";

/**
 * Ask the GM for the reason of a rejection: the reason written (trimmed; "" for
 * none), or null when the GM cancels or dismisses the dialog.
 * @returns {Promise<string | null>}
 */
export async function askReason() {
  const answer = await askField({
    title: game.i18n.localize("ROLLBRIDGE.Button.ReasonTitle"),
    content: reasonFormHtml(game.i18n),
    field: REASON_FIELD,
    action: "reject",
    label: game.i18n.localize("ROLLBRIDGE.Button.ReasonSend"),
    icon: "fa-solid fa-ban",
    read: reasonOf,
  });
  return typeof answer?.value === "string" ? answer.value : null;
}
