// Which of the table's requests still wait for the GM's approval, as the GM's
// client knows it (issue: a GM's reload showed Approve and Reject on every
// approval card, settled or not). Foundry-independent
// (tests/foundry/js/approvals.test.mjs).
//
// The GM's welcome lists the requests waiting as of its seq (`table.pending`,
// docs/protocol.md: every welcome, a reload's and a reconnect's); the events
// after it add one (`approval.requested`) and settle one (`approval.rejected`,
// or the approved request's event, which names it in `data.approved`). A
// resume's missed events come after the welcome but happened before it: they
// tell how a request was settled, never that one waits (the welcome's list is
// later than they are). A GM's welcome that is a snapshot after a resume lists how
// the requests the server's retained log settles were settled (`settled`,
// docs/protocol.md): this client saw none of their events.

import { validReason } from "./rejection.mjs";

/** How a request stands: "waiting", "approved", "rejected", "settled" (not listed
 * any more, how unknown here), or null (nothing known yet). */
export class Approvals {
  constructor() {
    this.reset();
  }

  /** Forget everything: another table. */
  reset() {
    /** @type {Set<string> | null | undefined} the ids waiting: undefined before a
     * welcome, null when the welcome did not list them (an older server) */
    this.waiting = undefined;
    /** @type {Map<string, string>} pending id → "approved" | "rejected" | "settled" */
    this.how = new Map();
    /** @type {Map<string, string>} pending id → the GM's reason, as its rejection's event gave it */
    this.reasons = new Map();
    /** @type {number | null} the epoch of the welcome the ids are of */
    this.epoch = null;
  }

  /**
   * A welcome: `table` its table (the GM's lists `pending`, [{pending, ...}]), `epoch`
   * its epoch (another epoch's ids are another log's: what was seen of them goes),
   * `settled` how requests were settled as it says (welcomeSettled).
   * @param {any} table
   * @param {number | null} [epoch]
   * @param {{pending: string, outcome: string, reason: string | null}[]} [settled]
   */
  welcome(table, epoch = null, settled = []) {
    if (epoch !== this.epoch) {
      this.how.clear();
      this.reasons.clear();
    }
    this.epoch = epoch;
    const listed = table?.pending;
    this.waiting = Array.isArray(listed)
      ? new Set(listed.map((entry) => entry?.pending).filter((id) => typeof id === "string"))
      : null;
    for (const { pending, outcome, reason } of settled) {
      this.settle(pending, outcome);
      if (reason) this.reasons.set(pending, reason);
    }
  }

  /**
   * An event of the table: the ids of the requests it settles that were not known
   * settled so, and of a rejection whose reason was not known (their cards are
   * drawn again).
   * @param {any} event
   * @param {{replayed?: boolean}} [info]
   * @returns {string[]}
   */
  see(event, { replayed = false } = {}) {
    const data = event?.data ?? {};
    if (event?.kind === "approval.requested" && !replayed && this.waiting && typeof data.pending === "string") {
      this.waiting.add(data.pending);
    }
    const changed = settledBy(event).filter(([pending, how]) => this.settle(pending, how)).map(([pending]) => pending);
    const reason = rejectionReason(event);
    if (reason && this.reasons.get(data.pending) !== reason) {
      this.reasons.set(data.pending, reason);
      if (!changed.includes(data.pending)) changed.push(data.pending);
    }
    return changed;
  }

  /**
   * The GM's reason for rejecting the request `pending`, as its `approval.rejected`
   * event said it, or null (not rejected, rejected without one, or its event not seen
   * here: nothing else keeps it).
   * @param {string} pending
   * @returns {string | null}
   */
  reason(pending) {
    return this.reasons.get(pending) ?? null;
  }

  /**
   * Note a request settled (`how`: "approved", "rejected", or "settled" when only that
   * is known, which does not replace a known how). Returns whether that changed anything.
   * @param {string} pending
   * @param {string} how
   */
  settle(pending, how) {
    if (typeof pending !== "string") return false;
    const known = this.how.get(pending);
    if (known === how || (known && how === "settled")) return false;
    this.how.set(pending, how);
    this.waiting?.delete(pending);
    return true;
  }

