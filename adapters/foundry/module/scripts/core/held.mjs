// A player's GM and self rolls the table holds for the GM's approval (the reply
// `{"status": "pending"}`), kept where a reload of the page finds them.
// Foundry-independent (tests/foundry/js/held.test.mjs).
//
// Approved, such a request's event reaches the roller's client as a `hidden`
// placeholder, and the roller's view of it comes only in the reply to the request
// asked again by its id (foundry/client.mjs #askHeld). Kept in page memory alone, a
// reload before the GM answered lost it, and with it the roller's card. So each
// change is written to the browser's `localStorage` (Web Storage, what Foundry keeps
// its own "client" settings in) under a key of the world and the user, and read back
// when the client starts (docs/foundry.md, "The player's side of an approval").
//
// Each entry is {message: the request as sent, epoch: the epoch it was held in,
// floor: the table's seq this client had seen before it sent the request, or the
// seq of the welcome a request made while the connection was not up waited for,
// token: the mark of the join token it was sent with (tokenMark)}. A request is
// asked again only to repeat (repeatOf: `"repeat": true`, docs/protocol.md): an id
// the server no longer remembers would otherwise be a new request, and the server
// refuses it `not_remembered` instead of running it. The floor is below the seq
// whose reply the server keeps for the request's id: with an older server, which
// refuses the field (repeatUnknown), the client asks whether the table's log still
// reaches back to it before it asks again, as it did before. An id asked with
// another token would be a new request too: the server scopes ids by the token that
// sent them (docs/engine.md, "Idempotency"), so a request is asked again only with
// the token it was sent with.

/** The Web Storage key of the held requests of `user` in world `world`. */
export function heldKey({ world, user }) {
  return `rollbridge.held.${String(world ?? "")}.${String(user ?? "")}`;
}

/**
 * A mark of join token `token`, to tell whether a held request was sent with the
 * token the client holds now: 8 hex digits of its 32-bit FNV-1a hash. It tells two
 * tokens apart and no more: the token is not kept, and cannot be had back from it.
 * @param {unknown} token
 */
export function tokenMark(token) {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(String(token ?? ""))) {
    hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

const KINDS = new Set(["foundry.roll", "foundry.resolve"]);

/** Whether `entry` (read back from storage, which anything on the page may have
 * written) is one this module wrote for request `id`. */
function isEntry(id, entry) {
  const message = entry?.message;
  return typeof id === "string" && message !== null && typeof message === "object" && message.id === id
    && KINDS.has(message.type) && Number.isSafeInteger(entry.epoch) && Number.isSafeInteger(entry.floor) && entry.floor >= 0
    && typeof entry.token === "string";
}

/** The held requests of one table, in memory and in a Web Storage. */
export class HeldRequests {
  constructor() {
    /** @type {Map<string, {message: any, epoch: number, floor: number, token: string}>} */
    this.entries = new Map();
    /** @type {{getItem: Function, setItem: Function, removeItem: Function} | null} */
    this.storage = null;
    this.key = null;
    this.table = null;
  }

  /**
   * Keep the held requests of table `table` in `storage` (a Web Storage, or null:
   * memory only) under `key`, and take back what it holds for that table (a reload);
   * what it holds for another table is dropped. Returns how many were taken back.
   * @param {{storage?: any, key: string, table: string | null}} where
   */
  open({ storage = null, key, table }) {
    this.entries.clear();
    this.storage = storage;
    this.key = key;
    this.table = table ?? null;
    let stored = null;
    try {
      stored = JSON.parse(storage?.getItem(key) ?? "null");
    } catch {
      stored = null; // not this module's JSON: nothing to take back
    }
    if (stored?.table === this.table && Array.isArray(stored.held)) {
      for (const pair of stored.held) {
        if (Array.isArray(pair) && isEntry(pair[0], pair[1])) {
          const [id, { message, epoch, floor, token }] = pair;
          this.entries.set(id, { message, epoch, floor, token });
        }
      }
    }
    this.#save();
    return this.entries.size;
  }

  /** @param {string} id @param {{message: any, epoch: number, floor: number, token: string}} entry */
  set(id, entry) {
    this.entries.set(id, entry);
    this.#save();
  }

  /** @param {string} id */
  delete(id) {
    const had = this.entries.delete(id);
    if (had) this.#save();
    return had;
  }

  /** @param {string} id */
  has(id) {
    return this.entries.has(id);
  }

  /** @param {string} id */
  get(id) {
    return this.entries.get(id);
  }

  get size() {
    return this.entries.size;
  }

  [Symbol.iterator]() {
    return this.entries[Symbol.iterator]();
  }

  /** Write the entries (none: the key removed). A storage that refuses (full, or
   * turned off by the browser) leaves them in memory only, as before. */
  #save() {
    if (!this.storage || !this.key) return;
    try {
      if (this.entries.size) {
        this.storage.setItem(this.key, JSON.stringify({ table: this.table, held: [...this.entries] }));
      } else {
        this.storage.removeItem(this.key);
      }
    } catch (error) {
      console.warn(`rollbridge | the held requests were not kept for a reload: ${error?.message ?? error}`);
    }
  }
}

/**
 * Held request `message` asked again only to repeat: the server answers its id's
 * remembered reply, and never runs it (docs/protocol.md, "A request that only repeats").
 * @param {any} message
 */
export function repeatOf(message) {
  return { ...message, repeat: true };
}

/**
 * Whether a refusal of a request asked again says the server does not remember its id
 * (`not_remembered`): never sent with this token, or answered too long ago. Nothing
 * was done; the request is dropped and the player told.
 * @param {any} error
 */
export function notRemembered(error) {
  return error?.code === "not_remembered";
}

/**
 * Whether a refusal of a request asked again with `repeat` is an older server's, which
 * knows no such field (`invalid_request` naming `foundry.roll.repeat` or
 * `foundry.resolve.repeat`): nothing was done, and the module asks that server the
 * way it did before, a `state` probe first.
 * @param {any} error
 */
export function repeatUnknown(error) {
  const field = error?.details?.field;
  return error?.code === "invalid_request" && typeof field === "string" && field.endsWith(".repeat");
}

/**
 * Whether a `state` probe's refusal says the table's log no longer reaches back to the
 * seq it asked for (`state.at` older than the retained log): the server may have
 * forgotten the reply of a request held since, and asking again by its id could make
 * it anew.
 * @param {any} error
 */
export function logMovedOn(error) {
  return error?.code === "invalid_request" && error?.details?.field === "at";
}

/** Refusals that say nothing of the request itself: nothing was done, or the server
 * failed reading or answering (docs/protocol.md, "Errors": `busy` and `rate_limited`
 * past the connection's own retries, `store_error`, `internal`, after which "the same
 * request id sent again gets its result"). */
const FOR_NOW = new Set(["busy", "rate_limited", "store_error", "internal"]);

/**
 * Whether a probe of a held request, or the request asked again, was refused for now
 * (FOR_NOW): not the server's answer about it, so it stays held and is asked again at
 * the next welcome or placeholder; dropped, the player would never get its card.
 * @param {any} error
 */
export function refusedForNow(error) {
  return FOR_NOW.has(error?.code);
}
