// Foundry glue: the dialog of the approval card's *Reject with a reason…*
// (docs/foundry.md, "Approve / reject (GM)"), Foundry's own
// foundry.applications.api.DialogV2 (v12 and v13) holding core/rejection.mjs's
// field. Its *Reject* (the default button, so Enter in the field presses it)
// resolves to the reason written; Cancel, Escape and the close button to null,
// which sends nothing (rejectClose false: v12's default would reject instead).

import { enteredValues } from "../core/forms.mjs";
import { reasonFormHtml, reasonOf } from "../core/rejection.mjs";

/**
 * The reason field focused as the dialog opens, so the GM types at once (Foundry
 * gives the default button `autofocus`: unfocused, the GM's typing goes nowhere and
 * Enter rejects without a reason). `dialog` is what DialogV2 hands a render
 * callback: its element on v12, the DialogV2 itself on v13 (as dialog.mjs's).
 */
function focusReason(_event, dialog) {
  const element = dialog?.element ?? dialog;
  element?.querySelector?.('[name="reason"]')?.focus?.();
}

/**
 * Ask the GM for the reason of a rejection: the reason written (trimmed; "" for
 * none), or null when the GM cancels or dismisses the dialog.
 * @returns {Promise<string | null>}
 */
export async function askReason() {
  const result = await foundry.applications.api.DialogV2.wait({
    // v12.331's declarations take wait's `window` whole (a Partial of the configuration)
    window: /** @type {any} */ ({ title: game.i18n.localize("ROLLBRIDGE.Button.ReasonTitle") }),
    content: reasonFormHtml(game.i18n),
    modal: true,
    rejectClose: false,
    render: focusReason,
    buttons: [
      {
        action: "reject", label: game.i18n.localize("ROLLBRIDGE.Button.ReasonSend"), default: true, icon: "fa-solid fa-ban",
        callback: (_event, button) => ({ reason: reasonOf(enteredValues(button.form)) }),
      },
      { action: "cancel", label: game.i18n.localize("ROLLBRIDGE.Dialog.Cancel"), icon: "fa-solid fa-xmark" },
    ],
  });
  // the Reject button's callback value; Cancel's is its action, a dismissal null
  const reason = /** @type {any} */ (result)?.reason;
  return typeof reason === "string" ? reason : null;
}
