// Who connects, who writes, and what gets written: the module's rules for
// applying the server's state to Foundry actors.
//
// Foundry-independent (tests/foundry/js/state.test.mjs). The Foundry glue
// passes plain objects: a user {id, isGM}, the active GM (or null), actors
// {id, flags}.
//
// - Only the active GM's client connects with the GM token and writes world
//   data (actor flags, system data, chat cards); other GMs stay off (one writer
//   per world); players may connect with a player token for their own rolls.
// - Each rollbridge actor maps onto a Foundry actor: the one whose
//   flags.rollbridge.actorId names it, else the one with the same id (actors
//   the module adds to a table keep their Foundry id at the server).
// - An unlinked token's synthetic actor (Actor#isToken) shares its base
//   actor's id, so it is keyed by its token's UUID instead
//   ("Scene.<id>.Token.<id>"): each goblin on a scene is its own rollbridge
//   actor. Its link lives in its token's delta (an update of a synthetic actor
//   writes the delta, never the base actor); a link it inherits from its base
//   actor's flags is not its own and is ignored.
// - An actor's update is the adapter's `foundry.flags` (the common state under
//   flags.rollbridge) plus, when a system mapping applies, its
//   `foundry.systems[mapping]` paths. Foundry sends every actor, flags and system
//   data included, to every client, whatever its ownership: so the flags hold the
//   players' view of the actor (the `players` copy of the GM's event), and the
//   system paths the GM's view only where the GM chose the mapping by hand.
// - The panels draw this client's own connection's view where it has one (the
//   GM's full view on the GM's client: ActorViews), else the flags.

import { HOOK_KINDS, hookCard } from "./hooks.mjs";
import { requestUser } from "./protocol.mjs";

export const MODULE_ID = "rollbridge";

/** Foundry system id → the mapping `auto` picks. */
export const AUTO_MAPPINGS = { shadowrun5e: "sr5", swade: "swade" };

/** Whether the GM chose the mapping by hand (not `auto`, not `none`): its system paths
 * are then written from the GM's view of every actor (actorUpdate). */
export function mappingChosen(setting) {
  return Boolean(setting) && setting !== "auto" && setting !== "none";
}

/** The mapping to write: the setting, or for `auto` the one of the world's system. */
export function chooseMapping(setting, systemId) {
  if (!setting || setting === "auto") return AUTO_MAPPINGS[systemId] ?? "none";
  return setting;
}

/** Whether this user is the one GM whose client writes world data. */
export function isActiveGM(user, activeGM) {
  return Boolean(user?.isGM && activeGM && activeGM.id === user.id);
}

/**
 * Whether this client connects, and why not when it does not.
 * @returns {{connect: boolean, writer: boolean, reason: string|null}}
 */
export function connectPlan({ user, activeGM, token, url }) {
  if (!url) return { connect: false, writer: false, reason: "no-url" };
  if (!token) return { connect: false, writer: false, reason: "no-token" };
  if (user?.isGM) {
    if (isActiveGM(user, activeGM)) return { connect: true, writer: true, reason: null };
    return { connect: false, writer: false, reason: "not-active-gm" };
  }
  return { connect: true, writer: false, reason: null };
}

/** Whether a Foundry actor is an unlinked token's synthetic actor (Actor#isToken). */
export function isSynthetic(actor) {
  return Boolean(actor?.isToken && actor?.token);
}

/** A synthetic actor's own link: the actorId in its token's delta (not one inherited from its base actor). */
function ownLink(actor) {
  return actor.token.delta?.flags?.[MODULE_ID]?.actorId ?? null;
}

/** The rollbridge actor id of a Foundry actor: a synthetic actor's own link, else
 * its token's UUID; a world actor's link, else its id. */
export function rollbridgeIdOf(actor) {
  if (isSynthetic(actor)) return ownLink(actor) ?? actor.token.uuid ?? null;
  return actor?.flags?.[MODULE_ID]?.actorId ?? actor?.id ?? null;
}

/** Whether a Foundry actor stands for an actor of the table (it carries its own link). */
export function isOnTable(actor) {
  if (isSynthetic(actor)) return Boolean(ownLink(actor));
  return Boolean(actor?.flags?.[MODULE_ID]?.actorId);
}

/** The rollbridge id a Foundry actor gets when the module puts it on a table:
 * a synthetic actor its token's UUID, a world actor its own id. */
