// The server's dice for every Foundry roll: a dice fulfillment method
// (CONFIG.Dice.fulfillment, Foundry v12+). Foundry-independent
// (tests/foundry/js/fulfillment.test.mjs drives it with the stand-in's dice
// and a fake socket); foundry/fulfillment.mjs registers it.
//
// Foundry's contract, as its client code (DiceTerm#roll, #invokeFulfillmentHandler)
// and the community declarations (CONFIG.Dice.Fulfillment.Handler) give it: a
// non-interactive method's `handler(term, options)` is awaited once per die —
// the term's first `number` dice one after another, then one more call per die
// a modifier adds (explosions, rerolls) — and returns that die's value, or
// undefined, which makes Foundry roll the die itself (DiceTerm#randomFace).
//
// So a term's dice come in one `draw` request: the first call of a term draws
// all its remaining dice (`number` minus the results it already holds) and
// hands them out one call at a time; a die a modifier adds later is one
// request of its own. Every draw is a `dice.drawn` event in the table's log.
//
// When the server cannot give them (no connection, no answer within
// DRAW_TIMEOUT_MS, an error reply, an answer that does not fit the die), the
// roll takes Foundry's own dice from then on — every die of that roll still to
// come — and is marked (`roll.options.rollbridge.dice === "local"`, which the
// card shows); the user is told once, not per die and not per roll again until
// a draw succeeds.

import { serversCode } from "./origin.mjs";
import { newRequestId, RollbridgeError } from "./protocol.mjs";

export const METHOD_ID = "rollbridge";
/** How long a roll waits for the server's dice before it takes Foundry's own. */
export const DRAW_TIMEOUT_MS = 4000;
/** The server's bound of a draw's `label` (docs/protocol.md, "Table requests"). */
export const MAX_LABEL = 200;
/** The server's bound of a draw's `number` (a term of Foundry's holds at most 999 too). */
export const MAX_DRAW = 999;
/** Refusals of an actor (not controlled, not at the table): the draw goes again without it. */
const ACTOR_REFUSALS = new Set(["forbidden", "not_found", "unknown_actor"]);

/** The `draw` request: `number` dice of `faces` faces, for a roll labelled by its formula.
 * @param {{id?: string, faces: number, number: number, label?: string, actor?: string|null, secret?: boolean}} fields
 */
export function drawMessage({ id, faces, number, label, actor, secret }) {
  const message = { type: "draw", id: id ?? newRequestId("draw"), faces, number };
  if (label) message.label = String(label).slice(0, MAX_LABEL);
  if (actor) message.actor = actor;
  if (secret) message.secret = true;
  return message;
}

/** The mark a roll carries of whose dice it holds (kept in its options, so in its JSON). */
export function diceMark(roll) {
  const mark = roll?.options?.rollbridge;
  return mark && typeof mark === "object" ? mark : null;
}

/** Whether a roll (or a message's rolls) took Foundry's own dice instead of the server's. */
export function hasLocalDice(rolls) {
  return (rolls ?? []).some((roll) => diceMark(roll)?.dice === "local");
}

/** The log seqs of the server's draws a message's rolls took. */
export function drawSeqs(rolls) {
  return (rolls ?? []).flatMap((roll) => diceMark(roll)?.draws ?? []);
}

function checkResults(reply, faces, number) {
  const results = reply?.results;
  const fits = Array.isArray(results) && results.length === number
    && results.every((r) => Number.isInteger(r) && r >= 1 && r <= faces);
  if (!fits) {
    throw new RollbridgeError("bad_reply", `the server's draw does not hold ${number} dice of ${faces} faces`);
  }
  return results;
}

/**
 * A term's die value from the server's face `result` (1…faces): the term's own
 * mapping of a uniform draw (DiceTerm#mapRandomFace) at the middle of that
 * face's interval, so a Die gets the face itself, a coin or a Fate die its own
 * value of it.
 */
export function faceValue(term, result) {
  const faces = term.faces;
  if (typeof term.mapRandomFace !== "function") return result;
  return term.mapRandomFace(1 - (result - 0.5) / faces);
}

