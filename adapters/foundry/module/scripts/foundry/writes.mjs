// Foundry glue: one result's actor writes (docs/foundry.md, "Unlinked tokens").
//
// - The world actors (a linked token's actor is one) go in one
//   `Actor.updateDocuments([{_id, ...update}])`, the batched form the
//   declarations document for world documents. It answers the documents it
//   updated, and only those: a change the system's data model refuses, or a
//   preUpdateActor hook stops, is skipped alone — Foundry's client reports it
//   itself (Hooks.onError from ClientDatabaseBackend#_preUpdateDocumentArray,
//   with the document's id) and writes the others — as is a change that would
//   change nothing. An actor left out whose data does not hold its update
//   (core/state.mjs holdsUpdate) was not written: named to the GM, its status
//   effects not set. What fails the whole operation (an actor no longer there,
//   the server refusing it) writes none: then each is written on its own, and
//   only the one refused fails.
// - An unlinked token's synthetic actor is written by its own `Actor#update`,
//   which Foundry turns into its token's delta. A batch of the tokens of a scene
//   (`scene.updateEmbeddedDocuments("Token", [{_id, delta}])`) is not used: the
//   declarations give `delta` its shape (ActorDelta's source) but do not say that
//   such a token update is the synthetic actor's update — the actor's own update
//   workflow (`preUpdateActor`, `updateActor`, which systems listen to) and what
//   a `-=` key (the module replaces its flags with them) means in a delta, where
//   the base actor's value shows through.
// - All of them go out together, then each actor's status effects (after its
//   update). An actor met twice in one result is written again after the rest,
//   in order.

import { redact } from "../client/url.mjs";
import { holdsUpdate } from "../core/state.mjs";

/**
 * @typedef {object} ActorWrite
 * @property {any} actor the Foundry actor
 * @property {string} name its name, for the notice
 * @property {() => (object | null)} update its update (null: nothing to write, no status either)
 * @property {() => Promise<void>} statuses its status effects, after the update
 */

/** Whether `actor` is a world actor: in game.actors, not an unlinked token's synthetic one. */
function isWorldActor(actor) {
  return !actor?.isToken && game.actors?.get?.(actor?.id) === actor;
}

/**
 * Write `writes` (ActorWrite[]); resolves with the ones Foundry did not take,
 * [{name, error}], never rejects.
 * @param {ActorWrite[]} writes
 * @returns {Promise<{name: string, error: any}[]>}
 */
export async function writeActors(writes) {
  const failed = [];
  const first = new Map(); // actor → its first write
  const later = [];
  for (const write of writes) {
    if (first.has(write.actor)) later.push(write);
    else first.set(write.actor, write);
  }
  const batchable = typeof Actor?.updateDocuments === "function";
  const world = [];
  const own = [];
  for (const write of first.values()) (batchable && isWorldActor(write.actor) ? world : own).push(write);
  const alone = async (write) => {
    try {
      const update = write.update();
      if (!update) return;
      if (Object.keys(update).length) await write.actor.update(update);
      await write.statuses();
    } catch (error) {
      failed.push({ name: write.name, error });
    }
  };
  await Promise.all([writeWorld(world, failed), ...own.map(alone)]);
  for (const write of later) await alone(write);
  return failed;
}

/** The world actors' writes: one batch, each alone if Foundry refuses it; then their status effects. */
async function writeWorld(writes, failed) {
  const plans = [];
  for (const write of writes) {
    try {
      const update = write.update();
      if (update) plans.push({ write, update, ok: true });
    } catch (error) {
      failed.push({ name: write.name, error });
    }
  }
  const sent = plans.filter((plan) => Object.keys(plan.update).length);
  if (sent.length) {
    try {
      const updated = await Actor.updateDocuments(sent.map((plan) => ({ ...plan.update, _id: plan.write.actor.id })));
      const written = new Set((Array.isArray(updated) ? updated : []).map((actor) => actor?.id));
      for (const plan of sent) {
        if (!written.has(plan.write.actor.id)) notTaken(plan, failed);
      }
    } catch (error) {
      // the batch failed as a whole: each on its own, so that one refused write stops no other
      console.warn(`rollbridge | Foundry refused the world actors' writes as one batch (${sent.length} in it), writing each on its own: ${redact(error?.message ?? error)}`);
      await Promise.all(sent.map(async (plan) => {
        try {
          if (!(await plan.write.actor.update(plan.update))) notTaken(plan, failed);
        } catch (own) {
          plan.ok = false;
          failed.push({ name: plan.write.name, error: own });
        }
      }));
    }
  }
  await Promise.all(plans.filter((plan) => plan.ok).map(async (plan) => {
    try {
      await plan.write.statuses();
    } catch (error) {
      failed.push({ name: plan.write.name, error });
    }
  }));
}

/**
 * A world actor's update Foundry skipped (left out of its answer): not taken unless the
 * actor holds it already (nothing was to change). Not taken, its status effects are not
 * set either, and the GM is told (Foundry's own notice said why).
 */
function notTaken(plan, failed) {
  if (holdsUpdate(plan.write.actor._source, plan.update)) return;
  plan.ok = false;
  failed.push({ name: plan.write.name, error: new Error(game.i18n.localize("ROLLBRIDGE.Notice.WriteSkipped")) });
}
