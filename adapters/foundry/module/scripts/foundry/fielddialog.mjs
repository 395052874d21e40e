// Foundry glue: a dialog of one labelled field (the approval card's *Reject with a
// reason…*, foundry/rejection.mjs, and *Approve with my dice…*, foundry/approvedice.mjs),
// Foundry's own foundry.applications.api.DialogV2 (v12 and v13). Its send button (the
// default, so Enter in the field presses it) resolves to what `read` makes of the
// form's values; Cancel, Escape and the close button to null, which sends nothing
// (rejectClose false: v12's default would reject instead).

import { enteredValues } from "../core/forms.mjs";

/**
 * Ask for one field's value: `{value}` (what `read` makes of the entered values), or
 * null when the user cancels or dismisses the dialog. The field named `field` is
 * focused as the dialog opens, so the user types at once (Foundry gives the default
 * button `autofocus`: unfocused, the typing goes nowhere and Enter sends it empty);
 * DialogV2 hands the render callback its element on v12, itself on v13.
 * @template T
 * @param {{title: string, content: string, field: string, action: string, label: string, icon: string, read: (values: any) => T}} spec
 * @returns {Promise<{value: T} | null>}
 */
export async function askField({ title, content, field, action, label, icon, read }) {
  const focus = (_event, dialog) => (dialog?.element ?? dialog)?.querySelector?.(`[name="${field}"]`)?.focus?.();
  const result = await foundry.applications.api.DialogV2.wait({
    // v12.331's declarations take wait's `window` whole (a Partial of the configuration)
    window: /** @type {any} */ ({ title }),
    content,
    modal: true,
    rejectClose: false,
    render: focus,
    buttons: [
      { action, label, default: true, icon, callback: (_event, button) => ({ value: read(enteredValues(button.form)) }) },
      { action: "cancel", label: game.i18n.localize("ROLLBRIDGE.Dialog.Cancel"), icon: "fa-solid fa-xmark" },
    ],
  });
  // the send button's callback value; Cancel's is its action, a dismissal null
  const answer = /** @type {any} */ (result);
  return answer && typeof answer === "object" && "value" in answer ? { value: answer.value } : null;
}