export function tableIdFor(actor) {
  return isSynthetic(actor) ? actor.token.uuid : actor.id;
}

/** The flags.rollbridge of an actor that a HUD or sheet panel may draw from, or
 * null: none for a removed actor, none a synthetic actor only inherits from its base. */
export function panelFlags(actor) {
  const flags = actor?.flags?.[MODULE_ID];
  if (!flags?.actorId || flags.removed) return null;
  if (isSynthetic(actor) && flags.actorId !== ownLink(actor)) return null;
  return flags;
}

/** Whether flags.rollbridge hold what every client may read: the players' view the
 * GM's client writes (`view: "players"`), or a limited view. An older module wrote the
 * GM's view there, unmarked: such flags are never drawn. */
export function publicFlags(flags) {
  return Boolean(flags && (flags.view === "players" || flags.limited === true));
}

/**
 * The epochs of the flags a HUD or sheet panel of `actors` would draw from
 * (panelFlags), each once: what ActorViews#reset takes as earlier than a welcome's.
 * @param {Iterable<any>} actors
 * @returns {number[]}
 */
export function flagEpochs(actors) {
  const epochs = new Set();
  for (const actor of actors) {
    const epoch = panelFlags(actor)?.epoch;
    if (Number.isInteger(epoch)) epochs.add(epoch);
  }
  return [...epochs];
}

/**
 * What a HUD or sheet panel draws for an actor, or null: `common`, its common state
 * (null: nothing), and `from`, where it comes from — "connection" or "flags". `live`
 * (ActorViews) holds the views this client's own connection received: the GM's
 * full view on the GM's client, a player's own on a player's; it is drawn where it
 * has the actor, unless the flags are newer (flagsNewer). Else the actor's flags,
 * as every client reads them: only the players' view (publicFlags), never an older
 * module's GM's view (`from` null: nothing drawn). A GM's panel drawn from the flags
 * thus shows the players' view (a reload before the connection's welcome, a second
 * GM, whose client does not connect): the panel says so (foundry/hud.mjs).
 * @param {any} actor
 * @param {ActorViews | null} [live]
 * @returns {{common: any, from: "connection" | "flags" | null} | null}
 */
export function panelView(actor, live = null) {
  const flags = panelFlags(actor);
  if (!flags) return null;
  const seen = live?.get(flags.actorId) ?? null;
  if (seen && !flagsNewer(flags, seen, live)) return { common: seen.removed ? null : seen.common ?? null, from: "connection" };
  return publicFlags(flags) ? { common: flags.common ?? null, from: "flags" } : { common: null, from: null };
}

/** Whether an actor's flags (the players' view the GM's client wrote) come from a
 * later event than this client's own view of it: a player's connection that is down
 * or slower than Foundry's update keeps an older view, which must not be drawn over
 * the newer state. Of two epochs (a table restored, a Redis failover's fence) the
 * seqs say nothing of their order, and the protocol promises no order of their
 * numbers either (two restores of one backup may get a later epoch that is smaller):
 * flags of an epoch this client's connection saw before its view's, or that the flags
 * already held when a welcome of another came (ActorViews#reset), are older; of an
 * epoch it never saw, the larger number is taken for the later (a new epoch is a time
 * in milliseconds). Flags without an epoch are an older module's, written before this
 * version's page (every client of a world runs one version, and this version's GM
 * always writes the epoch): never newer than a view that has one. On the GM's client,
 * which writes the flags from its own events, they are never newer. */
function flagsNewer(flags, seen, live) {
  if (!publicFlags(flags)) return false;
  if (Number.isInteger(seen.epoch) && !Number.isInteger(flags.epoch)) return false;
  if (Number.isInteger(flags.epoch) && Number.isInteger(seen.epoch) && flags.epoch !== seen.epoch) {
    if (live?.sawBefore(flags.epoch, seen.epoch)) return false;
    return flags.epoch > seen.epoch;
  }
  return Number.isInteger(flags.seq) && Number.isInteger(seen.seq) && flags.seq > seen.seq;
}

/**
 * The latest view of each actor of the table as this client's connection received
 * it (the welcome's table, then each live event's actors; a resume's replayed
 * events are older than the welcome and are not taken). Kept in memory only: the
 * panels draw it on this client, nothing writes it anywhere.
 */
export class ActorViews {
  constructor() {
    this.views = new Map();
    /** @type {number[]} the epochs the connection's welcomes and events were of, in the order they came */
    this.epochs = [];
  }

