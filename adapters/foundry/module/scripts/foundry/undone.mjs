// The cards of events the GM undid. An undo takes back the table's latest change; the
// GM's card of it shows *Redo* (buttons.mjs), but a player's shows nothing, so a
// player read "out of the fight" while the token stood again. The active GM's client
// (the only one that writes chat messages) flags the GM's cards of the undone event
// with the undo's seq (`undoneAt`) and takes the flag off at its redo; every client
// then draws a flagged card faded with a note beneath, in its own user's language, as
// it renders it (docs/foundry.md, "Buttons on the card").

import { MODULE_ID } from "../core/state.mjs";
import { authoredByGM, redrawStale } from "./buttons.mjs";
import { noteCard, rootOf } from "./dom.mjs";

/**
 * The GM's cards of table `table`'s event `seq` of epoch `epoch`.
 * @param {any[]} messages  the world's chat messages
 * @param {string | null} table
 * @param {number} epoch
 * @param {number} seq
 * @returns {any[]}
 */
export function cardsOf(messages, table, epoch, seq) {
  return messages.filter((message) => {
    const flags = message?.flags?.[MODULE_ID];
    return flags && flags.seq === seq && flags.epoch === epoch && (flags.table ?? null) === (table ?? null) && authoredByGM(message);
  });
}

/** The seq an undo or redo `event` moved (its `data.undoes` or `data.redoes`), else null. */
function movedBy(event) {
  const moved = event?.kind === "undo" ? event.data?.undoes : event?.kind === "redo" ? event.data?.redoes : null;
  return Number.isSafeInteger(moved) && Number.isSafeInteger(event.seq) ? moved : null;
}

/**
 * Note, as the writer's connection receives an undo or redo, the flag its cards will
 * get (`flags`: seq → the undo's seq, null for a redo): a card posted before it is
 * written is posted flagged, and the buttons' redraw leaves the card to the write.
 * @param {Map<number, number | null>} flags
 * @param {any} event
 */
export function noteUndone(flags, event) {
  const moved = movedBy(event);
  if (moved !== null) flags.set(moved, event.kind === "undo" ? event.seq : null);
}

/**
 * At an `undo` event, flag the cards of the event it undid with the undo's seq; at a
 * `redo`, take the flag off the cards of the event it redid (the writer's client
 * only). Each write draws its card again on every client (with the buttons it has
 * now); a card that needed no write but shows stale buttons is drawn again as the
 * buttons' redraw would have.
 * @param {any} event  the event (its `kind`, `epoch`, `seq` and `data.undoes`/`data.redoes`)
 * @param {string | null} table  the table's id
 * @param {{undoneFlags?: Map<number, number | null>}} [client]  the writer's client
 * @returns {Promise<number>} how many cards were flagged or unflagged
 */
export async function flagUndone(event, table, client = {}) {
  const moved = movedBy(event);
  if (moved === null) return 0;
  const undo = event.kind === "undo";
  const cards = cardsOf(game.messages?.contents ?? [], table, event.epoch, moved);
  const untouched = [];
  let changed = 0;
  for (const message of cards) {
    const at = message.flags[MODULE_ID].undoneAt;
    if (undo && at !== event.seq) await message.update({ [`flags.${MODULE_ID}.undoneAt`]: event.seq });
    else if (!undo && at !== undefined) await message.update({ [`flags.${MODULE_ID}.-=undoneAt`]: null });
    else {
      untouched.push(message);
      continue;
    }
    changed += 1;
  }
  const pending = client.undoneFlags;
  if (pending?.get(moved) === (undo ? event.seq : null)) pending.delete(moved);
  if (untouched.length && !pending?.has(moved)) await redrawStale(untouched, client);
  return changed;
}

/**
 * A rendered card whose event the GM undid (`html`, either render hook's): faded, with
 * a note beneath in this user's language, once. A card a player posted is not taken
 * at its flag's word: only a GM's card is marked.
 * @param {any} message  the ChatMessage
 * @param {any} html     the rendered message (an HTMLElement or v12's jQuery)
 */
export function markUndone(message, html) {
  const flags = message?.flags?.[MODULE_ID];
  if (!Number.isSafeInteger(flags?.undoneAt) || !authoredByGM(message)) return;
  noteCard(rootOf(html), "undone", "ROLLBRIDGE.Card.Undone");
}
