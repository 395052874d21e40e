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
// - An actor's update is the adapter's `foundry.flags` (the common state under
//   flags.rollbridge) plus, when the GM chose a system mapping that applies,
//   its `foundry.systems[mapping]` paths.

export const MODULE_ID = "rollbridge";

/** Foundry system id → the mapping `auto` picks. */
export const AUTO_MAPPINGS = { shadowrun5e: "sr5", swade: "swade" };

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

/** The rollbridge actor id of a Foundry actor. */
export function rollbridgeIdOf(actor) {
  return actor?.flags?.[MODULE_ID]?.actorId ?? actor?.id ?? null;
}

/** The Foundry actor (from `actors`, any iterable) for a rollbridge actor id. */
export function findActor(rollbridgeId, actors) {
  if (!rollbridgeId) return null;
  let sameId = null;
  for (const actor of actors) {
    const linked = actor?.flags?.[MODULE_ID]?.actorId;
    if (linked === rollbridgeId) return actor;
    if (!linked && actor?.id === rollbridgeId) sameId = actor;
  }
  return sameId;
}

/**
 * The Actor#update data for one actor view of an event (null: nothing to write).
 * Flags land under flags.rollbridge; a chosen mapping adds its system paths.
 * A limited view (a player's view of an NPC) is never written: only the GM,
 * who sees everything, writes.
 */
export function actorUpdate(actorView, mapping) {
  const foundry = actorView?.foundry;
  const flags = foundry?.flags?.[MODULE_ID];
  if (!flags) return null;
  if (flags.limited) return null;
  const update = { [`flags.${MODULE_ID}`]: { ...flags } };
  if (flags.removed) return update;
  const paths = mapping && mapping !== "none" ? foundry.systems?.[mapping] : null;
  if (paths) Object.assign(update, paths);
  return update;
}

/**
 * Whether this client posts the chat card of an event.
 * The writer (active GM) posts every roll and resolution; a player posts its
 * own request's card only while no GM is in the world (else the GM's client
 * does, possibly later, after it resumes).
 */
export function shouldPostCard({ event, writer, gmPresent, ownRequests }) {
  if (!event || (event.kind !== "roll" && event.kind !== "resolution")) return false;
  if (writer) return true;
  if (gmPresent) return false;
  return Boolean(event.request && ownRequests?.has(event.request));
}

/** The speaker (Foundry's ChatMessage speaker) for a rollbridge actor id. */
export function speakerFor(rollbridgeId, actors, alias) {
  const actor = findActor(rollbridgeId, actors);
  if (!actor) return alias ? { alias } : {};
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
