// The cards of events a restore undid. When the table goes on in a new epoch from an
// earlier point (a restored backup, or Redis gone back in time: docs/protocol.md),
// the events of the old epoch after that point are no longer the table's, but their
// cards stay in the world's chat. At a snapshot welcome the active GM's client (the
// only one that writes chat messages) flags each such card of its table with the
// epoch that undid it (`undoneBy`); every client then draws the flagged card faded
// with a note beneath, in its own user's language, as it renders it.
//
// Where the new epoch began is not in the welcome: it is taken as the lowest of the
// welcome's seq and the seq before the earliest card of the new epoch in the chat.

import { MODULE_ID } from "../core/state.mjs";
import { authoredByGM } from "./buttons.mjs";
import { noteCard, rootOf } from "./dom.mjs";

/** The module's card flags of `message`, when it is an event's card (an integer seq). */
function eventFlags(message) {
  const flags = message?.flags?.[MODULE_ID];
  return flags && Number.isSafeInteger(flags.seq) && typeof flags.kind === "string" ? flags : null;
}

/**
 * The GM's cards of table `table` that a move to epoch `epoch` at seq `seq` (a
 * welcome's) undid and that are not flagged yet: of another epoch, with a seq above
 * the point the new epoch began at (a player's card posted while no GM was active
 * too; only `trusted` cards of the new epoch say where it began).
 * @param {any[]} messages  the world's chat messages
 * @param {{table: string | null, epoch: number, seq: number}} welcome
 * @param {(message: any) => boolean} [trusted]  whose cards count (the GMs')
 * @returns {any[]}
 */
export function undoneByRestore(messages, { table, epoch, seq }, trusted = () => true) {
  if (!Number.isSafeInteger(epoch) || !Number.isSafeInteger(seq)) return [];
  const ours = messages.filter((m) => eventFlags(m) && (eventFlags(m).table ?? null) === (table ?? null));
  let from = seq;
  for (const message of ours) {
    const flags = eventFlags(message);
    // a player's card of the new epoch (a forged low seq) moves nothing
    if (flags.epoch === epoch && trusted(message)) from = Math.min(from, flags.seq - 1);
  }
  return ours.filter((m) => {
    const flags = eventFlags(m);
    return Number.isSafeInteger(flags.epoch) && flags.epoch !== epoch && flags.seq > from && flags.undoneBy === undefined;
  });
}

/**
 * Flag the cards a snapshot welcome's new epoch undid (the writer's client only).
 * @param {{table?: any, epoch: number, seq: number}} welcome
 * @param {string | null} table  the table's id
 * @returns {Promise<number>} how many cards were flagged
 */
export async function flagUndoneByRestore(welcome, table) {
  const cards = undoneByRestore(game.messages?.contents ?? [], { table, epoch: welcome.epoch, seq: welcome.seq }, authoredByGM);
  for (const message of cards) await message.update({ [`flags.${MODULE_ID}.undoneBy`]: welcome.epoch });
  return cards.length;
}

/**
 * A rendered card whose event a restore undid (`html`, either render hook's): faded,
 * with a note beneath in this user's language, once.
 * @param {any} message  the ChatMessage
 * @param {any} html     the rendered message (an HTMLElement or v12's jQuery)
 */
export function markUndoneByRestore(message, html) {
  if (eventFlags(message)?.undoneBy === undefined) return;
  noteCard(rootOf(html), "restored", "ROLLBRIDGE.Card.UndoneByRestore");
}