  /** The table's actors afresh (a welcome's, of the welcome's `epoch`). `before`: the
   * epochs of the flags the actors held as the welcome came (flagEpochs), taken as seen
   * before the welcome's: a welcome is the table as it is now, so flags of another
   * epoch already there are of an earlier one, whatever its number (a page loaded after
   * two restores of one backup, the second with the smaller epoch). */
  reset(actors, epoch = null, before = []) {
    this.views.clear();
    const era = Number.isInteger(epoch) ? epoch : null;
    const earlier = before.filter((e) => Number.isInteger(e) && e !== era && !this.epochs.includes(e));
    if (earlier.length) this.epochs = [...this.epochs.filter((e) => e !== era), ...earlier];
    this.see(actors, epoch);
  }

  /** Whether this client's connection saw epoch `earlier` before `later` (both seen,
   * `earlier` first): the order they came in, not that of their numbers. */
  sawBefore(earlier, later) {
    const at = this.epochs.indexOf(earlier);
    return at >= 0 && this.epochs.indexOf(later, at + 1) > at;
  }

  /** An event's actors (of the event's `epoch`): each one's new view, or its removal,
   * with the seq the dialect gives it (its `foundry` flags': the event's, the welcome's). */
  see(actors, epoch = null) {
    const era = Number.isInteger(epoch) ? epoch : null;
    if (era !== null && this.epochs.at(-1) !== era) this.epochs = [...this.epochs.filter((e) => e !== era), era];
    for (const view of Array.isArray(actors) ? actors : []) {
      if (!view || typeof view.id !== "string") continue;
      const seq = view.foundry?.flags?.[MODULE_ID]?.seq ?? null;
      const mark = { seq, epoch: era };
      this.views.set(view.id, view.removed ? { removed: true, ...mark } : { common: view.common ?? null, view, ...mark });
    }
  }

  /** The view of a rollbridge actor id, or null when this client has none: its
   * `common` state, the whole actor view it came as (`view`: its `foundry` dialect
   * included, what an event's write reads), its seq and epoch; or `{removed: true}`. */
  get(id) {
    return this.views.get(id) ?? null;
  }

  /** Everything forgotten (the connection stopped: another table's epochs are another log's). */
  clear() {
    this.views.clear();
    this.epochs = [];
  }
}

/** The Foundry actor (from `actors`, any iterable: world actors and unlinked
 * tokens' synthetic actors) for a rollbridge actor id. */
export function findActor(rollbridgeId, actors) {
  if (!rollbridgeId) return null;
  let sameId = null;
  for (const actor of actors) {
    if (isSynthetic(actor)) {
      if (rollbridgeIdOf(actor) === rollbridgeId) return actor;
      continue;
    }
    const linked = actor?.flags?.[MODULE_ID]?.actorId;
    if (linked === rollbridgeId) return actor;
    if (!linked && actor?.id === rollbridgeId) sameId = actor;
  }
  return sameId;
}

/** The system paths a mapping writes through the system's own status effects
 * (Actor#toggleStatusEffect), not as raw data: SWADE derives isShaken and
 * isIncapacitated from its "shaken" and "incapacitated" status effects. */
export const STATUS_PATHS = {
  swade: { "system.status.isShaken": "shaken", "system.status.isIncapacitated": "incapacitated" },
};

const isPlainObject = (v) => Boolean(v) && typeof v === "object" && !Array.isArray(v);

/**
 * The update keys that make `prefix` hold exactly `next` where it held
 * `current`: changed values set, objects walked, arrays replaced whole, and
 * every key `current` has and `next` lacks deleted with Foundry's `-=` key
 * (`flags.rollbridge.-=common: null`), so nothing of the old value stays merged in.
 */
export function replaceKeys(prefix, current, next, out = {}) {
  if (!isPlainObject(current) || !isPlainObject(next)) {
    out[prefix] = next;
    return out;
  }
  for (const [key, value] of Object.entries(next)) {
    const old = current[key];
    if (isPlainObject(old) && isPlainObject(value)) replaceKeys(`${prefix}.${key}`, old, value, out);
    else if (JSON.stringify(old) !== JSON.stringify(value)) out[`${prefix}.${key}`] = value;
  }
  for (const key of Object.keys(current)) {
    if (!(key in next)) out[`${prefix}.-=${key}`] = null;
  }
  return out;
}

