// Which event the GM's undo and redo would take (docs/engine.md, "Undo and
// redo"), as a client follows it: seeded from the GM's table (`undo_redo`: the
// server's stacks as of a seq) and kept up from the events after that seq. The
// web view labels its buttons with it ("Undo #12"), the Foundry module shows a
// card's Undo and Redo by it; both send the seq they mean, so that a server whose
// table moved on refuses (`not_latest`) instead of taking another change.

/** The event kinds a GM's undo may take back (rollbridge's undoable events) when they changed something. */
export const UNDOABLE_KINDS = new Set([
  "resolution", "adjusted", "actor.created", "actor.updated", "actor.removed", "settings",
  "encounter.started", "encounter.turn", "encounter.reordered", "encounter.ended",
]);

/** Whether an event (as received) is one the server's undo can take back. */
export function isUndoable(event) {
  if (!UNDOABLE_KINDS.has(event?.kind)) return false;
  if (event.kind !== "resolution") return true;
  return Boolean((event.actors ?? []).length || event.table_after);
}

/**
 * The table's undo and redo stacks as this client's events show them: an
 * undoable event is pushed (and the redo stack cleared), `undo` moves its
 * `data.undoes` to the redo stack, `redo` its `data.redoes` back.
 *
 * `reset(history)` starts from the GM's table's `undo_redo` ({seq, undo, redo,
 * retain, depth}): the events up to its `seq` are in it already and are not
 * counted again. Without one (a player's table, an older server) both stacks are
 * unknown — no button until new events say more — and so are they after an undo
 * of an event this client did not see.
 */
export class UndoTracker {
  constructor() {
    this.reset();
  }

  reset(history = null) {
    const valid = history && Array.isArray(history.undo) && Array.isArray(history.redo);
    this.undo = valid ? history.undo.filter(Number.isInteger) : [];
    this.redo = valid ? history.redo.filter(Number.isInteger) : [];
    /** The seq the stacks were given as of: events up to it are in them already. */
    this.asOf = valid && Number.isInteger(history.seq) ? history.seq : -1;
    this.retain = valid && Number.isInteger(history.retain) ? history.retain : null;
    this.depth = valid && Number.isInteger(history.depth) ? history.depth : null;
    /** Whether the stacks are the server's (false: what lies under what this client saw is unknown). */
    this.known = Boolean(valid);
    /** Whether the server says what undo and redo take, and so takes an undo or redo naming its `seq`. */
    this.named = Boolean(valid);
  }

  see(event) {
    if (!Number.isInteger(event?.seq) || event.seq <= this.asOf) return;
    if (event.kind === "undo") {
      const seq = event.data?.undoes;
      if (this.undo.at(-1) === seq) this.undo.pop();
      else this.#lost(); // the server undid something this client did not see
      this.redo.push(seq);
    } else if (event.kind === "redo") {
      const seq = event.data?.redoes;
      if (this.redo.at(-1) === seq) this.redo.pop();
      else this.#lost();
      this.undo.push(seq);
    } else if (isUndoable(event)) {
      this.undo.push(event.seq);
      this.redo = [];
    }
    if (this.depth !== null && this.undo.length > this.depth) this.undo.splice(0, this.undo.length - this.depth);
    if (this.retain !== null) this.#reach(event.seq - this.retain);
  }

  /** The event undo would take back, if known. */
  latestUndo() {
    return this.undo.at(-1);
  }

  /** The event redo would bring back, if known. */
  latestRedo() {
    return this.redo.at(-1);
  }

  canUndo(seq) {
    return seq !== undefined && this.undo.at(-1) === seq;
  }

  canRedo(seq) {
    return seq !== undefined && this.redo.at(-1) === seq;
  }

  #lost() {
    this.undo = [];
    this.redo = [];
    this.known = false;
  }

  /** As the server trims them after each request: undo entries at or below the
   * retained log's floor go; a redo entry there goes with every one under it. */
  #reach(floor) {
    this.undo = this.undo.filter((seq) => seq > floor);
    const out = this.redo.findLastIndex((seq) => seq <= floor);
    if (out >= 0) this.redo = this.redo.slice(out + 1);
  }
}
