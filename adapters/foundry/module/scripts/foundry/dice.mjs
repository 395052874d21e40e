// Foundry glue: Dice So Nice for a whispered card (a GM, blind or self roll's),
// on each client that reads it, the way Dice So Nice itself treats a public card.
//
// For a message with `rolls`, Dice So Nice's createChatMessage hook animates
// them on every client whose user may see them (Dice3D#renderRolls: the dice of
// all the message's rolls in one Roll, thrown at once — its world setting
// enabledSimultaneousRollForMessage, on by default, and rolls without a
// `rollOrder` are one throw either way — with showForRoll(roll, author, false,
// null, false, message.id, speaker)), and its render hook hides the message
// (`dsn-hide`) until the dice have landed: nobody reads the total before the
// dice show it. A whispered card carries no `rolls` (foundry/chat.mjs), so Dice
// So Nice leaves it alone, and dice it sends over its own socket to other
// clients are tied to no message there. So this module does the same for a
// whispered card: on each client whose user reads the card (core/rollmode.mjs
// whisperedDice), its createChatMessage hook throws the dice of the card's Roll
// JSON (flags.rollbridge.rolls) in one showForRoll, and the render hooks hide
// the message (ROLLING_CLASS, lang-independent CSS) meanwhile. Then it reveals
// the card as Dice So Nice's showMessage does: the class goes from every
// rendering (the chat log, a pop-out); v13's hidden copy among the chat
// notifications goes and, with the sidebar collapsed, the message is notified
// again (ui.chat.notify); the log scrolls to the bottom when it was there (or
// the card is this user's); and diceSoNiceRollComplete(message.id) fires.
//
// Dice So Nice's settings apply on each reader's screen: its user setting "Only
// show my dice" and its world setting "hide NPC rolls" (showForRoll resolves
// false at once: the card shows at once), "show chat messages immediately"
// (showForRoll resolves at once, and so does the card). "Hide 3D dice on secret
// rolls" (a world setting) only marks the throw of a whispered message secret
// (and ghost where its content is hidden): the dice are still thrown. While
// its tab is hidden Dice So Nice parks the animation, and the card waits with
// it, as a public card does. A throw that has not ended after DICE_TIMEOUT_MS
// of a visible tab (an error in Dice So Nice, a throw it dropped) reveals the
// card all the same; a card deleted meanwhile is given up. The posting
// client's event queue never waits for any of it (a hook, not awaited).

import { whisperedDice } from "../core/rollmode.mjs";
import { rollsOf } from "./chat.mjs";
import { rootOf } from "./dom.mjs";

/** The class that hides a whispered card's message while its dice roll (styles/rollbridge.css). */
export const ROLLING_CLASS = "rb-dice-rolling";

/** How long a throw may take, counted while the tab is visible, before the card shows regardless. */
export const diceTiming = { timeoutMs: 30000, stepMs: 250 };

// message id → {hidden: the rendered elements hidden while its dice roll, stop()}
const rolling = new Map();

function hide(element, hidden) {
  if (!element?.classList) return;
  element.classList.add(ROLLING_CLASS);
  hidden.add(element);
}

/** Elements of the page that match `selector`, when there is a DOM. */
function elements(selector) {
  const doc = globalThis.document;
  return doc?.querySelectorAll ? [...doc.querySelectorAll(selector)] : [];
}

/** The selector of a message's rendered elements (the chat log, a pop-out, a notification). */
function messageSelector(id) {
  const escape = globalThis.CSS?.escape;
  return escape ? `.message[data-message-id="${escape(String(id))}"]` : null;
}

/**
 * The dice of `rolls` as one Roll, as Dice So Nice throws a message's rolls
 * (Dice3D#renderRolls: every dice term, joined by "+"); a single Roll as it is.
 */
export function oneThrow(rolls) {
  if (rolls.length === 1) return rolls[0];
  const dice = rolls.flatMap((roll) => roll.dice);
  const plus = { class: "OperatorTerm", operator: "+", options: {}, evaluated: true };
  const terms = dice.flatMap((die, i) => (i ? [plus, die.toJSON()] : [die.toJSON()]));
  return Roll.fromData(/** @type {any} */ ({
    class: "Roll", formula: dice.map((die) => die.formula ?? die.expression).join(" + "), options: {}, dice: [],
    terms, total: dice.reduce((sum, die) => sum + (Number(die.total) || 0), 0), evaluated: true,
  }));
}

