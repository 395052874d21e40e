// Foundry glue: the `rollbridge` dice fulfillment method (core/fulfillment.mjs)
// in CONFIG.Dice.fulfillment, the world setting that makes it Foundry's default
// method, and the card's mark of a roll that took Foundry's own dice.
//
// Foundry picks a die's method as `diceConfiguration[denomination] ||
// CONFIG.Dice.fulfillment.defaultMethod` (DiceTerm#invokeFulfillmentHandler):
// the setting sets defaultMethod, so every die size a user left at "default"
// in Dice Configuration — every roll, a system sheet's too — draws from the
// server; a size the user set to another method (manual, a physical-dice
// module) keeps it. Any user may also pick "rollbridge" per die size there.

import { DRAW_TIMEOUT_MS, hasLocalDice, METHOD_ID, ServerDice } from "../core/fulfillment.mjs";
import { normalMode, SECRET_MODES } from "../core/rollmode.mjs";
import { errorMessage, errorText, noticeText } from "../core/protocol.mjs";
import { MODULE_ID } from "../core/state.mjs";

let previousDefault = null;

/** The method, registered once at init; `client` is the module's FoundryClient. */
export function registerFulfillment(client, { timeoutMs = DRAW_TIMEOUT_MS } = {}) {
  const dice = new ServerDice({
    draw: (message) => client.draw(message),
    forget: (id) => client.forget(id),
    context: (roll) => rollContext(client, roll),
    notice: (error) => {
      // the user reads the reason's words alone; the console keeps its code too
      console.warn(`rollbridge | the server's dice are out of reach (${errorText(error, game.i18n)}); Foundry's own dice instead`);
      const reason = noticeText(errorMessage(error, game.i18n));
      ui.notifications?.warn?.(`rollbridge: ${game.i18n.format("ROLLBRIDGE.Fulfillment.Unreachable", { reason })}`);
    },
    timeoutMs,
  });
  const fulfillment = CONFIG.Dice?.fulfillment;
  if (!fulfillment?.methods) {
    console.warn("rollbridge | this Foundry has no CONFIG.Dice.fulfillment (v12+): no server dice for its rolls");
    return dice;
  }
  fulfillment.methods[METHOD_ID] = /** @type {any} */ ({
    label: "ROLLBRIDGE.Fulfillment.Method",
    icon: '<i class="fa-solid fa-server"></i>',
    interactive: false,
    handler: dice.handler,
  });
  return dice;
}

/** The world setting's effect: rollbridge is Foundry's default method, or what was before. */
export function applyServerDice(on) {
  const fulfillment = CONFIG.Dice?.fulfillment;
  if (!fulfillment?.methods?.[METHOD_ID]) return;
  if (on && fulfillment.defaultMethod !== METHOD_ID) {
    previousDefault = fulfillment.defaultMethod ?? "";
    fulfillment.defaultMethod = METHOD_ID;
  } else if (!on && fulfillment.defaultMethod === METHOD_ID) {
    fulfillment.defaultMethod = previousDefault ?? "";
    previousDefault = null;
  }
}

/**
 * What a draw says of its roll: the speaker's rollbridge actor (the selected
 * token's or the user's character, when it is on the table) and whether the
 * roll mode is secret — the roll's own (a system puts it in its options),
 * else the user's current one, which ChatMessage#applyRollMode will apply.
 */
export function rollContext(client, roll) {
  let actor = null;
  try {
    actor = client.actorFor({ speaker: ChatMessage.getSpeaker() });
  } catch (error) {
    console.debug(`rollbridge | no speaker's actor for a draw: ${error?.message ?? error}`);
  }
  const mode = normalMode(roll?.options?.rollMode ?? game.settings.get("core", "rollMode"));
  return { actor, secret: SECRET_MODES.includes(mode) };
}

/** The card of a message whose rolls took Foundry's own dice says so (both render hooks). */
export function markLocalDice(message, root) {
  if (!root || !hasLocalDice(message?.rolls)) return;
  if (root.querySelector?.(".rollbridge-local-dice")) return;
  const note = document.createElement("div");
  note.className = "rollbridge-local-dice";
  note.dataset.rollbridge = "local-dice";
  note.textContent = game.i18n.localize("ROLLBRIDGE.Fulfillment.LocalDice");
  (root.querySelector(".message-content") ?? root).append(note);
}

/** The flag the message keeps of it (set before it is created: preCreateChatMessage). */
export function flagLocalDice(message) {
  if (!hasLocalDice(message?.rolls)) return;
  message.updateSource?.({ [`flags.${MODULE_ID}.localDice`]: true });
}
