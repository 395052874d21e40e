// The record of how pending requests were settled, as the active GM's client
// keeps it in the hidden world setting `rollbridge.outcomes` (docs/foundry.md,
// "Approve / reject (GM)"): only a GM may write a world setting, so what it says
// is a GM's client's, never a player's. An approval card's own flags are not
// that: Foundry lets a message's author update its flags, and a player may post a
// message with any flags at all. Foundry-independent
// (tests/foundry/js/outcomes.test.mjs); the setting is registered in
// scripts/foundry/settings.mjs and written in scripts/foundry/client.mjs.
//
// The record: {tables: [{table, settled: {["epoch:pending"]: {outcome, reason?}}}]},
// each table by its id (null for none), the table written last last, each request
// by its epoch and id (another epoch's ids are another log's, and the world's chat
// keeps the cards of a table's earlier epochs too): the newest KEPT_OUTCOMES
// requests of each of the KEPT_TABLES tables written last, within RECORD_BYTES
// (Foundry sends the whole record to every client at each write). (An array: an object's
// keys that look like integers come first whatever their order of writing, and a
// table's id may be "42".)

import { OUTCOMES } from "./approvals.mjs";
import { validReason } from "./rejection.mjs";

export { validReason };

/** How many settled requests the record keeps per table (the newest). */
export const KEPT_OUTCOMES = 100;
/** How many tables the record keeps (those written last): the world's table, and the
 * one before it. */
export const KEPT_TABLES = 2;
/** The most the record takes, in bytes of its JSON in UTF-8: Foundry sends the whole
 * record to every connected client with each write, and every client loads it as it
 * joins (a phone on a slow line too). Past it, the GM's reasons of the oldest
 * requests go first (each keeps its outcome), then the oldest requests. */
export const RECORD_BYTES = 16 * 1024;

const encoder = new TextEncoder();
/** A value's size as JSON in UTF-8. */
const bytesOf = (value) => encoder.encode(JSON.stringify(value)).length;

/** A table's key of a request. */
const requestKey = (epoch, pending) => `${epoch}:${pending}`;

/**
 * How the record says request `pending` of `table` in `epoch` was settled:
 * {outcome, reason} (`reason` null unless a rejection's, and valid), or null when it
 * does not say (or says it in a shape the module never writes).
 * @param {unknown} record
 * @param {{table: string | null, epoch: unknown, pending: string}} at
 * @returns {{outcome: string, reason: string | null} | null}
 */
export function keptOutcome(record, { table, epoch, pending }) {
  const kept = tablesOf(record).find((entry) => entry.table === (table ?? null))?.settled;
  const entry = typeof pending === "string" && Number.isInteger(epoch) ? ownObject(kept, requestKey(epoch, pending)) : null;
  if (!entry || !OUTCOMES.includes(entry.outcome)) return null;
  return { outcome: entry.outcome, reason: entry.outcome === "rejected" ? validReason(entry.reason) : null };
}

/**
 * The record's tables as the module writes them: the last KEPT_TABLES entries, those
 * in its shape, each table once (a table listed twice — a GM's macro, an edit by hand —
 * by its entry written last: read from the first and written to the last, a request
 * settled would never be read again, and one settled earlier lost).
 */
function tablesOf(record) {
  const tables = /** @type {any} */ (record)?.tables;
  if (!Array.isArray(tables)) return [];
  const shaped = tables.slice(-KEPT_TABLES).filter((entry) => entry && typeof entry === "object" && (entry.table === null || typeof entry.table === "string"));
  const last = new Map(shaped.map((entry) => [entry.table, entry]));
  return shaped.filter((entry) => last.get(entry.table) === entry);
}

/** `object[key]` when it is an object of its own, else null. */
function ownObject(object, key) {
  if (!object || typeof object !== "object" || !Object.hasOwn(object, key)) return null;
  const value = /** @type {any} */ (object)[key];
  return value && typeof value === "object" ? value : null;
}

/**
 * The record with request `pending` of `table` in `epoch` settled as `outcome` (with a
 * rejection's `reason`), or null when it says so already. Past KEPT_OUTCOMES a table's
 * oldest requests go, past KEPT_TABLES the table written longest ago.
 * @param {unknown} record
 * @param {{table: string | null, epoch: number, pending: string, outcome: string, reason?: string | null}} settled
 * @returns {Record<string, any> | null}
 */
export function withOutcome(record, { table, epoch, pending, outcome, reason = null }) {
  const said = keptOutcome(record, { table, epoch, pending });
  const why = outcome === "rejected" ? validReason(reason) : null;
  if (said && said.outcome === outcome && said.reason === why) return null;
  const tables = tablesOf(record);
  const old = tables.find((entry) => entry.table === (table ?? null));
  const settled = { ...(old?.settled && typeof old.settled === "object" ? old.settled : {}) };
  delete settled[requestKey(epoch, pending)]; // the newest last
  settled[requestKey(epoch, pending)] = why === null ? { outcome } : { outcome, reason: why };
  const keys = Object.keys(settled);
  for (const key of keys.slice(0, Math.max(0, keys.length - KEPT_OUTCOMES))) delete settled[key];
  // the table written last, last
  const others = tables.filter((entry) => entry !== old);
  const kept = others.slice(Math.max(0, others.length - KEPT_TABLES + 1)).map((entry) => ({ table: entry.table, settled: { ...entry.settled } }));
  return withinBytes({ tables: [...kept, { table: table ?? null, settled }] });
}

/**
 * `record` (its own copies of every table's requests: changed in place) within
 * RECORD_BYTES: the reasons of the oldest requests dropped first, the table written
 * longest ago first (a rejection then reads *Rejected* alone), then the oldest
 * requests themselves.
 * @param {{tables: {table: string | null, settled: Record<string, any>}[]}} record
 */
function withinBytes(record) {
  let size = bytesOf(record);
  for (const { settled } of record.tables) {
    for (const [key, entry] of Object.entries(settled)) {
      if (size <= RECORD_BYTES) return record;
      if (entry?.reason === undefined) continue;
      settled[key] = { outcome: entry.outcome };
      size -= bytesOf(entry) - bytesOf(settled[key]);
    }
  }
  for (const { settled } of record.tables) {
    for (const key of Object.keys(settled)) {
      if (size <= RECORD_BYTES) return record;
      delete settled[key];
      size = bytesOf(record);
    }
  }
  return record;
}