/**
 * Resolves after `ms` counted while the tab is visible (Dice So Nice parks a
 * hidden tab's throw), or once `gone()` says the message is gone; `cancel()`
 * stops the count.
 */
function visibleTimeout(ms, gone) {
  let timer = null;
  const promise = new Promise((resolve) => {
    let left = ms;
    timer = setInterval(() => {
      if (gone()) resolve("gone");
      else if (!globalThis.document?.hidden && (left -= diceTiming.stepMs) <= 0) resolve("timeout");
    }, diceTiming.stepMs);
  });
  return { promise: promise.finally(() => clearInterval(timer)), cancel: () => clearInterval(timer) };
}

/**
 * The createChatMessage hook: throw a whispered card's dice on this client
 * when its user reads the card, the message hidden until they land. Returns a
 * promise that resolves once the message shows again (or was deleted), or null
 * when this client throws nothing.
 */
export function animateWhisperedDice(message) {
  const dice3d = game.dice3d;
  const plan = typeof dice3d?.showForRoll === "function" ? whisperedDice(message) : null;
  if (!plan || rolling.has(message.id)) return null;
  const id = message.id;
  const hidden = new Set();
  let stop = () => {};
  const stopped = new Promise((resolve) => { stop = () => resolve("gone"); });
  rolling.set(id, { hidden, stop });
  const selector = messageSelector(id);
  for (const element of selector ? elements(selector) : []) hide(element, hidden);
  const user = game.users.get(plan.user) ?? game.user;
  const gone = () => Boolean(game.messages) && !game.messages.has(id);
  const timeout = visibleTimeout(diceTiming.timeoutMs, gone);
  let throwing;
  try {
    // now, in the hook: Dice So Nice reads this client's user and settings as it is called
    throwing = Promise.resolve(dice3d.showForRoll(oneThrow(rollsOf(plan.rolls)), user, false, null, false, id, message.speaker ?? null));
  } catch (error) {
    throwing = Promise.reject(error);
  }
  const thrown = throwing
    .then(() => "landed")
    .catch((error) => {
      console.warn(`rollbridge | Dice So Nice: ${error?.message ?? error}`);
      return "failed";
    });
  return Promise.race([thrown, timeout.promise, stopped]).then((outcome) => {
    timeout.cancel();
    if (outcome === "timeout") console.warn(`rollbridge | Dice So Nice: the dice of message ${id} did not land in time; the card shows`);
    rolling.delete(id);
    if (outcome === "gone" || gone()) return;
    reveal(message, hidden, selector);
  });
}

/** Show the card again as Dice So Nice's showMessage shows a message whose dice landed. */
function reveal(message, hidden, selector) {
  const views = /** @type {any} */ (typeof ui === "undefined" ? {} : ui);
  const chat = views.chat;
  const atBottom = Boolean(chat?.isAtBottom);
  const mine = (message.author?.id ?? message.author) === game.user?.id;
  const popout = views.sidebar?.popouts?.chat;
  const popoutAtBottom = Boolean(popout?.isAtBottom);
  for (const element of hidden) element.classList.remove(ROLLING_CLASS);
  if (selector) {
    for (const element of elements(selector)) element.classList?.remove(ROLLING_CLASS);
    // v13: the copy shown among the chat notifications while it was hidden goes; with the
    // sidebar collapsed the message is notified again, from the chat log's element
    for (const element of elements(`#chat-notifications ${selector}`)) element.remove?.();
    if (views.sidebar?.expanded === false && typeof chat?.notify === "function") {
      const existing = chat.element?.querySelector?.(`[data-message-id="${globalThis.CSS.escape(String(message.id))}"]`) ?? null;
      chat.notify(message, { newMessage: true, existing });
    }
  }
  Hooks.callAll("diceSoNiceRollComplete", message.id);
  if ((atBottom || mine) && typeof chat?.scrollBottom === "function") chat.scrollBottom({ popout: false });
  if (popout && (popoutAtBottom || mine) && typeof popout.scrollBottom === "function") popout.scrollBottom();
}

/** The deleteChatMessage hook: a deleted card's dice are given up. */
export function stopWhisperedDice(message) {
  rolling.get(message?.id)?.stop();
}

/** The render hooks: a message whose dice still roll on this client is hidden
 * (each rendering of it: the chat log, a pop-out, a notification). Returns
 * whether it hid it. */
export function hideWhileRolling(message, html) {
  const hidden = rolling.get(message?.id)?.hidden;
  const root = hidden ? rootOf(html) : null;
  if (!root?.classList) return false;
  hide(root, hidden);
  return true;
}
