// Foundry glue: the GM's record of which actors a system mapping chosen by hand wrote
// the GM's values into (the hidden world setting `mapped`), so that a switch back to
// `auto` made while the active GM's client was away resets them at its next welcome
// (FoundryClient's #resetMappedAway). It is kept where no player writes: a world
// setting, read only when a GM wrote it last (settings.mjs gmWritten: Foundry lets any
// user with SETTINGS_MODIFY write one, which the GM may grant a player). Until 7
// December 2026, night, the mark was a flag of the actor (`flags.rollbridge.mapped`),
// which a player who once owned the actor could write, naming an NPC there.
//
// The record: {marks: [{table, key, mapping, actorId}]} — `key` the Foundry actor's UUID
// (a token's synthetic actor's names its token), `actorId` the table's actor it stood
// for when marked: a reset is made only while its flags still name that one.

import { MODULE_ID } from "../core/state.mjs";
import { gmWritten } from "./settings.mjs";

/**
 * A Foundry actor's key in the record: its UUID, else its id.
 * @param {any} actor
 * @returns {string}
 */
export function markKey(actor) {
  return String(actor?.uuid ?? actor?.id ?? "");
}

/** The record's marks as a GM wrote them (malformed entries left out), of every table. */
function allMarks() {
  const record = /** @type {any} */ (gmWritten("mapped"));
  const marks = Array.isArray(record?.marks) ? record.marks : [];
  return marks.filter((mark) => ["table", "key", "mapping", "actorId"].every((name) => typeof mark?.[name] === "string"));
}

/**
 * The marks of `table` as a GM wrote them: by actor key, {mapping, actorId}. None when
 * the setting was last written by a user who is no GM (or never written).
 * @param {string | null} table
 * @returns {Map<string, {mapping: string, actorId: string}>}
 */
export function readMarks(table) {
  const out = new Map();
  for (const mark of allMarks()) {
    if (mark.table === table) out.set(mark.key, { mapping: mark.mapping, actorId: mark.actorId });
  }
  return out;
}

/**
 * Write `marks` as `table`'s marks (an empty map: none left), the other tables' kept.
 * Nothing is written when they are the record's already (no setting written at every
 * event).
 * @param {string | null} table
 * @param {Map<string, {mapping: string, actorId: string}>} marks
 */
export async function writeMarks(table, marks) {
  if (typeof table !== "string") return;
  const before = readMarks(table);
  const same = before.size === marks.size
    && [...marks].every(([key, mark]) => before.get(key)?.mapping === mark.mapping && before.get(key)?.actorId === mark.actorId);
  if (same) return;
  const others = allMarks().filter((mark) => mark.table !== table);
  const mine = [...marks].map(([key, { mapping, actorId }]) => ({ table, key, mapping, actorId }));
  await game.settings.set(MODULE_ID, "mapped", { marks: [...others, ...mine] });
}

/**
 * Mark `actors` ([{actor, actorId}]) of `table` as written by the chosen `mapping`
 * (writeMarks: written only when one is new or changed).
 * @param {string | null} table
 * @param {string} mapping
 * @param {{actor: any, actorId: string}[]} actors
 */
export async function addMarks(table, mapping, actors) {
  const marks = readMarks(table);
  for (const { actor, actorId } of actors) {
    if (typeof actorId === "string") marks.set(markKey(actor), { mapping, actorId });
  }
  await writeMarks(table, marks);
}
