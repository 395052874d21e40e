// Foundry's combat tracker and the server's encounter: what the active GM's
// client sends for a change of the tracker (foundry/combat.mjs is the glue).
//
// Foundry-independent (tests/foundry/js/combat.test.mjs). The glue passes plain
// objects: Foundry's turn states as Combat.HistoryData {round, turn,
// combatantId}, the combatants in turn order as {id, name, actor} (actor: the
// rollbridge id of a combatant whose Foundry actor is on the table, else null),
// and the table's encounter as the server sends it ({order, round, turn,
// current}, or null when none runs).
//
// - The encounter's order is the tracker's combatants in turn order whose actors
//   are on the table; the others are left out (and named, once, in the console).
//   An actor is in an encounter once: a second combatant of it is left out too.
// - The server's encounter moves only forward, one `encounter.next` a turn. A
//   step of the tracker is followed by as many as bring the encounter to the
//   tracker's round and combatant: one for "next turn", one for each turn a jump
//   or Foundry's "next round" skips (the skipped turns' hooks run, as Foundry v13
//   runs a skipped turn's events too). While a combatant that is not in the
//   encounter has the turn, nothing is sent: the turn of the encounter's actor
//   before it goes on until the next combatant of the encounter comes up.

/** The combatants of an encounter: {order: [actor ids], left: [names left out]}. */
export function encounterOrder(combatants) {
  const order = [];
  const left = [];
  for (const combatant of combatants ?? []) {
    const actor = combatant?.actor ?? null;
    if (actor && !order.includes(actor)) order.push(actor);
    else left.push(String(combatant?.name ?? combatant?.id ?? "?"));
  }
  return { order, left };
}

/**
 * What a change of the tracker's turn state is: "start" (round 1 begins),
 * "forward", "back", or null (no turn passed: a combatant added, the turn order
 * sorted again with the same combatant's turn).
 * @param {{round?: number|null, turn?: number|null, combatantId?: string|null}|null} prior
 * @param {{round?: number|null, turn?: number|null, combatantId?: string|null}|null} current
 */
export function turnMove(prior, current) {
  const before = Number(prior?.round) || 0;
  const now = Number(current?.round) || 0;
  if (now < 1) return before >= 1 ? "back" : null; // back to round 0: the combat reset
  if (before < 1) return "start";
  if (now > before) return "forward";
  if (now < before) return "back";
  if ((current.combatantId ?? null) === (prior.combatantId ?? null)) return null;
  const from = Number(prior.turn ?? -1);
  const to = Number(current.turn ?? -1);
  // the same turn index with another combatant: the one whose turn it was left
  return to < from ? "back" : "forward";
}

/**
 * How many `encounter.next` bring `encounter` to `actor`'s turn in `round`:
 * null when the actor is not in it (or none runs); 0 or less when the encounter
 * is there already or past it.
 */
export function stepsTo(encounter, round, actor) {
  const order = Array.isArray(encounter?.order) ? encounter.order : null;
  if (!order?.length || !actor) return null;
  const index = order.indexOf(actor);
  if (index < 0) return null;
  return (Number(round) - Number(encounter.round)) * order.length + (index - Number(encounter.turn));
}

/** At most this many `encounter.next` for one step of the tracker: a whole round. */
export function maxSteps(encounter) {
  return Array.isArray(encounter?.order) ? encounter.order.length : 0;
}
