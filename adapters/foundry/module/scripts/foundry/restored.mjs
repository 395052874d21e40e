// The cards of events a restore undid. When the table goes on in a new epoch from an
// earlier point (a restored backup, or Redis gone back in time: docs/protocol.md),
// the events of the old epoch after that point are no longer the table's, but their
// cards stay in the world's chat. At a snapshot welcome the active GM's client (the
// only one that writes chat messages) flags each such card of its table with the
// epoch that undid it (`undoneBy`); every client then draws the flagged card faded
// with a note beneath, in its own user's language, as it renders it.
//
// A restored table's welcome says which epochs its history ran through (`epochs`:
// each epoch and the seq it went on from, oldest first, the last the table's now): a
// card stands where its epoch's part of that history holds its seq, and is undone
// where it does not and its seq is above what the record cannot tell (the first
// epoch's start, where the record does not know it); a flagged card that stands
// again (a later restore of a later backup) loses its flag. A Redis fence records the
// move as a restore does. A welcome without it (an older server, a table moved by an
// older server's Redis fence, which did not record it) is read as before: the point the new
// epoch began at is the lowest of the welcome's seq and the seq before the earliest
// GM's card of the new epoch in the chat.
//
// The restored epoch's events that happened while no GM's client posted cards (the
// GM away) have none: at the welcome the writer's client reads them from the server
// and posts their cards (missedSinceRestore: the newest MISSED_CARDS at most, in a
// world that played the table before the restore).

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
 * @param {{table: string | null, epoch: number, seq: number, epochs?: any}} welcome
 * @param {(message: any) => boolean} [trusted]  whose cards count (the GMs')
 * @returns {any[]}
 */
export function undoneByRestore(messages, { table, epoch, seq, epochs }, trusted = () => true) {
  if (!Number.isSafeInteger(epoch) || !Number.isSafeInteger(seq)) return [];
  const ours = messages.filter((m) => eventFlags(m) && (eventFlags(m).table ?? null) === (table ?? null));
  const record = epochRecord(epochs, epoch);
  if (record) return ours.filter((m) => eventFlags(m).undoneBy === undefined && judged(record, eventFlags(m)) === "undone");
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
 * A welcome's `epochs` as a list of {epoch, from} (oldest first, its last of epoch
 * `epoch`, every `from` an integer or null, the later ones rising); null where it is
 * none of that (an older server's welcome, a damaged one: the guess is used).
 * @param {any} epochs
 * @param {number} epoch  the welcome's epoch
 * @returns {{epoch: number, from: number | null}[] | null}
 */
export function epochRecord(epochs, epoch) {
  if (!Array.isArray(epochs) || epochs.length === 0 || epochs.length > 64) return null;
  const record = [];
  for (const entry of epochs) {
    if (!entry || typeof entry !== "object" || !Number.isSafeInteger(entry.epoch)) return null;
    const from = entry.from ?? null;
    if (from !== null && (!Number.isSafeInteger(from) || from < 0)) return null;
    if (record.length && (from === null || (record.at(-1).from ?? -1) > from)) return null;
    record.push({ epoch: entry.epoch, from });
  }
  return record.at(-1).epoch === epoch ? record : null;
}

/**
 * Whether the card of `flags` (its epoch and seq) is of the table's history as
 * `record` tells it: "stands" (its epoch's part holds its seq), "undone" (it does
 * not, and the record tells its seq: above the first epoch's start where that is
 * known, else above the second epoch's), or "unknown".
 * @param {{epoch: number, from: number | null}[]} record
 * @param {{epoch?: any, seq: number}} flags
 * @returns {"stands" | "undone" | "unknown"}
 */
export function judged(record, flags) {
  if (!Number.isSafeInteger(flags.epoch)) return "unknown";
  for (let i = 0; i < record.length; i++) {
    const { epoch, from } = record[i];
    const to = i + 1 < record.length ? record[i + 1].from : Infinity;
    // (an epoch's own events all follow its start, where the record does not know it)
    if (epoch === flags.epoch && (from === null || flags.seq > from) && flags.seq <= to) return "stands";
  }
  const known = record[0].from ?? (record.length > 1 ? record[1].from : Infinity);
  return flags.seq > known ? "undone" : "unknown";
}

/**
 * The flagged cards of table `table` that stand again under the welcome's record (a
 * later restore brought their events back): their flag is taken off.
 * @param {any[]} messages  the world's chat messages
 * @param {{table: string | null, epoch: number, epochs?: any}} welcome
 * @returns {any[]}
 */
export function standingAgain(messages, { table, epoch, epochs }) {
  const record = epochRecord(epochs, epoch);
  if (!record) return [];
  return messages.filter((m) => {
    const flags = eventFlags(m);
    return flags && (flags.table ?? null) === (table ?? null) && flags.undoneBy !== undefined && judged(record, flags) === "stands";
  });
}

/** The most cards of a restored epoch's events posted at a welcome (the newest). */
export const MISSED_CARDS = 50;

/**
 * The seqs of the restored epoch's events whose cards the chat may lack, as
 * `{from, to}` (the events after `from` up to `to`: the welcome's seq), or null: a
 * snapshot welcome of a restored table (`epochs`) to a world that played the table
 * before the restore (it holds a card of the table of another epoch), from the point
 * the epoch began at or the latest GM's card of it (`trusted`), at most MISSED_CARDS.
 * Those events happened while no GM's client posted cards (the GM away).
 * @param {any[]} messages  the world's chat messages
 * @param {{table: string | null, epoch: number, seq: number, epochs?: any}} welcome
 * @param {(message: any) => boolean} [trusted]  whose cards count (the GMs')
 * @returns {{from: number, to: number} | null}
 */
export function missedSinceRestore(messages, { table, epoch, seq, epochs }, trusted = () => true) {
  const record = epochRecord(epochs, epoch);
  if (!record || !Number.isSafeInteger(seq)) return null;
  const ours = messages.filter((m) => eventFlags(m) && (eventFlags(m).table ?? null) === (table ?? null));
  if (!ours.some((m) => Number.isSafeInteger(eventFlags(m).epoch) && eventFlags(m).epoch !== epoch)) return null;
  let from = record.at(-1).from;
  for (const message of ours) {
    const flags = eventFlags(message);
    if (flags.epoch === epoch && trusted(message)) from = Math.max(from, Math.min(flags.seq, seq));
  }
  from = Math.max(from, seq - MISSED_CARDS);
  return from < seq ? { from, to: seq } : null;
}

/**
 * Flag the cards a snapshot welcome's new epoch undid, and take the flag off those
 * that stand again (the writer's client only).
 * @param {{table?: any, epoch: number, seq: number, epochs?: any}} welcome
 * @param {string | null} table  the table's id
 * @returns {Promise<number>} how many cards were flagged or unflagged
 */
export async function flagUndoneByRestore(welcome, table) {
  const messages = game.messages?.contents ?? [];
  const shown = { table, epoch: welcome.epoch, seq: welcome.seq, epochs: welcome.epochs };
  const cards = undoneByRestore(messages, shown, authoredByGM);
  for (const message of cards) await message.update({ [`flags.${MODULE_ID}.undoneBy`]: welcome.epoch });
  const again = standingAgain(messages, shown);
  for (const message of again) await message.update({ [`flags.${MODULE_ID}.-=undoneBy`]: null });
  return cards.length + again.length;
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