/**
 * Whether `source` (a document's source data) holds every change of `update` (Actor#update
 * data: dotted keys, nested objects merged, `-=` keys deleting) already: each value
 * there as the update sets it (objects walked, other values compared as replaceKeys
 * does), each deleted key gone. Foundry leaves out of an operation's answer a document
 * it skipped — refused by the system's data model, stopped by a preUpdate hook, or
 * with nothing to change — and only this tells the last from the others.
 * @param {any} source
 * @param {Record<string, any>} update
 * @returns {boolean}
 */
export function holdsUpdate(source, update) {
  return Object.entries(update ?? {}).every(([key, value]) => {
    const path = key.split(".");
    const last = path.pop() ?? "";
    const parent = path.reduce((at, part) => (isPlainObject(at) ? at[part] : undefined), source);
    if (last.startsWith("-=")) return !(isPlainObject(parent) && Object.hasOwn(parent, last.slice(2)));
    const held = isPlainObject(parent) ? parent[last] : undefined;
    if (isPlainObject(value)) return isPlainObject(held) && holdsUpdate(held, value);
    return JSON.stringify(held) === JSON.stringify(value);
  });
}

/** Whether a GM's view of an actor is an NPC's: no player controls it (the server's
 * views give the GM `controllers`; a view without them is taken for an NPC's). */
export function isNpcView(view) {
  return !(Array.isArray(view?.controllers) && view.controllers.length > 0);
}

/**
 * The players' view of each actor of an event, from the `players` copy a GM's frame
 * carries (the same event as a player is sent it; of a GM-only event, the `hidden`
 * event players receive, with their views of its actors; of a GM's welcome, the NPCs
 * as players see them): rollbridge id → actor view; an empty map when the frame has
 * none (an older server's welcome, another server).
 * @returns {Map<string, any>}
 */
export function playersActors(event) {
  const out = new Map();
  for (const view of event?.players?.actors ?? []) {
    if (view && typeof view.id === "string") out.set(view.id, view);
  }
  return out;
}

/**
 * The view of an actor whose flags every client may read: the players' view.
 * `players` is the same actor in the event's players' copy, when there is one; else
 * the writer's own view serves when it is a players' view already (limited) or
 * shows a player's character (players see it in full). null: an NPC whose players'
 * view the writer does not have (a welcome's, an older server's GM-only event's).
 */
export function publicView(view, players = null) {
  if (players?.foundry?.flags?.[MODULE_ID]) return players;
  const own = view?.foundry?.flags?.[MODULE_ID];
  if (own && (own.limited || !isNpcView(view))) return view;
  return null;
}

/** The flags an actor's view makes: the players' view marked so, a removed actor's
 * mark, or for an NPC whose players' view is not at hand its id and name alone
 * (`withheld`: its panel draws nothing for a player until a players' view comes).
 * A withheld actor's `common` is null, not deleted: an unlinked token's flags are its
 * delta's over its base actor's, and a key the delta lacks shows the base's. `epoch`
 * (the event's or the welcome's, when known) is kept beside the seq: a player's
 * client compares both with its own view's (flagsNewer). */
function flagsOf(view, players, epoch) {
  const own = view.foundry.flags[MODULE_ID];
  const era = Number.isInteger(epoch) ? { epoch } : {};
  if (own.removed) return { ...own, ...era };
  const shown = publicView(view, players);
  if (shown) return { ...shown.foundry.flags[MODULE_ID], ...era, view: "players" };
  return { ...own, ...era, common: null, limited: true, view: "players", withheld: true };
}

/**
 * The view whose system paths a mapping writes: the GM's own when the GM chose the
 * mapping by hand (`chosen`: system data is the actor's data, which Foundry sends to
 * every client, and the GM asked for the system's sheets to show it), else the
 * players' view (publicView), so that `auto` never writes there what players may not
 * see. null: nothing to write.
 */
function systemsOf(view, players, chosen) {
  return chosen ? view : publicView(view, players);
}

/** The system mappings a welcome describes (`foundry.mappings`, mappings.py describe),
 * by id; none without a welcome or from a server that sends none. */
export function mappingsById(welcome) {
  const out = {};
  for (const described of welcome?.foundry?.mappings ?? []) {
    if (typeof described?.id === "string") out[described.id] = described;
  }
  return out;
}

