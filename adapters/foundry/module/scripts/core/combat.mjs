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
//   before it goes on until the next combatant of the encounter comes up. A
//   tracker in a round after the next is out of step: nothing is sent.
// - The order follows the tracker's (catchUp): sorted again within a round
//   (initiative rolled after the start, changed, a combatant added or removed),
//   `encounter.reorder` gives the new order and the current actor keeps its turn,
//   as Foundry keeps its combatant's; a new round in another order (SWADE deals
//   every round) ends the old round's turns in the old order and begins the new
//   round in the new one (`encounter.next` with `order`).
// - The tracker follows a GM's undo or redo of an encounter event (trackerTurn):
//   the server's encounter after it (the event's `table_after.encounter`) is
//   the tracker's round and turn; none, round 0 (not begun). The tracker's order
//   is its initiative, so an undone reorder is sent again at the GM's next change
//   of the tracker (foundry/combat.mjs: not at the look an undo's move makes).

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

const sameOrder = (a, b) => a.length === b.length && a.every((id, i) => id === b[i]);

/**
 * What brings the server's `encounter` ({order, round, turn}) to the tracker's
 * state: `round` (counted as the encounter counts them), `actor` (the current
 * combatant's actor id, or null) and `order` (the tracker's mapped order).
 * Returns {requests: [encounter requests, in order], notice: null or
 * {key, data}}; `back`: the tracker was moved back (Foundry's previous turn or
 * round), which is told — another move behind the server is not.
 */
export function catchUp(encounter, { round, actor, order }, { back = false } = {}) {
  const requests = [];
  if (!Array.isArray(encounter?.order) || !encounter.order.length || !order?.length) return { requests, notice: null };
  let e = { order: [...encounter.order], round: Number(encounter.round), turn: Number(encounter.turn) };
  const current = () => e.order[e.turn];
  const next = (newOrder = null) => {
    const wraps = e.turn + 1 >= e.order.length;
    requests.push(newOrder ? { type: "encounter.next", order: [...newOrder] } : { type: "encounter.next" });
    e = wraps ? { order: newOrder ? [...newOrder] : e.order, round: e.round + 1, turn: 0 } : { ...e, turn: e.turn + 1 };
  };
  const reorder = () => {
    requests.push({ type: "encounter.reorder", order: [...order] });
    e = { order: [...order], round: e.round, turn: order.indexOf(current()) };
  };
  const done = (notice = null) => ({ requests, notice });
  if (round < e.round) return done(back ? { key: "ROLLBRIDGE.Combat.NoBack" } : null);
  if (round === e.round && !sameOrder(order, e.order)) {
    if (!order.includes(current())) {
      // the current actor left the order: its turn ends first (in the old order)
      const ahead = actor ? stepsTo(e, round, actor) : null;
      if (ahead !== null && ahead > 0) for (let i = 0; i < ahead; i++) next();
    }
    if (order.includes(current())) reorder();
  } else if (round === e.round + 1 && actor && !sameOrder(order, e.order)) {
    // a new round in another order: the old round's last turns, then the new round
    while (e.turn + 1 < e.order.length) next();
    next(order);
  }
  const steps = stepsTo(e, round, actor);
  if (steps === null || steps === 0) return done();
  if (steps < 0) return done(back ? { key: "ROLLBRIDGE.Combat.NoBack" } : null);
  // a round after the next: out of step (the turns up to the next round's are one step of the
  // tracker, or Next Round and the turns after it merged in one look: foundry/combat.mjs)
  if (round > e.round + 1) return done({ key: "ROLLBRIDGE.Combat.OutOfStep", data: { steps } });
  for (let i = 0; i < steps; i++) next();
  return done();
}

/**
 * Where the tracker goes to follow the server's `encounter` after an undo or
 * redo: {round, turn} (Foundry's round, `offset` rounds after the encounter's;
 * turn: the index in `combatants`, the tracker's turns as in encounterOrder,
 * of the encounter's current actor), {round: 0, turn: 0} when no encounter
 * runs, or null when the tracker is there already or the current actor has
 * no combatant.
 * @param {any} encounter  the server's encounter, or null
 * @param {{round: number, actor: string | null}} tracker  its round (counted as the encounter counts them) and current actor
 * @param {{actor: string | null}[]} combatants
 * @param {number} offset
 */
export function trackerTurn(encounter, tracker, combatants, offset = 0) {
  if (!Array.isArray(encounter?.order) || !encounter.order.length) return tracker.round > 0 ? { round: 0, turn: 0 } : null;
  if (stepsTo(encounter, tracker.round, tracker.actor) === 0) return null;
  const actor = encounter.current ?? encounter.order[encounter.turn];
  const turn = combatants.findIndex((c) => c?.actor === actor);
  return turn < 0 ? null : { round: Number(encounter.round) + offset, turn };
}