  /**
   * How the request `pending` stands (see the class).
   * @param {string} pending
   * @returns {string | null}
   */
  state(pending) {
    const how = this.how.get(pending);
    if (how) return how;
    if (this.waiting === undefined) return null;
    if (this.waiting === null) return "waiting"; // not listed by the server: as before, until settled
    return this.waiting.has(pending) ? "waiting" : "settled";
  }
}

/**
 * How a welcome says requests were settled (`settled`, a GM's welcome that answers a
 * resume with a snapshot: docs/protocol.md), each as the server sends it — a
 * request's id and "approved" or "rejected", a rejection's reason only as
 * validReason takes it, a request the same welcome lists as waiting never (its list
 * is the server's word) — else left out: [{pending, outcome, reason}], [] for a
 * welcome without it (an older server, a player's, a recovered resume).
 * @param {any} welcome
 * @returns {{pending: string, outcome: string, reason: string | null}[]}
 */
export function welcomeSettled(welcome) {
  const listed = welcome?.settled;
  if (!Array.isArray(listed)) return [];
  const waiting = new Set((Array.isArray(welcome.table?.pending) ? welcome.table.pending : []).map((entry) => entry?.pending));
  return listed
    .filter((entry) => typeof entry?.pending === "string" && OUTCOMES.includes(entry.outcome) && !waiting.has(entry.pending))
    .map(({ pending, outcome, reason }) => ({ pending, outcome, reason: outcome === "rejected" ? validReason(reason) : null }));
}

/** How an event settles pending requests: [[pending id, "approved" | "rejected"]] (an
 * `approval.rejected` names its request; an approved request's event names it in
 * `data.approved`). */
export function settledBy(event) {
  const data = event?.data ?? {};
  const settled = [];
  if (event?.kind === "approval.rejected" && typeof data.pending === "string") settled.push([data.pending, "rejected"]);
  if (typeof data.approved === "string") settled.push([data.approved, "approved"]);
  return settled;
}

/** The reason an `approval.rejected` event gives (the GM's own words, `data.reason`),
 * or null for another event, none given (the server sends "" then), or one that is
 * no reason as the server sends one (validReason: one of zero-width characters
 * alone, logged before the server blanked them, shows nothing). */
export function rejectionReason(event) {
  const data = event?.data ?? {};
  if (event?.kind !== "approval.rejected" || typeof data.pending !== "string") return null;
  return validReason(data.reason);
}

/** How a pending request was settled, as a GM's client keeps it (core/outcomes.mjs; an
 * earlier version wrote it on the approval card, `flags.rollbridge.outcome`). */
export const OUTCOMES = ["approved", "rejected"];

/**
 * The approval cards in the world's chat (`messages`, any iterable of messages with
 * `flags`) of request `pending` of table `table` in epoch `epoch`, whatever their seq,
 * those `trusted` says are (a GM's client posted them: see approvalPosted).
 * @param {Iterable<any>} messages
 * @param {{table: string | null, epoch: number, pending: string}} card
 * @param {(message: any) => boolean} [trusted]
 */
export function approvalCards(messages, { table, epoch, pending }, trusted = () => true) {
  const found = [];
  for (const message of messages ?? []) {
    const flags = message?.flags?.rollbridge;
    if (flags?.kind !== "approval.requested" || flags.pending !== pending) continue;
    if ((flags.table ?? null) === (table ?? null) && flags.epoch === epoch && trusted(message)) found.push(message);
  }
  return found;
}

/**
 * Whether the world's chat (`messages`, any iterable of messages with `flags`) holds
 * the approval card of request `pending` of table `table` in epoch `epoch`, whatever
 * its seq: the card of a request the GM's welcome listed has none (the welcome does
 * not say which event asked for it), and the event's own card must not come again.
 * Only a card `trusted` says a GM's client posted counts: a player may post a message
 * with any flags, and one flagged as the card of their request must not keep the GM's
 * own card, which says what the server holds, from being posted.
 * @param {Iterable<any>} messages
 * @param {{table: string | null, epoch: number, pending: string}} card
 * @param {(message: any) => boolean} [trusted]
 */
export function approvalPosted(messages, card, trusted = () => true) {
  return approvalCards(messages, card, trusted).length > 0;
}