/**
 * What `actor` holds now at a system path of `mapping`: for a path written as a
 * status effect (STATUS_PATHS), whether the effect is on; else the value at the path
 * (`system.wounds.value`: the actor's `system.wounds.value`).
 */
function heldAt(actor, mapping, path) {
  const status = STATUS_PATHS[mapping]?.[path];
  if (status) return Boolean(actor?.statuses?.has?.(status));
  return path.split(".").reduce((at, part) => (isPlainObject(at) ? at[part] : undefined), actor);
}

/**
 * The system paths `auto` wrote from an actor's earlier flags (`current`, as this
 * module or an older one left them), each with the value of an undamaged actor: a
 * track 0, a condition false. `described` is the mapping as the welcome describes it
 * (`foundry.mappings`, adapters/foundry/mappings.py describe). `auto` wrote a mapping's
 * paths exactly when the flags' common state had every track it requires (the
 * players' view of a player's character, of an NPC whose details the table showed,
 * or an older module's GM's view): those paths, no others. null: it wrote none.
 * Given the Foundry `actor`, a path is left where the actor no longer holds what
 * `auto` wrote there (the track's value, whether the condition was present): the GM
 * set it by hand on the sheet since, and it is the GM's.
 * @param {any} described
 * @param {any} current
 * @param {any} [actor]
 * @returns {Record<string, number | boolean> | null}
 */
export function stalePaths(described, current, actor = undefined) {
  const tracks = new Map((current?.common?.tracks ?? []).map((track) => [track?.key, track?.value]));
  const requires = Array.isArray(described?.requires) ? described.requires : [];
  if (!requires.length || !requires.every((key) => tracks.has(key))) return null;
  const present = new Set((current?.common?.conditions ?? []).map((c) => String(c).toLowerCase()));
  const wrote = (path, value) => actor === undefined || JSON.stringify(heldAt(actor, described.id, path)) === JSON.stringify(value);
  /** @type {Record<string, number | boolean>} */
  const out = {};
  for (const [key, path] of Object.entries(described.tracks ?? {})) {
    if (tracks.has(key) && wrote(String(path), tracks.get(key))) out[String(path)] = 0;
  }
  for (const [condition, path] of Object.entries(described.conditions ?? {})) {
    if (wrote(String(path), present.has(condition.toLowerCase()))) out[String(path)] = false;
  }
  return out;
}

/**
 * What `auto` resets of an actor's system data when the GM switches to it from a
 * mapping chosen by hand, which wrote the GM's view of every actor, NPCs included
 * (stalePaths' form, for the mapping `described`): of an actor whose players' view
 * (its flags) fills none of the mapping's paths, those that still hold the GM's
 * values — `gm`, this connection's view of the actor (ActorViews) — and not a value
 * the GM typed since. null: nothing (a player's character, an NPC whose players' view
 * shows its tracks, a removed actor, no GM's view at hand).
 * @param {any} described
 * @param {any} flags
 * @param {any} gm
 * @param {any} actor
 * @returns {Record<string, number | boolean> | null}
 */
export function chosenLeftovers(described, flags, gm, actor) {
  if (!flags || flags.removed || stalePaths(described, flags) || !gm?.common) return null;
  return stalePaths(described, gm, actor);
}

/**
 * What a reset of a mark the GM's record cannot vouch for (a `mapped` flag a module
 * from before 7 December 2026, night, wrote, which a player who owned the actor could
 * have written too) takes of `actor`'s system data under `auto`, for the mapping
 * `described`: of an actor whose players' view (its flags) fills none of the mapping's
 * paths, every path holding a value other than an undamaged actor's (a track not 0, a
 * condition true), set to it — compared with nothing of the GM's view, so which values
 * it took tells nothing of any actor's. null: nothing (as chosenLeftovers).
 * @param {any} described
 * @param {any} flags
 * @param {any} actor
 * @returns {Record<string, number | boolean> | null}
 */
export function blindLeftovers(described, flags, actor) {
  if (!flags || flags.removed || stalePaths(described, flags)) return null;
  /** @type {Record<string, number | boolean>} */
  const out = {};
  for (const path of Object.values(described?.tracks ?? {})) {
    const held = heldAt(actor, described.id, String(path));
    if (held !== undefined && held !== 0) out[String(path)] = 0;
  }
  for (const path of Object.values(described?.conditions ?? {})) {
    if (heldAt(actor, described.id, String(path)) === true) out[String(path)] = false;
  }
  return out;
}

