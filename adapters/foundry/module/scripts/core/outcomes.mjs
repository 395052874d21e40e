// The record of how pending requests were settled, as the active GM's client
// keeps it in the hidden world setting `rollbridge.outcomes` (docs/foundry.md,
// "Approve / reject (GM)"): only a GM may write a world setting, so what it says
// is a GM's client's, never a player's. An approval card's own flags are not
// that: Foundry lets a message's author update its flags, and a player may post a
// message with any flags at all. Foundry-independent
// (tests/foundry/js/outcomes.test.mjs); the setting is registered in
// scripts/foundry/settings.mjs and written in scripts/foundry/client.mjs.
//
// The record: {[table]: {epoch, settled: {[pending]: {outcome, reason?}}}}, the
// table's id ("" for none), the newest KEPT_OUTCOMES requests of its newest epoch
// (another epoch's ids are another log's).

import { OUTCOMES } from "./approvals.mjs";
import { REASON_MAX } from "./rejection.mjs";

/** How many settled requests the record keeps per table (the newest). */
export const KEPT_OUTCOMES = 200;

/** The bidirectional controls, which the server refuses in a reason. */
const BIDI = /[\u202a-\u202e\u2066-\u2069]/u;

/**
 * A reason as the server sends one (a string of at most REASON_MAX characters, not
 * blank, without a bidirectional control), else null.
 * @param {unknown} reason
 * @returns {string | null}
 */
export function validReason(reason) {
  if (typeof reason !== "string" || !reason.trim() || [...reason].length > REASON_MAX || BIDI.test(reason)) return null;
  return reason;
}

/** The record's key of a table. */
const tableKey = (table) => (typeof table === "string" ? table : "");

/**
 * How the record says request `pending` of `table` in `epoch` was settled:
 * {outcome, reason} (`reason` null unless a rejection's, and valid), or null when it
 * does not say (or says it in a shape the module never writes).
 * @param {unknown} record
 * @param {{table: string | null, epoch: unknown, pending: string}} at
 * @returns {{outcome: string, reason: string | null} | null}
 */
export function keptOutcome(record, { table, epoch, pending }) {
  const kept = /** @type {any} */ (record)?.[tableKey(table)];
  if (!kept || kept.epoch !== epoch || typeof pending !== "string") return null;
  const entry = Object.hasOwn(kept.settled ?? {}, pending) ? kept.settled[pending] : null;
  if (!entry || !OUTCOMES.includes(entry.outcome)) return null;
  return { outcome: entry.outcome, reason: entry.outcome === "rejected" ? validReason(entry.reason) : null };
}

/**
 * The record with request `pending` settled as `outcome` (with a rejection's
 * `reason`), or null when it says so already. The table's entries of another epoch
 * go; past KEPT_OUTCOMES the oldest go.
 * @param {unknown} record
 * @param {{table: string | null, epoch: number, pending: string, outcome: string, reason?: string | null}} settled
 * @returns {Record<string, any> | null}
 */
export function withOutcome(record, { table, epoch, pending, outcome, reason = null }) {
  const said = keptOutcome(record, { table, epoch, pending });
  const why = outcome === "rejected" ? validReason(reason) : null;
  if (said && said.outcome === outcome && said.reason === why) return null;
  const all = record && typeof record === "object" ? { .../** @type {any} */ (record) } : {};
  const kept = all[tableKey(table)];
  const settled = kept?.epoch === epoch && kept.settled && typeof kept.settled === "object" ? { ...kept.settled } : {};
  delete settled[pending]; // the newest last
  settled[pending] = why === null ? { outcome } : { outcome, reason: why };
  const ids = Object.keys(settled);
  for (const old of ids.slice(0, Math.max(0, ids.length - KEPT_OUTCOMES))) delete settled[old];
  all[tableKey(table)] = { epoch, settled };
  return all;
}
