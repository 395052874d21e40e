// One page's session at one table: where the page is, the token it joins with,
// and the table as this viewer may see it, kept up to date from the protocol's
// events (as `rollbridge connect` keeps it: welcome, events in seq order,
// resume with epoch and seq after a drop — the shared Connection does that).
//
// The token comes typed in or from the address's fragment (#token=…), which
// the browser never sends to the server; takeToken removes it from the address
// bar at once. It is sent only inside `hello`. Once it joined, it is kept in the
// tab's sessionStorage (this tab only; a closed tab the browser brings back keeps
// it), so a reload — a phone bringing back a tab it discarded in the background —
// joins again; a refused one, or the player's who leaves, is forgotten
// (rememberToken, rememberedToken, forgetToken). A token not accepted yet is never
// kept so: a language chosen while it joins keeps it for that one reload only
// (keepTokenOnce, takeTokenOnce).

import { Connection } from "../client/connection.mjs";
import { isLocaleTag } from "../client/protocol.mjs";
import { LANGUAGES, i18n } from "./texts.mjs";
import { UndoTracker } from "../client/undo.mjs";
import { redact } from "../client/url.mjs";

/** The table id of a page's path: /tables/ID or /tables/ID/overlay. */
export function tableFromPath(pathname) {
  const found = /^\/tables\/([^/]+)(?:\/overlay)?\/?$/.exec(String(pathname));
  if (!found) return null;
  try {
    return decodeURIComponent(found[1]);
  } catch {
    return null;
  }
}