/**
 * The system paths a mapping writes for one actor view (null: none): those of the
 * view systemsOf picks. Under `auto`, a view that fills none of them (an NPC whose
 * details the players' view no longer shows, or one withheld) resets what `auto`
 * wrote from the actor's earlier flags (stalePaths), unless `reset` is false: a value
 * players could read once must not stay readable after the table stopped showing
 * it, nor stand as the NPC's state when it no longer follows its damage. `actor`, the
 * Foundry actor, keeps a value the GM set by hand since (stalePaths).
 */
function mappedPaths(view, mapping, { players = null, chosen = false, current = null, mappings = null, reset = true, actor = undefined } = {}) {
  if (!mapping || mapping === "none") return null;
  const paths = systemsOf(view, players, chosen)?.foundry?.systems?.[mapping];
  if (paths) return paths;
  return chosen || !reset ? null : stalePaths(mappings?.[mapping], current, actor);
}

/**
 * The Actor#update data for one actor view of an event (null: nothing to write),
 * written by the GM's client. The flags under flags.rollbridge, which every client
 * receives, hold the players' view of the actor (flagsOf), never the GM's view of an
 * NPC: `options.players` is the same actor in the event's players' copy. They are
 * replaced, not merged: `current` is the actor's flags.rollbridge now, and what the
 * new flags lack is deleted (a removed actor keeps only its id and `removed` mark;
 * an older module's GM's view goes at the first write). A mapping adds its system
 * paths (mappedPaths: `options.chosen` says the GM chose it by hand; under `auto`,
 * `options.mappings`, the welcome's descriptions by id, tells what to reset where
 * the new view fills none, and `options.actor`, the Foundry actor, which of those
 * paths still hold what `auto` wrote), except those written as status effects
 * (statusChanges).
 * `options.epoch` is the epoch of the event or welcome the view came with, kept in
 * the flags.
 */
export function actorUpdate(actorView, mapping, current = null, { players = null, chosen = false, epoch = null, mappings = null, reset = true, actor = undefined } = {}) {
  if (!actorView?.foundry?.flags?.[MODULE_ID]) return null;
  const flags = flagsOf(actorView, players, epoch);
  const paths = flags.removed ? null : mappedPaths(actorView, mapping, { players, chosen, current, mappings, reset, actor });
  // that a mapping chosen by hand wrote the GM's values here is kept in the GM's record
  // (foundry/marks.mjs), never in the flags, which a player who owned the actor could
  // write: the flags as they are replaced drop an older module's `mapped` mark
  const update = isPlainObject(current)
    ? replaceKeys(`flags.${MODULE_ID}`, current, flags)
    : { [`flags.${MODULE_ID}`]: flags };
  if (flags.removed) return update;
  const statuses = STATUS_PATHS[mapping] ?? {};
  for (const [path, value] of Object.entries(paths ?? {})) {
    if (!(path in statuses)) update[path] = value;
  }
  return update;
}

/** The status effects a mapping sets for one actor view: [{status, active}], from the
 * same paths as actorUpdate's (`options.current`: the actor's flags before that update). */
export function statusChanges(actorView, mapping, options = {}) {
  const flags = actorView?.foundry?.flags?.[MODULE_ID];
  if (!flags || flags.removed) return [];
  const paths = mappedPaths(actorView, mapping, options) ?? {};
  return Object.entries(STATUS_PATHS[mapping] ?? {})
    .filter(([path]) => path in paths)
    .map(([path, status]) => ({ status, active: Boolean(paths[path]) }));
}

/** Whether `event` is a request's own card (a roll's or a resolution's), not a
 * turn hook's card nor another kind's: the only cards a player's client posts. */
function requestCard(event) {
  return (event.kind === "roll" || event.kind === "resolution") && !Number.isInteger(event.hook);
}

/**
 * Whether this client posts the chat card of an event.
 * The writer (active GM) posts every roll and resolution; a player posts its
 * own request's card only while no GM is in the world (else the GM's client
 * does, possibly later, after it resumes).
 */
export function shouldPostCard({ event, writer, gmPresent, ownRequests }) {
  if (!event || !requestCard(event)) return false;
  if (writer) return true;
  if (gmPresent) return false;
  return Boolean(event.request && ownRequests?.has(event.request));
}

