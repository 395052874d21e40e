// Foundry glue: Dice So Nice for a whispered card (a GM, blind or self roll's),
// on each client that reads it, the way Dice So Nice itself treats a public card.
//
// For a message with `rolls`, Dice So Nice's createChatMessage hook animates
// them on every client whose user may see them (Dice3D#renderRolls: one
// showForRoll per roll with `synchronize` false, the message's id and
// speaker), and its render hook hides the message (`dsn-hide`) until the dice
// have landed: nobody reads the total before the dice show it. A whispered
// card carries no `rolls` (foundry/chat.mjs), so Dice So Nice leaves it alone,
// and dice it sends over its own socket to other clients are tied to no
// message there. So this module does the same for a whispered card, with Dice
// So Nice's public API: on each client whose user reads the card
// (core/rollmode.mjs whisperedDice), its createChatMessage hook shows the
// card's Roll JSON (flags.rollbridge.rolls) with showForRoll(roll, author,
// false, null, false, message.id, speaker), one roll after the other, and the
// render hooks hide the message (ROLLING_CLASS, lang-independent CSS) until
// the last one resolved. Each reader's own Dice So Nice settings apply on its
// own screen (hide NPC rolls, only my dice, hide 3D dice on secret rolls, show
// chat messages at once: then showForRoll resolves at once and so does the
// card); while its tab is hidden Dice So Nice parks the animation and the card
// waits with it, as a public card does. The posting client's event queue never
// waits for it (a hook, not awaited).

import { whisperedDice } from "../core/rollmode.mjs";
import { rootOf } from "./buttons.mjs";

/** The class that hides a whispered card's message while its dice roll (styles/rollbridge.css). */
export const ROLLING_CLASS = "rb-dice-rolling";

// message id → the rendered elements hidden while its dice roll
const rolling = new Map();

function hide(element, hidden) {
  if (!element?.classList) return;
  element.classList.add(ROLLING_CLASS);
  hidden.add(element);
}

/** The message's elements already rendered (the chat log, a pop-out), when there is a DOM. */
function renderedElements(id) {
  const doc = globalThis.document;
  if (!doc?.querySelectorAll || !globalThis.CSS?.escape) return [];
  return [...doc.querySelectorAll(`.message[data-message-id="${globalThis.CSS.escape(String(id))}"]`)];
}

/**
 * The createChatMessage hook: animate a whispered card's dice on this client
 * when its user reads the card, the message hidden until they land. Returns a
 * promise that resolves once the message shows again, or null when this client
 * animates nothing.
 */
export function animateWhisperedDice(message) {
  const dice3d = game.dice3d;
  const plan = typeof dice3d?.showForRoll === "function" ? whisperedDice(message) : null;
  if (!plan || rolling.has(message.id)) return null;
  const hidden = new Set();
  rolling.set(message.id, hidden);
  for (const element of renderedElements(message.id)) hide(element, hidden);
  const user = game.users.get(plan.user) ?? game.user;
  const speaker = message.speaker ?? null;
  const show = async () => {
    for (const json of plan.rolls) {
      const roll = Roll.fromData(JSON.parse(JSON.stringify(json)));
      await dice3d.showForRoll(roll, user, false, null, false, message.id, speaker);
    }
  };
  return show()
    .catch((error) => console.warn(`rollbridge | Dice So Nice: ${error?.message ?? error}`))
    .finally(() => {
      rolling.delete(message.id);
      for (const element of hidden) element.classList.remove(ROLLING_CLASS);
    });
}

/** The render hooks: a message whose dice still roll on this client is hidden
 * (each rendering of it: the chat log, a pop-out, a notification). Returns
 * whether it hid it. */
export function hideWhileRolling(message, html) {
  const hidden = rolling.get(message?.id);
  const root = hidden ? rootOf(html) : null;
  if (!root?.classList) return false;
  hide(root, hidden);
  return true;
}
