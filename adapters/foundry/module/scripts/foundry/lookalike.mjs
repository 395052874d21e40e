// A player's look-alike of a card (a ChatMessage with the module's card flags of an
// event whose GM's card is in the chat) as the chat shows it: marked as a player's,
// so no one reads its result as the table's. Only the rendered element changes.

import { cardPosted, MODULE_ID } from "../core/state.mjs";
import { authoredByGM } from "./buttons.mjs";
import { noteCard, rootOf } from "./dom.mjs";

/** The event a card's flags name ({table, epoch, seq, kind, hook}), or null. */
function flaggedEvent(message) {
  const flags = message?.flags?.[MODULE_ID];
  if (!flags || flags.seq === undefined || flags.seq === null || typeof flags.kind !== "string") return null;
  return { table: flags.table ?? null, epoch: flags.epoch, seq: flags.seq, kind: flags.kind, hook: flags.hook };
}

/** Whether `message` is a player's card of an event whose GM's card the chat holds.
 * A roller's own card of a GM or self roll (flags `requester`) is not the event's
 * card (cardPosted skips it), so it is never a look-alike of the GM's view. */
function isLookalike(message) {
  const event = flaggedEvent(message);
  if (!event || authoredByGM(message) || !cardPosted([message], event)) return false;
  return cardPosted(game.messages?.contents ?? [], event, authoredByGM);
}

/** Mark a look-alike's rendered element `root` (its card struck, a note beneath), once. */
function markOne(root) {
  noteCard(root, "lookalike", "ROLLBRIDGE.Card.Lookalike");
}

/**
 * For a rendered chat message (`html`, either render hook's): a player's look-alike
 * is marked; a GM's card marks the look-alikes of its event drawn before it came.
 * @param {any} message  the ChatMessage
 * @param {any} html     the rendered message (an HTMLElement or v12's jQuery)
 */
export function markLookalikes(message, html) {
  if (isLookalike(message)) markOne(rootOf(html));
  const event = flaggedEvent(message);
  if (!event || !authoredByGM(message)) return;
  for (const other of game.messages?.contents ?? []) {
    // a player's card of this very event first (a look at its own flags): the whole
    // chat is scanned again only for such a card, so a GM's card drawn in a long chat
    // (its log opened: every card drawn) costs one pass over it, not one per message
    if (other === message || authoredByGM(other) || !cardPosted([other], event)) continue;
    if (!isLookalike(other)) continue;
    const shown = document.querySelector(`[data-message-id="${CSS.escape(String(other.id))}"]`);
    if (shown) markOne(shown);
  }
}
