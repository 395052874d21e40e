// The players' view of every actor of the table, as the active GM's client last had it
// whole: from a snapshot welcome's `players` copy (the GM's own connection's, or the
// one reading connection of #readPlayersView), then kept current by the `players`
// copies of the events of the GM's own connection, seq after seq. A GM who maps NPCs
// by hand one after another (linkActor) has each one's players' view from it, without
// a reading connection each (docs/foundry.md, "What every client may read of an
// actor"). Kept only while nothing could have been missed: an event out of order (a
// gap), another epoch, or an event that may show or hide details of actors it does not
// list (`settings`, `undo`, `redo`, a `reread`) drops it — the next link reads again.
// The players' view is what players may read; an older one could show what the table
// hides since, so none is ever served past a gap.

import { playersActors } from "./state.mjs";

/** Kinds whose events may change how players see actors they do not list. */
const RESHOWN = new Set(["settings", "undo", "redo"]);

export class PlayersViews {
  constructor() {
    /** @type {number | null} the epoch and the latest seq seen in order */
    this.epoch = null;
    this.seq = null;
    /** @type {Map<string, any> | null} by actor id; null: not known whole */
    this.views = null;
  }

  /** Forget everything (the connection stopped). */
  clear() {
    this.epoch = null;
    this.seq = null;
    this.views = null;
  }

  /**
   * A welcome of the GM's own connection: a snapshot's `players` copy fills it; a
   * snapshot without one (an older server) leaves it unknown; a recovered resume keeps
   * it, its missed events following in order.
   * @param {any} welcome
   */
  welcome(welcome) {
    if (welcome?.resume?.recovered === true && welcome.epoch === this.epoch) return;
    this.epoch = welcome?.epoch ?? null;
    this.seq = Number.isInteger(welcome?.seq) ? welcome.seq : null;
    this.views = null;
    this.fill(welcome);
  }

  /**
   * A snapshot welcome's `players` copy (a reading connection's too): taken when it is
   * not older than what was seen in order (an older one would miss the events since).
   * @param {any} snapshot
   */
  fill(snapshot) {
    if (!Array.isArray(snapshot?.players?.actors) || !Number.isInteger(snapshot.seq)) return;
    if (snapshot.epoch === this.epoch && this.seq !== null && snapshot.seq < this.seq) return;
    this.epoch = snapshot.epoch ?? null;
    this.seq = snapshot.seq;
    this.views = playersActors(snapshot);
  }

  /**
   * An event of the GM's own connection (a resume's replayed ones too).
   * @param {any} event
   */
  see(event) {
    if (!Number.isInteger(event?.seq) || event.epoch !== this.epoch) {
      this.epoch = event?.epoch ?? null;
      this.seq = Number.isInteger(event?.seq) ? event.seq : null;
      this.views = null;
      return;
    }
    if (this.seq !== null && event.seq <= this.seq) return; // a snapshot read later holds it
    const next = this.seq !== null && event.seq === this.seq + 1;
    this.seq = event.seq;
    if (!this.views) return;
    if (!next || RESHOWN.has(event.kind) || event.reread === true || event.players?.reread === true) {
      this.views = null;
      return;
    }
    const players = playersActors(event);
    for (const view of event.actors ?? []) {
      if (typeof view?.id === "string" && !players.has(view.id)) this.views.delete(view.id);
    }
    for (const [id, view] of players) {
      if (view.removed) this.views.delete(id);
      else this.views.set(id, view);
    }
  }

  /**
   * The players' view of actor `id` in `epoch`, or null when not known.
   * @param {string} id
   * @param {number | null} epoch
   */
  get(id, epoch) {
    return this.views && epoch === this.epoch ? this.views.get(id) ?? null : null;
  }
}