export class ServerDice {
  /**
   * @param {object} options
   * @param {Function} options.draw     (message) → Promise of the `result` reply; rejects
   *   at once when there is no connection, with a RollbridgeError for an error reply
   * @param {Function} [options.forget] (id) a draw that timed out is not sent again
   * @param {Function} options.context  (roll) → {actor, secret}: the speaker's rollbridge
   *   actor (or null) and whether the roll mode is secret
   * @param {Function} options.notice   (error) tells the user the roll takes Foundry's dice
   * @param {object} [options.timers]   {setTimeout, clearTimeout}
   * @param {number} [options.timeoutMs]
   */
  constructor({ draw, forget = () => {}, context, notice, timers, timeoutMs = DRAW_TIMEOUT_MS }) {
    this.draw = draw;
    this.forget = forget;
    this.context = context;
    this.notice = notice;
    this.timers = timers ?? { setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (h) => clearTimeout(h) };
    this.timeoutMs = timeoutMs;
    this.outage = false;
    this.stats = { requests: 0, dice: 0, local: 0, notices: 0 };
    this.#batches = new WeakMap();
  }

  #batches;

  /** CONFIG.Dice.fulfillment.methods.rollbridge.handler: one die's value, or undefined. */
  handler = async (term, _options = {}) => {
    const roll = term?._root ?? term;
    const mark = this.#markOf(roll);
    if (mark.dice === "local") return undefined; // this roll already took Foundry's dice
    const faces = term.faces;
    if (!Number.isInteger(faces) || faces < 1) return this.#local(roll, mark, new RollbridgeError("faces", "no die size"));
    let batch = this.#batches.get(term);
    if (!batch?.length) {
      // the term's first die: all of its dice still to roll; a die a modifier adds: one
      const number = batch ? 1 : Math.min(MAX_DRAW, Math.max(1, Math.abs(term.number ?? 1) - (term.results?.length ?? 0)));
      try {
        batch = await this.#drawn(roll, term, faces, number, mark);
      } catch (error) {
        return this.#local(roll, mark, error);
      }
      this.#batches.set(term, batch);
    }
    this.stats.dice += 1;
    return faceValue(term, batch.shift());
  };

  #markOf(roll) {
    roll.options ??= {};
    const mark = diceMark(roll) ?? { dice: "server", draws: [] };
    roll.options.rollbridge = mark;
    return mark;
  }

  #local(roll, mark, error) {
    mark.dice = "local";
    mark.reason = error?.code ?? "error";
    this.stats.local += 1;
    if (!this.outage) {
      this.outage = true; // once, until a draw succeeds again
      this.stats.notices += 1;
      this.notice(error);
    }
    return undefined;
  }

  async #drawn(roll, term, faces, number, mark) {
    const { actor = null, secret = false } = (await this.context(roll)) ?? {};
    const label = roll?.formula ?? term.expression ?? "";
    let reply;
    try {
      reply = await this.#withTimeout(drawMessage({ faces, number, label, actor, secret }));
    } catch (error) {
      if (!actor || !ACTOR_REFUSALS.has(serversCode(error))) throw error;
      // the speaker's actor is not this user's at the table: the draw, without it
      reply = await this.#withTimeout(drawMessage({ faces, number, label, secret }));
    }
    const results = checkResults(reply, faces, number);
    if (Number.isInteger(reply.seq)) mark.draws.push(reply.seq);
    this.outage = false;
    return [...results];
  }

  #withTimeout(message) {
    this.stats.requests += 1;
    return new Promise((resolve, reject) => {
      const timer = this.timers.setTimeout(() => {
        this.forget(message.id);
        reject(new RollbridgeError("timeout", `no answer to ${message.id} within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      Promise.resolve()
        .then(() => this.draw(message))
        .then(
          (reply) => { this.timers.clearTimeout(timer); resolve(reply); },
          (error) => { this.timers.clearTimeout(timer); reject(error); },
        );
    });
  }
}
