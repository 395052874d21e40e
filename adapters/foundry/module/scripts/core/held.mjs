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
//
// The same player with the table open in two tabs of one browser shares the stored
// list with both: each change is merged into the list as stored, not written from the
// tab's own copy, and one tab at a time acts on the held requests, under Web Locks
// where the browser has them; without them a tab acts only on its own, as before
// (HeldRequests; docs/foundry.md, "Two tabs of one browser").

import { serversCode } from "./origin.mjs";

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

/** The held requests of one table, in memory and in a Web Storage shared by every
 * tab of the browser that has the table open (docs/foundry.md, "Two tabs of one
 * browser"). A change is never written from this tab's copy alone: the stored list is
 * read again and the change merged into it (add this tab's, drop what it settled), under
 * a Web Lock where the browser has them (`navigator.locks`). Acting on the held requests
 * (asking them again, posting the roller's card, dropping them) runs under another lock
 * of the same key (`acting`), so one tab at a time does it and the next one finds what
 * the first settled gone. Another tab's writes are read back at its `storage` event.
 * Without the lock a tab acts only on its own held requests (`actable`): two tabs
 * acting on one at once would both post its card. */
export class HeldRequests {
  constructor() {
    /** @type {Map<string, {message: any, epoch: number, floor: number, token: string}>} */
    this.entries = new Map();
    /** @type {{getItem: Function, setItem: Function, removeItem: Function} | null} */
    this.storage = null;
    this.key = null;
    this.table = null;
    /** @type {{request: Function} | null} the browser's Web Locks (`navigator.locks`), or null */
    this.locks = null;
    // the changes not written yet, in order: [id, entry] added, [id, null] dropped
    /** @type {Array<[string, any]>} */
    this.changes = [];
    // the ids this tab dropped: never taken back from the storage
    this.settled = new Set();
    // the ids this tab holds itself: held here, or taken back when it opened (a reload)
    this.mine = new Set();
    // whether this tab holds the exclusive lock of the key (acting)
    this.alone = false;
    // the write under way (under the lock), or null
    /** @type {Promise<void> | null} */
    this.saving = null;
    this.window = null;
    this.onStorage = (/** @type {any} */ event) => {
      if (event?.storageArea && event.storageArea !== this.storage) return; // sessionStorage's
      if (event?.key === this.key || event?.key === null) this.refresh();
    };
  }

  /**
   * Keep the held requests of table `table` in `storage` (a Web Storage, or null:
   * memory only) under `key`, and take back what it holds for that table (a reload);
   * what it holds for another table is dropped. `locks` (the browser's
   * `navigator.locks`, or null: none) orders this tab's writes and acts with the other
   * tabs'; `window` (an EventTarget, or null) tells of the other tabs' writes (its
   * `storage` event). Returns how many were taken back.
   * @param {{storage?: any, key: string, table: string | null, locks?: any, window?: any}} where
   */
  open({ storage = null, key, table, locks = null, window = null }) {
    this.window?.removeEventListener?.("storage", this.onStorage);
    this.entries.clear();
    this.changes = [];
    this.settled.clear();
    this.mine.clear();
    this.storage = storage;
    this.key = key;
    this.table = table ?? null;
    this.locks = typeof locks?.request === "function" ? locks : null;
    this.window = typeof window?.addEventListener === "function" ? window : null;
    this.window?.addEventListener("storage", this.onStorage);
    this.#merge([]); // another table's, or what is not this module's: dropped
    this.mine = new Set(this.entries.keys());
    return this.entries.size;
  }

  /** @param {string} id @param {{message: any, epoch: number, floor: number, token: string}} entry */
  set(id, entry) {
    this.entries.set(id, entry);
    this.settled.delete(id);
    this.mine.add(id);
    this.#change(id, entry);
  }

