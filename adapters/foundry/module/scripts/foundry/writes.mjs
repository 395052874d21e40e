// Foundry glue: one result's actor writes (docs/foundry.md, "Unlinked tokens").
//
// - The world actors (a linked token's actor is one) go in one
//   `Actor.updateDocuments([{_id, ...update}])`, the batched form the
//   declarations document for world documents. Foundry's client checks every
//   change of an operation (the actor there, the user its owner, the system's
//   data model) before it sends any, so one refused value fails the whole batch:
//   then each of them is written on its own, and only the refused one fails.
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
      await Actor.updateDocuments(sent.map((plan) => ({ ...plan.update, _id: plan.write.actor.id })));
    } catch (error) {
      // the batch failed as a whole: each on its own, so that one refused write stops no other
      console.warn(`rollbridge | Foundry refused the world actors' writes as one batch (${sent.length} in it), writing each on its own: ${redact(error?.message ?? error)}`);
      await Promise.all(sent.map(async (plan) => {
        try {
          await plan.write.actor.update(plan.update);
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
