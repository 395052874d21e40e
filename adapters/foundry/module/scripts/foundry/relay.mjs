// Foundry glue: a player's client asking the GM's client (which holds the
// world's writing connection) for something — a roll mode note before a secret
// request, a card's "apply to selected" when the player has no connection of
// its own. On v13 through Foundry's queries (CONFIG.queries on the GM's side,
// User#query on the player's: the answer comes back), on v12 through the
// module's socket (fire and forget, as sockets are).
//
// Who asks: Foundry's server adds the sending user's id to a module socket
// message (the last argument the handler gets; socketlib's senderId), so the
// GM's client knows the sender of a socket message for sure. A v13 query
// handler gets no sender (Users#handleUserQuery calls handler(queryData,
// {timeout})), so whatever a query says about its user is the sender's word.
// A card's "apply" acts with the GM's authority, so it always goes on the
// socket, as a reference to the card (table, epoch, seq) and the selected
// targets, never as a request the player built (client.mjs `relayed`).

import { MODULE_ID } from "../core/state.mjs";

/** The query's name in CONFIG.queries (v13). */
export const QUERY = `${MODULE_ID}.relay`;
export const SOCKET = `module.${MODULE_ID}`;
export const QUERY_TIMEOUT_MS = 5000;

/** Whether this Foundry has queries (v13: CONFIG.queries and User#query). */
export function hasQueries() {
  return Boolean(/** @type {any} */ (globalThis).CONFIG?.queries) && typeof game.users?.activeGM?.query === "function";
}

/** The GM's side: answer relayed messages with `handler(message, {sender})` (v13
 * queries: no sender, Foundry does not say who asks; the socket: see socketSender). */
export function registerRelay(handler) {
  if (/** @type {any} */ (globalThis).CONFIG?.queries) /** @type {any} */ (CONFIG).queries[QUERY] = (data) => handler(data, { sender: null });
}

/** The id of the user who sent a module socket message, as Foundry's server adds it
 * after the sender's own arguments (the handler's last argument), or null. */
export function socketSender(args) {
  const last = args.at(-1);
  return typeof last === "string" && game.users?.get(last) ? last : null;
}

/**
 * Send `message` ({type, …}) to the active GM's client, as this user's (`user`).
 * v13: the GM's answer (a promise); v12, and an apply on v13 too: the socket,
 * answered with null. Throws (key
 * ROLLBRIDGE.Button.NoGM) when no GM is there.
 */
export async function askGM(message) {
  const gm = game.users?.activeGM;
  if (!gm) {
    const error = /** @type {Error & {key?: string}} */ (new Error("rollbridge: no active GM"));
    error.key = "ROLLBRIDGE.Button.NoGM";
    throw error;
  }
  const data = { ...message, user: game.user.id };
  // an apply only on the socket, whose sender Foundry vouches for
  if (hasQueries() && message.type !== "apply") return gm.query(QUERY, data, { timeout: QUERY_TIMEOUT_MS });
  game.socket?.emit(SOCKET, data);
  return null;
}