/**
 * Whether the world's chat (`messages`, any iterable of messages with `flags`)
 * already holds the card of `event` (same table, epoch, seq and kind, and for a
 * turn hook's card the same hook: core/hooks.mjs): a player's client posts its
 * own request's card while no GM is active (a GM's reload, a dropped
 * connection), and the GM's client, resuming from its saved cursor, gets the
 * same event again. A roller's own card of a GM or self roll (flags
 * `requester`; before the flag, secret in the players' view) is not the card of
 * the event: the GM's client still posts its GM's view. `trusted(message)` says
 * whether a card's author could have posted it (cardTrusted): a look-alike a
 * player posted is not the event's card.
 * @param {Iterable<any> | null | undefined} messages
 * @param {any} event
 * @param {(message: any) => boolean} [trusted]
 * @returns {boolean}
 */
export function cardPosted(messages, event, trusted = () => true) {
  if (!event || event.seq === undefined || event.seq === null) return false;
  const table = event.table ?? null;
  const hook = Number.isInteger(event.hook) ? event.hook : null;
  for (const message of messages ?? []) {
    const flags = message?.flags?.[MODULE_ID];
    if (!flags || flags.seq !== event.seq || flags.epoch !== event.epoch) continue;
    if ((flags.table ?? null) !== table || flags.kind !== event.kind) continue;
    if ((Number.isInteger(flags.hook) ? flags.hook : null) !== hook) continue;
    if (flags.requester || (flags.secret && flags.view === "players")) continue;
    if (!trusted(message)) continue;
    return true;
  }
  return false;
}

/**
 * Whether a card in the world's chat may stand for the card of `event` (cardPosted's
 * `trusted`). A GM's card always may (`gmAuthored`). A player's only as the module
 * lets a player post one (shouldPostCard): the card of the player's own request,
 * posted while no GM was active. So it must name the event's request
 * (`flags.request`, a random id only the requester's client knows before the
 * server's event), its author (Foundry's, which a player cannot choose) must be the
 * user the request's id names (core/protocol.mjs requestUser: the requester's
 * client made the id; every client receives it with the event, so another player
 * could name it too), it must be a roll's or a resolution's own card (never a turn
 * hook's, which only the writer posts), and the event must not have reached this
 * client `live` as the writer: a GM's client connected when the event happened was
 * the active GM then, so no player's client posted its card. A player's look-alike
 * posted ahead of an event (its seq is the next one), or naming another player's
 * request, thus never keeps the GM's client (or the requester's) from posting.
 * @param {any} message  a ChatMessage (its `flags`, and its `author`: a User, or its id)
 * @param {any} event    the event whose card is looked for
 * @param {{gmAuthored: boolean, live: boolean}} options
 * @returns {boolean}
 */
export function cardTrusted(message, event, { gmAuthored, live }) {
  if (gmAuthored) return true;
  // a turn hook's card only the writer posts (the requester's client never does)
  if (live || !event || !requestCard(event)) return false;
  const request = message?.flags?.[MODULE_ID]?.request;
  if (typeof event?.request !== "string" || request !== event.request) return false;
  const author = message?.author?.id ?? message?.author ?? null;
  const requester = requestUser(event.request);
  return requester !== null && author === requester;
}

/** The speaker (Foundry's ChatMessage speaker) for a rollbridge actor id: a
 * synthetic actor speaks as its token (scene, token, base actor id). */
export function speakerFor(rollbridgeId, actors, alias) {
  const actor = findActor(rollbridgeId, actors);
  if (!actor) return alias ? { alias } : {};
  if (isSynthetic(actor)) {
    const token = actor.token;
    return { scene: token.parent?.id ?? null, token: token.id, actor: actor.id, alias: token.name ?? actor.name ?? alias };
  }
  return { actor: actor.id, alias: actor.name ?? alias };
}

/** The common tracks as rows for a HUD or sheet panel. */
export function trackRows(common) {
  const rows = [];
  for (const track of common?.tracks ?? []) {
    const max = Number(track.max) || 0;
    const value = Math.max(0, Number(track.value) || 0);
    rows.push({
      key: String(track.key ?? ""),
      label: String(track.label ?? track.key ?? ""),
      value,
      max,
      ratio: max > 0 ? Math.min(1, value / max) : 0,
    });
  }
  return rows;
}

