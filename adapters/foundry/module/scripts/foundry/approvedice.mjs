// Foundry glue: the dialog of the approval card's *Approve with my dice…*
// (docs/foundry.md, "Approve / reject (GM)"): a dialog of one field (fielddialog.mjs,
// Foundry's own DialogV2, v12 and v13) holding core/approvedice.mjs's field. Its
// *Approve* (the default button, so Enter in the field presses it) resolves to the
// die results written, or to null when they are not whole numbers (the GM is told;
// nothing is sent); Cancel, Escape and the close button to null, which sends nothing.

import { diceFormHtml, diceOf, DICE_FIELD } from "../core/approvedice.mjs";
import { askField } from "./fielddialog.mjs";

/**
 * Ask the GM for their own die results: the results written, or null when the GM
 * cancels or dismisses the dialog, or writes what are not die results (then told).
 * @returns {Promise<number[] | null>}
 */
export async function askDice() {
  const answer = await askField({
    title: game.i18n.localize("ROLLBRIDGE.Button.DiceTitle"),
    content: diceFormHtml(game.i18n),
    field: DICE_FIELD,
    action: "approve",
    label: game.i18n.localize("ROLLBRIDGE.Button.DiceSend"),
    icon: "fa-solid fa-dice",
    read: diceOf,
  });
  if (!answer) return null;
  if (answer.value === null) ui.notifications.warn(`rollbridge: ${game.i18n.localize("ROLLBRIDGE.Button.DiceInvalid")}`);
  return answer.value;
}
