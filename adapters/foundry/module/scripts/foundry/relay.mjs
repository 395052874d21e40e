// Foundry glue: a player's client asking the GM's client (which holds the
// world's writing connection) for something — a roll mode note before a secret
// request, a card's "apply to selected" when the player has no connection of
// its own. On v13 through Foundry's queries (CONFIG.queries on the GM's side,
// User#query on the player's: the answer comes back), on v12 through the
// module's socket (fire and forget, as sockets are).

import { MODULE_ID } from "../core/state.mjs";

/** The query's name in CONFIG.queries (v13). */
export const QUERY = `${MODULE_ID}.relay`;
export const SOCKET = `module.${MODULE_ID}`;
export const QUERY_TIMEOUT_MS = 5000;

/** Whether this Foundry has queries (v13: CONFIG.queries and User#query). */
export function hasQueries() {
  return Boolean(/** @type {any} */ (globalThis).CONFIG?.queries) && typeof game.users?.activeGM?.query === "function";
}

/** The GM's side: answer relayed messages with `handler(message)` (v13 queries; v12 via onSocket). */
export function registerRelay(handler) {
  if (/** @type {any} */ (globalThis).CONFIG?.queries) /** @type {any} */ (CONFIG).queries[QUERY] = (data) => handler(data);
}

/**
 * Send `message` ({type, …, user}) to the active GM's client. v13: the GM's
 * answer (a promise); v12: the socket, answered with null. Throws (key
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
  if (hasQueries()) return gm.query(QUERY, data, { timeout: QUERY_TIMEOUT_MS });
  game.socket?.emit(SOCKET, data);
  return null;
}