/** The WebSocket URL of the table on the page's own server. */
export function socketUrl(loc, table) {
  const scheme = loc.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${loc.host}/tables/${encodeURIComponent(table)}`;
}

/** The token of the address's fragment (#token=…), or null; the fragment is
 * removed from the address bar (and the history entry) either way. */
export function takeToken(loc = globalThis.location, hist = globalThis.history) {
  const hash = String(loc.hash || "");
  if (!hash) return null;
  const token = new URLSearchParams(hash.slice(1)).get("token");
  hist.replaceState(hist.state, "", loc.pathname + loc.search);
  return token && token.trim() ? token.trim() : null;
}

/** Where the tab keeps a table's token. */
const tokenKey = (table) => `rollbridge.token.${table}`;

/** The tab's storage, or null where it cannot be used (storage turned off). */
export function tabStorage(storage) {
  try {
    return storage ?? globalThis.sessionStorage ?? null;
  } catch {
    return null;
  }
}

/** Keep `value` under `key` in the tab's storage; nothing when it is full or refused
 * (a reload then asks for the token again). */
function keepInTab(key, value, storage) {
  try {
    tabStorage(storage)?.setItem(key, value);
  } catch {
    // storage full or refused
  }
}

/** Keep the token that joined `table` for this tab (its sessionStorage). */
export function rememberToken(table, token, storage = undefined) {
  keepInTab(tokenKey(table), token, storage);
}

/** The token this tab joined `table` with, or null. */
export function rememberedToken(table, storage = undefined) {
  try {
    const token = tabStorage(storage)?.getItem(tokenKey(table)) ?? null;
    return token && token.trim() ? token.trim() : null;
  } catch {
    return null;
  }
}

/** Forget this tab's token of `table` (the server refused it, or the player left). */
export function forgetToken(table, storage = undefined) {
  try {
    tabStorage(storage)?.removeItem(tokenKey(table));
  } catch {
    // nothing kept
  }
}

/** Where the tab keeps, for one reload only, a token the server has not accepted yet. */
const onceKey = (table) => `rollbridge.token-once.${table}`;

/** Keep `token`, which the server has not accepted yet (the page is still joining),
 * for the next load of this tab only: a language chosen while a typed token waits
 * for its `welcome` reloads the page, which joins with it once. */
export function keepTokenOnce(table, token, storage = undefined) {
  keepInTab(onceKey(table), token, storage);
}

/** The token kept for this one load (keepTokenOnce), or null; it is removed from
 * the tab as it is taken, so it never outlives this load: the server accepting it
 * keeps it (rememberToken), refusing it forgets it. */
export function takeTokenOnce(table, storage = undefined) {
  try {
    const kept = tabStorage(storage);
    const token = kept?.getItem(onceKey(table)) ?? null;
    kept?.removeItem(onceKey(table));
    return token && token.trim() ? token.trim() : null;
  } catch {
    return null;
  }
}

/** The viewer's language for the server's texts and the page's words: the first of
 * the browser's languages, in the viewer's order, that the page has its words in —
 * as the server reads Accept-Language (a Swiss browser's fr-CH, de-CH reads German,
 * not English); else the browser's first. */
export function browserLocale(nav = globalThis.navigator) {
  const asked = [...(nav?.languages ?? []), nav?.language].filter((lang) => isLocaleTag(lang));
  const base = (lang) => lang.toLowerCase().split(/[-_]/)[0];
  return asked.find((lang) => LANGUAGES.includes(base(lang))) ?? asked[0] ?? "en";
}

/** The GM's pending requests as a list: the welcome's table lists them
 * ({pending, ...request}); an event's table_after maps their ids to them. */
export function pendingList(value) {
  if (Array.isArray(value)) return value;
  return Object.entries(value ?? {}).map(([pending, entry]) => ({ pending, ...entry }));
}

/** The table's actors (a Map by id, in the table's order) after an event's actor
 * views: a removed one leaves, a changed one keeps its place, a new one goes last
 * — or, with `index` (an undone removal puts it back), where it stood. */
export function withActors(actors, views) {
  let after = actors;
  for (const actor of views) {
    if (actor.removed) after.delete(actor.id);
    else if (Number.isInteger(actor.index) && !after.has(actor.id)) {
      const entries = [...after];
      entries.splice(Math.max(0, Math.min(actor.index, entries.length)), 0, [actor.id, actor]);
      after = new Map(entries);
    } else after.set(actor.id, actor);
  }
  return after;
}

/** `map`'s own entry `name` (a key such as "constructor" names no word), else undefined. */
const own = (map, name) => (map && typeof map === "object" && Object.hasOwn(map, name) ? map[name] : undefined);

/** A word the ruleset gives (a string not empty), else null. */
const word = (value) => (typeof value === "string" && value.trim() ? value : null);

/** A parameter's key as people read it, where the ruleset gives no words for it: its
 * parts (snake_case, kebab-case, camelCase, digits) as words, the first capitalised —
 * `combat_pool` is *Combat pool*, `targetNumber` *Target number*, `max_TN` *Max TN*. */
export function humanised(key) {
  const words = String(key ?? "")
    .replace(/([\p{Ll}\d])(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, "$1 $2")
    .replace(/(\p{L})(\d)/gu, "$1 $2")
    .split(/[\s_\-.]+/u)
    .filter(Boolean)
    // an abbreviation (TN, HTML) stays as it is written
    .map((part) => (part.length > 1 && /^\p{Lu}+$/u.test(part) ? part : part.toLowerCase()));
  const text = words.join(" ");
  return text ? text[0].toLocaleUpperCase() + text.slice(1) : String(key ?? "");
}

/** A parameter `key` of the action `spec` (the welcome's) in the ruleset's words: its
 * `labels` (in the viewer's language), else its schema's `title`, else its key
 * humanised — never the bare key (*combat_pool*), in any language. */
export function paramLabel(spec, key) {
  return word(own(spec?.labels, key)) ?? word(own(own(spec?.params?.properties, key), "title")) ?? humanised(key);
}

/**
 * A parameter `key` of the action `spec` (the welcome's) and its `value` in the
 * ruleset's words — its `labels` and `choices` (paramLabel) — else as they are:
 * [label, value].
 * A choice is looked up as the form looks it up, by the value written as
 * JavaScript's `String` writes it: an enum's `null`, `true` or `3` too (bandits'
 * *No choice* read `null` in the GM's list of requests waiting, where the form said it
 * in words).
 */
function paramWords(spec, key, value) {
  const text = (word) => (typeof word === "string" && word ? word : null);
  const named = value === null || ["string", "number", "boolean"].includes(typeof value);
  const choice = named ? text(own(own(spec?.choices, key), String(value))) : null;
  return [paramLabel(spec, key), choice ?? value];
}

/** The name of the GM's *secret* box on an action's form (forms.mjs): no parameter's
 * (kept.mjs's isName: no colon), so it never stands for one; kept across a form built
 * anew and a language's reload as a parameter's value is (kept.mjs's keptForm). */
export const SECRET_BOX = "rollbridge:secret";

/**
 * The table as one viewer sees it. Listeners:
 * - onTable(session): actors, encounter, pending or undo state changed;
 * - onEvent(event, {replayed}): each event once, in seq order;
 * - onSnapshot(welcome, {first}): the table was taken afresh (first join, or a
 *   resume the server could not recover: events of the gap are not shown);
 * - onStatus(status, detail): the connection's status;
 * - onCursor({epoch, seq}): the last event seen.
 */
/** Names of actors no longer at the table a session keeps at most (Session#nameOf). */
const MAX_NAMES = 1_000;

export class Session {
  /** The names of the actors this session has seen, by id, the latest MAX_NAMES: an
   * actor no longer at the table (the GM's undo took back its creation) is named by its
   * name, not its id. */
  #names = new Map();

  constructor({ table, token, url, locale, listeners = {}, WebSocket }) {
    this.tableId = table;
    this.listeners = listeners;
    this.welcome = null;
    this.role = null;
    this.name = null;
    this.ruleset = null;
    this.table = {};
    this.actors = new Map();
    /** What the GM's undo and redo would take (the GM's table says; nothing for others). */
    this.history = new UndoTracker();
    this.snapshots = 0;
    this.connection = new Connection({
      url,
      table,
      token,
      locale,
      WebSocket,
      client: "rollbridge-web",
      idPrefix: "web",
      log: (level, text) => {
        if (level === "error" || level === "warn") console.warn(`rollbridge: ${redact(text, [token])}`);
      },
      onSnapshot: (welcome) => this.#snapshot(welcome),
      onWelcome: (welcome) => {
        this.#welcomed(welcome);
        // the buttons follow the stacks a recovered resume's welcome brought
        if (welcome.table?.undo_redo && this.snapshots) this.listeners.onTable?.(this);
      },
      onEvent: (event, how) => this.#apply(event, how),
      onStatus: (status, detail) => this.listeners.onStatus?.(status, detail),
      onCursor: (cursor) => this.listeners.onCursor?.(cursor),
    });
  }

  start() {
    this.connection.start();
  }

  stop() {
    this.connection.stop();
  }

  /** Send a request; resolves with the result, rejects with a RollbridgeError. */
  request(message) {
    return this.connection.request(message);
  }

  /** An actor's name — of an actor no longer at the table too, the name it had where
   * this session saw it (an event's views, a snapshot) — or *an actor* in the page's
   * words when the page never knew it (removed before the page joined, its creation
   * further back than the log the page loaded). The GM's undo of an NPC's creation was
   * heard as *undo of #3 (actor added): guard*, the NPC's id; and an actor the page
   * never saw was named by its id, a word no player reads. */
  nameOf(id) {
    return this.actors.get(id)?.name ?? this.#names.get(id) ?? i18n.localize("ROLLBRIDGE.Web.Actor.Unknown");
  }

  /** Note the names of `views` (actor records as events and snapshots carry them; a
   * removed actor's view names none). */
  noteNames(views) {
    for (const actor of Array.isArray(views) ? views : []) {
      if (typeof actor?.name !== "string" || !actor.name) continue;
      this.#names.delete(actor.id);
      this.#names.set(actor.id, actor.name);
    }
    while (this.#names.size > MAX_NAMES) this.#names.delete(this.#names.keys().next().value);
  }

  /** A track's label as the actor's card shows it (the server's, in the viewer's
   * language), or its key when the table does not know it. */
  trackLabel(actor, key) {
    const tracks = this.actors.get(actor)?.common?.tracks ?? [];
    return tracks.find((track) => track.key === key)?.label ?? String(key ?? "");
  }

  /** An action in the ruleset's words (the welcome's `label`), or its name. */
  actionLabel(action) {
    return this.ruleset?.actions?.[action]?.label || String(action ?? "");
  }

  /** Whether the ruleset keeps `action` secret whoever asks and however (the
   * welcome's action carries `"secret": true`: docs/plugins.md, "Secret actions"). */
  alwaysSecret(action) {
    return own(this.ruleset?.actions, action)?.secret === true;
  }

  /** An action's parameter `key` and its `value` in the ruleset's words (the
   * welcome's `labels` and `choices`), else as they are: [label, value]. */
  paramWords(action, key, value) {
    return paramWords(own(this.ruleset?.actions, action) ?? {}, key, value);
  }

  /** What the log's lines name in the table's words (eventSummary's `words`). */
  words() {
    return { trackLabel: (actor, key) => this.trackLabel(actor, key), actionLabel: (action) => this.actionLabel(action),
      paramWords: (action, key, value) => this.paramWords(action, key, value) };
  }

  /** The actors this viewer may act for: the GM all, a player those it controls. */
  controllable() {
    const all = [...this.actors.values()];
    if (this.role === "gm") return all;
    if (this.role !== "player") return [];
    return all.filter((actor) => (actor.controllers ?? []).includes(this.name));
  }

  #welcomed(welcome) {
    this.welcome = welcome;
    this.role = welcome.role;
    this.name = welcome.name;
    this.ruleset = welcome.ruleset ?? null;
    // a resume the server recovered has no snapshot, but the GM's welcome still says
    // what undo and redo take (the missed events that follow are in it already)
    if (welcome.table?.undo_redo) this.history.reset(welcome.table.undo_redo);
  }

  #snapshot(welcome) {
    this.#welcomed(welcome);
    const { actors = [], ...fields } = welcome.table ?? {};
    this.table = fields;
    this.actors = new Map(actors.map((actor) => [actor.id, actor]));
    this.noteNames(actors);
    this.history.reset(fields.undo_redo);
    this.snapshots += 1;
    this.listeners.onSnapshot?.(welcome, { first: this.snapshots === 1 });
    this.listeners.onTable?.(this);
  }

  /** The GM's pending requests follow the events that ask, approve and reject
   * (those events do not carry the table's pending list). */
  #followPending(event) {
    const data = event.data ?? {};
    const pending = pendingList(this.table.pending);
    let after = null;
    if (event.kind === "approval.requested" && data.pending) {
      after = [...pending.filter((p) => p.pending !== data.pending), { pending: data.pending, ...data.request }];
    } else if (event.kind === "approval.rejected" && data.pending) {
      after = pending.filter((p) => p.pending !== data.pending);
    } else if (data.approved) {
      after = pending.filter((p) => p.pending !== data.approved);
    }
    if (after === null) return false;
    this.table.pending = after;
    return true;
  }

  /** The table's actors read again with `state` (an event marked `reread`): the
   * reply is the table as of the latest event the connection sent before it, so it
   * replaces the actors whole. A refusal or a lost connection leaves them: the next
   * welcome brings the table, a resume the events after. */
  #reread() {
    this.request({ type: "state" }).then(
      (reply) => {
        const actors = reply?.table?.actors;
        if (!Array.isArray(actors)) return;
        this.actors = new Map(actors.map((actor) => [actor.id, actor]));
        this.noteNames(actors);
        this.listeners.onTable?.(this);
      },
      () => {},
    );
  }

  #apply(event, how) {
    const history = [this.history.latestUndo(), this.history.latestRedo(), this.history.known];
    this.history.see(event);
    let changed = [this.history.latestUndo(), this.history.latestRedo(), this.history.known]
      .some((value, index) => value !== history[index]);
    if (event.actors?.length) {
      this.noteNames(event.actors);
      this.actors = withActors(this.actors, event.actors);
      changed = true;
    }
    // a settings change at a table of too many NPCs to carry their new views: the
    // table's actors are read again (docs/protocol.md, "Visibility")
    if (event.reread) this.#reread();
    if (this.#followPending(event)) changed = true;
    if (event.table_after) {
      Object.assign(this.table, event.table_after);
      if ("pending" in event.table_after) this.table.pending = pendingList(event.table_after.pending);
      changed = true;
    }
    this.listeners.onEvent?.(event, how);
    if (changed) this.listeners.onTable?.(this);
  }
}