  /** @param {string} id */
  delete(id) {
    const had = this.entries.delete(id);
    this.settled.add(id);
    this.mine.delete(id);
    // dropped from the storage too, where another tab's write may have put it since
    this.#change(id, null);
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

  /**
   * The held requests this tab may act on now, [id, entry] pairs: all of them while
   * it holds the exclusive lock (`acting`), else only its own (held here, or taken back
   * when it opened). Another tab's, read back from the storage, are that tab's to act
   * on: without Web Locks both tabs would ask one again and both post its card.
   * @returns {Array<[string, {message: any, epoch: number, floor: number, token: string}]>}
   */
  actable() {
    return [...this.entries].filter(([id]) => this.alone || this.mine.has(id));
  }

  /** Read the stored list again (another tab's write): what it added is taken, what
   * it settled is dropped; this tab's changes not written yet stay. */
  refresh() {
    if (!this.storage || !this.key) return;
    const entries = this.#stored();
    for (const [id, entry] of this.changes) {
      if (entry) entries.set(id, entry);
      else entries.delete(id);
    }
    this.entries = entries;
  }

  /**
   * Run `run` as the one tab acting on the held requests: under the exclusive Web Lock
   * of the key, queued behind another tab's run, with the stored list read again first
   * (what the other tab settled is gone) and this tab's changes written before the lock
   * is released. Without Web Locks (none in this browser, or refused: said once on the
   * console, and not asked for again), `run` runs at once, as before, and acts on this
   * tab's own held requests alone (`actable`). Returns what `run` returns.
   * @template T
   * @param {() => Promise<T>} run
   * @returns {Promise<T>}
   */
  async acting(run) {
    if (!this.locks || !this.key) return run();
    let granted = false;
    try {
      return await this.locks.request(this.key, async () => {
        granted = true;
        this.refresh();
        this.alone = true;
        try {
          return await run();
        } finally {
          this.alone = false;
          await this.written();
        }
      });
    } catch (error) {
      if (granted) throw error;
      // refused (an opaque origin): so would every later request be, which is not made
      this.locks = null;
      console.warn(`rollbridge | no Web Lock for the held requests, asked without one: ${error?.message ?? error}`);
      return run();
    }
  }

  /** Resolves once the changes made so far are written. */
  async written() {
    while (this.saving) await this.saving;
  }

  /** The valid entries the storage holds for this table (none for another table's). */
  #stored() {
    const entries = new Map();
    let stored = null;
    try {
      stored = JSON.parse(this.storage?.getItem(this.key) ?? "null");
    } catch {
      stored = null; // not this module's JSON: nothing to take back
    }
    if (stored?.table === this.table && Array.isArray(stored.held)) {
      for (const pair of stored.held) {
        if (Array.isArray(pair) && isEntry(pair[0], pair[1]) && !this.settled.has(pair[0])) {
          const [id, { message, epoch, floor, token }] = pair;
          entries.set(id, { message, epoch, floor, token });
        }
      }
    }
    return entries;
  }

  /** @param {string} id @param {any} entry */
  #change(id, entry) {
    if (!this.storage || !this.key) return;
    this.changes.push([id, entry]);
    // merged at once, so that a reload or a closed tab right after loses nothing; with
    // Web Locks merged again under the lock, after any other tab's write under way
    this.#merge(this.changes);
    if (this.locks) this.#save();
    else this.changes = [];
  }

  /** Merge the changes again under the key's store lock (one such write at a time per
   * tab; what changed meanwhile is merged after it). */
  #save() {
    if (this.saving || !this.locks || !this.key) return;
    const key = this.key;
    const merge = () => {
      const changes = this.changes;
      this.changes = [];
      if (this.key === key) this.#merge(changes);
    };
    this.saving = this.locks
      .request(`${key}.store`, merge)
      .catch(merge) // refused (an opaque origin): merged without it
      .then(() => {
        this.saving = null;
        if (this.changes.length) this.#save();
      });
  }

  /** Read the stored list, apply this tab's changes to it and write it back (none left:
   * the key removed); the merged list is this tab's from then on. A storage that
   * refuses (full, or turned off by the browser) leaves them in this tab's memory only,
   * as before, and is not read again. */
  #merge(/** @type {Array<[string, any]>} */ changes) {
    if (!this.storage || !this.key) return;
    const merged = this.#stored();
    for (const [id, entry] of changes) {
      if (entry) merged.set(id, entry);
      else merged.delete(id);
    }
    this.entries = merged;
    try {
      if (merged.size) {
        this.storage.setItem(this.key, JSON.stringify({ table: this.table, held: [...merged] }));
      } else {
        this.storage.removeItem(this.key);
      }
    } catch (error) {
      // from then on memory only: read back, the stale list would drop what is held
      this.storage = null;
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
  return serversCode(error) === "not_remembered";
}

/**
 * The field a refusal of the server's own names, `invalid_request`'s `details.field`;
 * null for a ruleset's, which the server marks `details.origin: "ruleset"` whatever the
 * ruleset put there (docs/protocol.md, "Error codes"): a ruleset's own validation that
 * names a field `at`, `….repeat` or `….requester_sees` says nothing of the server's
 * log or version (core/rollmode.mjs refusesRequesterSees reads it too).
 * @param {any} error
 * @returns {string | null}
 */
export function serversField(error) {
  if (serversCode(error) !== "invalid_request") return null;
  const field = error.details?.field;
  return typeof field === "string" ? field : null;
}

/**
 * Whether a refusal of a request asked again with `repeat` is an older server's, which
 * knows no such field (`invalid_request` naming `foundry.roll.repeat` or
 * `foundry.resolve.repeat`, not a ruleset's: serversField): nothing was done, and the
 * module asks that server the way it did before, a `state` probe first.
 * @param {any} error
 */
export function repeatUnknown(error) {
  return serversField(error)?.endsWith(".repeat") === true;
}

/**
 * Whether a `state` probe's refusal says the table's log no longer reaches back to the
 * seq it asked for (`state.at` older than the retained log, the server's own refusal:
 * serversField): the server may have forgotten the reply of a request held since, and
 * asking again by its id could make it anew.
 * @param {any} error
 */
export function logMovedOn(error) {
  return serversField(error) === "at";
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
  return FOR_NOW.has(serversCode(error));
}
