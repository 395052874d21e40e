// Foundry glue: a player's client asking the GM's client (which holds the
// world's writing connection) for something — a roll mode note before a secret
// request, a card's "apply to selected" when the player has no connection of
// its own. On v13 through Foundry's queries (CONFIG.queries on the GM's side,
// User#query on the player's: the answer comes back), on v12 through the
// module's socket (fire and forget, as sockets are).
//
// Who asks: Foundry's server adds the sending user's id to a module socket
// message (the handler gets exactly (message, senderId): socketlib's), so the
// GM's client knows the sender of a socket message for sure. A v13 query
// handler gets no sender (Users#handleUserQuery calls handler(queryData,
// {timeout})), so whatever a query says about its user is the sender's word.
// A card's "apply" acts with the GM's authority, so it always goes on the
// socket, as a reference to the card (table, epoch, seq) and the selected
// targets, never as a request the player built (client.mjs `relayed`); so does
// another GM's "linked", taken from GMs only: a query's sender would be only its
// word, and the socket reaches whichever GM's client is the writer when it comes
// (the active GM may change while it is on its way).

import { MODULE_ID } from "../core/state.mjs";

/** The messages that go on the socket on v13 too: their sender must be one Foundry
 * vouches for (socketSender). */
export const SOCKET_ONLY = Object.freeze(["apply", "linked"]);

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

/** The id of the user who sent a module socket message, or null. `args` are the
 * handler's arguments after the message. The module always emits exactly one
 * argument, and Foundry's server adds the sender's id to it, so an honest
 * message reaches the handler as exactly (message, senderId). Where the server
 * puts the sender when a client emits more (after all of them, or second with
 * the rest forwarded) is not documented, and a forger's extra argument could
 * name another user: any other arity has no sender Foundry vouches for. */
export function socketSender(args) {
  if (args.length !== 1) return null;
  const [sender] = args;
  return typeof sender === "string" && game.users?.get(sender) ? sender : null;
}

/**
 * Send `message` ({type, …}) to the active GM's client, as this user's (`user`).
 * v13: the GM's answer (a promise); v12, and SOCKET_ONLY's on v13 too: the
 * socket, answered with null. Throws (key
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
  // an apply or a link only on the socket, whose sender Foundry vouches for
  if (hasQueries() && !SOCKET_ONLY.includes(message.type)) return gm.query(QUERY, data, { timeout: QUERY_TIMEOUT_MS });
  game.socket?.emit(SOCKET, data);
  return null;
}