// -- each viewer's card in its own language -----------------------------------------
//
// Every client with a token holds its own connection and receives each event
// (same table, epoch and seq) rendered by the server in its own locale and as
// its own audience may see it (a player gets the players' view; a GM-only
// event reaches a player only as `kind: "hidden"`). The writer posts the card
// once, in its language; a viewer whose language differs draws the card again
// from the event its own connection received. core/ decides, the glue draws.
//
// Whose view a card is in: a public card is read by players, so it is posted
// from the players' view (the GM's event carries it as `players`, the
// adapter's public_view; flags.rollbridge.view "players"). Only a GM-only card
// (whispered to the GMs) keeps the GM's view ("gm"). A GM's client that holds
// the GM's own event draws a "players" card again from it, so the GM still
// reads the full card; nobody else ever draws from a GM's view.

/** How many events a client keeps for drawing cards again. */
export const CARD_EVENTS = 200;

/** The key of an event (or of a card's flags): table, epoch and seq. */
export function eventKey(table, epoch, seq) {
  if (epoch === undefined || epoch === null || seq === undefined || seq === null) return null;
  return `${table ?? ""}|${epoch}|${seq}`;
}

/**
 * The last `limit` roll, resolution and encounter (turn hooks: core/hooks.mjs)
 * events this client's own connection received, by table, epoch and seq.
 * Nothing else goes in: not a `hidden` event (a GM-only one, as a player
 * receives it), not the event of a reply.
 */
export class EventCache {
  constructor(limit = CARD_EVENTS) {
    this.limit = limit;
    this.events = new Map();
  }

  /** Keep an event; returns its key, or null when it is not one a card shows. */
  add(event) {
    if (!event || (event.kind !== "roll" && event.kind !== "resolution" && !HOOK_KINDS.has(event.kind))) return null;
    const key = eventKey(event.table, event.epoch, event.seq);
    if (!key) return null;
    this.events.delete(key);
    this.events.set(key, event);
    while (this.events.size > this.limit) this.events.delete(this.events.keys().next().value);
    return key;
  }

  get(table, epoch, seq) {
    return this.events.get(eventKey(table, epoch, seq)) ?? null;
  }

  get size() {
    return this.events.size;
  }

  clear() {
    this.events.clear();
  }
}

/**
 * The view a card is stored in: "players" when posted from the players' view
 * (the GM's event's `players`, or a player's own event), "gm" when posted from
 * a GM's view (a GM-only card; a GM's event without `players`, from a server
 * that does not send it). `role` is the writer's role at the table.
 */
export function cardView(event, role) {
  if (event?.gm_only) return "gm";
  if (event?.players) return "players";
  return role === "gm" ? "gm" : "players";
}

/** The event a card is posted from: the players' view of a public GM event. */
export function cardEvent(event) {
  return !event?.gm_only && event?.players ? event.players : event;
}

/**
 * The event to draw a chat card again from for this viewer, or null to leave
 * the stored card (a turn hook's card: that hook's card of the event, by
 * `flags.hook`). `flags` are the message's flags.rollbridge; `message` tells
 * whether this user may see the content ({whisper, blind, visible,
 * isContentVisible} as Foundry's ChatMessage has them); `user` {id, isGM}.
 * A card in this user's language is drawn again only for a GM holding the GM's
 * event of a card stored as the players' view. A user who is not a GM is only
 * ever drawn a players' view.
 */
export function cardToLocalize({ flags, lang, cache, user, message }) {
  if (!flags || !cache || !lang) return null;
  const isGM = Boolean(user?.isGM);
  const fuller = isGM && flags.view === "players"; // the GM's own event says more
  if (!fuller && (!flags.lang || flags.lang === lang)) return null; // already in this user's language
  if (message) {
    if (message.visible === false || message.isContentVisible === false) return null;
    const whisper = message.whisper ?? [];
    if (whisper.length && !whisper.includes(user?.id)) return null;
    if (message.blind && !user?.isGM) return null;
  }
  if (flags.secret && !user?.isGM) return null;
  const cached = cache.get(flags.table, flags.epoch, flags.seq);
  if (!cached || (cached.gm_only && !isGM)) return null;
  // a GM's connection's event (with `players`) is drawn as the players' view for a non-GM
  const received = isGM ? cached : (cached.players ?? cached);
  if (received.kind !== flags.kind) return null;
  const event = Number.isInteger(flags.hook) ? hookCard(received, flags.hook) : received;
  if (!event) return null;
  // same language and no GM's view to add: the stored card says it all
  if (flags.lang === lang && !(isGM && event.players)) return null;
  return event;
}
