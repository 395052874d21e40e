// Foundry glue: the combat tracker runs the server's encounter, so that the
// ruleset's turn hooks (on_round_start, on_turn_start, on_turn_end,
// on_round_end) run in a Foundry game. Only the active GM's client — the one
// that writes for the world — sends, and only with the world setting "Combat
// tracker runs the table's encounter" (on by default):
//
//   the combat begins (round 1)     → encounter.start {order}: the combatants
//                                     in turn order whose actors are on the table
//   a turn or a round forward       → encounter.next, one a turn (core/combat.mjs)
//   the turn order sorted again     → encounter.reorder {order} (the current actor
//                                     keeps its turn); a new round in a new order:
//                                     encounter.next {order}
//   back to round 0, begun again    → encounter.end, then encounter.start
//   the combat deleted (its end)    → encounter.end (with the setting off too)
//
// And back: a GM's undo or redo of an encounter event (a turn card's Undo) moves
// the followed combat to the server's encounter after it (the event's
// table_after.encounter: its round and current actor's turn; none: round 0),
// without turn events (`turnEvents: false`); the look that follows finds the
// tracker where the server is, so nothing is sent (the undone turn is not run
// again). The tracker's order is its combatants' initiative: an undone reorder
// is sent again at the GM's next change of the tracker — a look at the tracker
// as an undo or redo left it sends nothing (`followed`), so undoing a turn past
// a reorder sends no new change that would end the GM's redo.
//
// Foundry's hooks (foundry-vtt-types 12.331 / 13.340; v12 client/data/documents/
// combat.js, v13 client/documents/combat.mjs): combatStart, combatTurn and
// combatRound fire only on the client that moves the combat, before the update;
// combatTurnChange fires on every client but, on the active GM, only after the
// turn events it awaits (a system's _onStartTurn, v13's movement histories), and
// Foundry's `previous` it passes is one object every update fills again. So the
// module takes no move from the hooks: any of updateCombat, combatTurnChange,
// createCombatant, updateCombatant (initiative: Foundry sorts again, keeping the
// combatant's turn, with no turn hook) and deleteCombatant only says "look at
// this combat", and the module compares the combat as it stands with the state
// it saw last (`seen`, its own) and with the server's encounter. The looks at
// one combat are queued and merged: one look reads the latest state.
// Combatants changed through their parent, Combat#update({combatants: [...]})
// (Foundry's resetAll, SWADE's), fire updateCombat only, whose `changed` carries
// them — no updateCombatant: Foundry's update workflow fires the hook of the
// documents of the operation (client-backend.mjs #handleUpdateDocuments; the
// documented updateDocument hook), the embedded ones only written (updateSource),
// and Combat#_onUpdate sorts the turns again. Either hook starts the same look.
// updateCombat's `direction` (-1: Foundry's previous turn or round) tells a move
// back, which the server cannot follow (the GM is told).
//
// A deal — initiative cleared (a reset), or a new round whose initiative changed
// as it came — is read once the tracker has settled: a system may deal the
// round's order in several updates. SWADE (its code for v12 and v13): resetAll (its
// Combat#update({turn: 0, combatants})), nextRound, a card for each combatant —
// a player's picked in a dialog —, then, once every combatant not defeated has
// one, update({turn: 0}); SWADE's later v13 code: resetAll, `system.awaitingNextRound`
// set, the cards, then update({turn: last, awaitingNextRound: false}) and only
// then nextRound (SwadeCombat#_nextRoundAsGM, rollInitiative,
// _onUpdateDescendantDocuments). The look waits until none of the combat's
// updateCombat, createCombatant, updateCombatant or deleteCombatant has come for
// `roundQuiet` ms (0.5 s) and the deal is done (#dealt): every combatant on the
// table that had an initiative before has one again (a defeated one aside);
// in SWADE, a new round with every combatant dealt is at its first turn (SWADE's
// update({turn: 0}), however long it comes after the last card: Foundry's own
// rollInitiative keeps the turn where it was, so no other system is waited for
// it); a deal SWADE marked has reached its new round — but no longer than the
// world setting roundWait (5 s) in all, or until the combat is deleted; then it
// reads the tracker and sends what it finds (combatTurnChange, which only
// follows an update, does not prolong it) — unless SWADE still marks the deal
// and its new round has not come (a card picked past the bound): then nothing
// is sent, and the looks until the new round compare with the tracker before
// the deal (`marked`), so that the new round is read as a deal. The looks
// queued meanwhile run after it, in order, and find the server there. A new round that comes with every
// initiative as it was (dnd5e keeps it; SWADE clears it before its new round, or
// deals it before, within the wait its reset began) is no deal: it is sent at once.
//
// One encounter runs at a table at a time, so the module follows one combat:
// the one whose start it sent (its id in the hidden world setting `combat`,
// {table, id, offset}: offset = the tracker's round at the start − 1; it
// outlives a reload of the GM's page), until that combat is deleted. Another
// combat started meanwhile is not sent (the GM is told). A started combat that
// is not followed starts the encounter at its first look with combatants on the
// table when none runs and no other combat is followed (a combat begun empty,
// or while the setting was off). The server's encounter as it stands comes with
// the welcome (`table.encounter`) and with each event that changes it, so a GM
// who reloads mid-combat goes on from it; until the welcome (a new connection)
// the module waits for it.

import { setting } from "./settings.mjs";
import { catchUp, encounterOrder, trackerTurn } from "../core/combat.mjs";
import { shownError } from "../core/protocol.mjs";
import { isOnTable, MODULE_ID, rollbridgeIdOf } from "../core/state.mjs";

/** The rollbridge id of a combatant's actor (its token's actor when it has a
 * token: an unlinked token's synthetic actor), or null when it is on no table. */
export function combatantActor(combatant) {
  const actor = combatant?.actor;
  if (!actor || !isOnTable(actor) || actor.flags?.[MODULE_ID]?.removed) return null;
  return rollbridgeIdOf(actor);
}

/** Whether a combatant has an initiative (Foundry's Combatant#initiative: a number, or null). */
const hasInitiative = (combatant) => Number.isFinite(combatant?.initiative);

/** Whether SWADE's later code marks `combat` as dealing its new round's cards
 * (`system.awaitingNextRound`: it refuses Next Turn and Next Round until they are dealt). */
const awaitingCards = (combat) => combat?.system?.awaitingNextRound === true;

/** The combatants' initiative by id (null: none). */
const initiativeOf = (combatants) => Object.fromEntries(combatants.map((c) => [c.id, hasInitiative(c) ? c.initiative : null]));

/** Whether two states of a tracker (#state) are the same turn of the same round in the same order. */
const sameTracker = (a, b) => a.round === b.round && a.turn === b.turn && a.combatantId === b.combatantId
  && a.order.join("\n") === b.order.join("\n");

/** How long a followed combat's new round must have been left unchanged before it is read (ms). */
export const ROUND_QUIET_MS = 500;
/** The longest a new round's look waits for the tracker to settle (ms), unless the world
 * setting roundWait (seconds) says otherwise: its default. */
export const ROUND_MAX_MS = 5000;

export class CombatSync {
  /**
   * @param {any} client  the FoundryClient (request, writer, table, encounter, notify)
   * @param {{roundQuiet?: number, roundMax?: number | null}} [options]  a deal in a
   *   followed combat (its initiative cleared, or a new round's changed) is read once no
   *   change of it has come for roundQuiet ms and it is dealt (#dealt), at the latest
   *   roundMax ms after the look began (null: the world setting roundWait, in seconds;
   *   roundQuiet 0: read at once)
   */
  constructor(client, { roundQuiet = ROUND_QUIET_MS, roundMax = null } = {}) {
    this.client = client;
    this.queue = Promise.resolve();
    this.hooks = [];
    this.roundQuiet = roundQuiet;
    this.roundMax = roundMax;
    /** combat id → {round, turn, combatantId, rolled} as the module last looked at it
     * (rolled: the ids of the combatants that had an initiative) */
    this.seen = new Map();
    /** combat id → {touch, end}: the look waiting for the combat to settle */
    this.settling = new Map();
    /** combat id → {back}: a look queued, not begun (later hooks merge into it) */
    this.waiting = new Map();
    /** the combats seen at round 0 since their last look (a look may come too late to) */
    this.reset = new Set();
    /** combat id → the tracker as an undo or redo left it ({round, turn, combatantId, order}):
     * until the GM changes it, a look sends nothing (its order may differ from the server's) */
    this.followed = new Map();
    /** combat id → the state seen before a deal SWADE marked (awaitingCards) whose new round
     * has not come yet, past a look's wait: the looks meanwhile send nothing, and compare with it */
    this.marked = new Map();
  }

  /** Listen to Foundry's combat hooks; `unregister` stops. */
  register() {
    const look = (combat, options) => this.changed(combat, { back: Number(options?.direction) < 0 });
    this.hooks = [
      ["updateCombat", Hooks.on("updateCombat", (combat, changed, options) => look(combat, options))],
      // after the turn events of an update already seen: no change of the tracker of its own
      ["combatTurnChange", Hooks.on("combatTurnChange", (combat) => this.changed(combat, { update: false }))],
      ["createCombatant", Hooks.on("createCombatant", (combatant) => look(combatant?.parent))],
      ["updateCombatant", Hooks.on("updateCombatant", (combatant) => look(combatant?.parent))],
      ["deleteCombatant", Hooks.on("deleteCombatant", (combatant) => look(combatant?.parent))],
      ["deleteCombat", Hooks.on("deleteCombat", (combat) => this.deleted(combat))],
      ["rollbridge.event", Hooks.on("rollbridge.event", (event, info) => this.undone(event, info))],
    ];
    return this;
  }

  unregister() {
    for (const [name, id] of this.hooks) Hooks.off(name, id);
    this.hooks = [];
    for (const wait of [...this.settling.values()]) wait.end();
  }

  get enabled() {
    return this.client.writer && Boolean(setting("combatTracker"));
  }

  /**
   * A change of `combat` (any of the hooks): a look at it is queued, or merged
   * into the one waiting. `update`: a change of the combat or its combatants (every
   * hook but combatTurnChange): a look waiting for the combat to settle waits on.
   * Returns the queued work (tests wait for it), or null.
   */
  changed(combat, { back = false, update = true } = {}) {
    if (!combat?.id || !this.client.writer) return null;
    if (update) this.settling.get(combat.id)?.touch();
    if (!(Number(combat.round) > 0)) this.reset.add(combat.id);
    const waiting = this.waiting.get(combat.id);
    if (waiting) {
      waiting.back ||= back;
      return this.queue;
    }
    this.waiting.set(combat.id, { back });
    return this.#enqueue(() => {
      const { back: wentBack } = this.waiting.get(combat.id) ?? { back };
      this.waiting.delete(combat.id);
      return this.#look(combat, wentBack);
    });
  }

  /** deleteCombat (Foundry's "End Combat" deletes it): the encounter ends — with
   * the setting off too, so that the server's encounter does not outlive it. */
  deleted(combat) {
    if (!combat || !this.client.writer) return null;
    this.settling.get(combat.id)?.end(); // its look waits no longer: the combat is gone
    this.seen.delete(combat.id);
    this.followed.delete(combat.id);
    this.marked.delete(combat.id);
    return this.#enqueue(() => this.#end(combat));
  }

  /**
   * A rollbridge event (the client's hook rollbridge.event): a live undo or redo
   * that changed the encounter moves the followed combat to it. Returns the
   * queued work, or null.
   */
  undone(event, { replayed = false } = {}) {
    if (!["undo", "redo"].includes(event?.kind) || replayed || !this.client.writer) return null;
    if (!event.table_after || !("encounter" in event.table_after)) return null;
    return this.#enqueue(() => this.#follow(event.table_after.encounter ?? null));
  }

  async #follow(encounter) {
    const saved = this.#saved();
    const combat = saved ? game.combats?.get(saved.id) : null;
    if (!this.enabled || !combat) return;
    const now = this.#state(combat);
    const offset = Number(saved.offset) || 0;
    const combatants = Array.from(combat.turns ?? []).map((c) => ({ actor: combatantActor(c) }));
    const target = trackerTurn(encounter, { round: now.round - offset, actor: now.actor }, combatants, offset);
    // the tracker's order stays its initiative's, which an undone reorder does not change:
    // it is sent again at the GM's next change of the tracker, not by a look at the
    // tracker as this leaves it (that reorder, a new change, would end the GM's redo and
    // be what the next undo takes)
    if (!target) {
      this.followed.set(combat.id, now);
      return;
    }
    await combat.update(target, { turnEvents: false });
    // the look this update queues compares with the server, not with the state before it
    const moved = this.#state(combat);
    this.#see(combat, moved);
    if (moved.round > 0) this.reset.delete(combat.id);
    this.followed.set(combat.id, moved);
  }

  #enqueue(task) {
    this.queue = this.queue.then(task).catch((error) => {
      console.error(`rollbridge | ${error?.message ?? error}`);
    });
    return this.queue;
  }

  /** The saved {table, id, offset} of the combat the module follows at this table, or null. */
  #saved() {
    const saved = setting("combat");
    return saved?.id && saved.table === this.client.table ? saved : null;
  }

  /** Whether the module follows `combat` at this table (it sent its start). */
  #follows(combat) {
    return this.#saved()?.id === combat.id;
  }

  /** The tracker as it stands: its state, its order mapped, the current actor, the
   * ids of the combatants with an initiative (`rolled`). */
  #state(combat) {
    const turns = Array.from(combat.turns ?? []);
    const combatants = turns.map((c) => ({ id: c.id, name: c.name, actor: combatantActor(c) }));
    return {
      round: Number(combat.round) || 0,
      turn: combat.turn ?? null,
      combatantId: combat.combatant?.id ?? null,
      ...encounterOrder(combatants),
      actor: combatantActor(combat.combatant),
      rolled: turns.filter(hasInitiative).map((c) => c.id),
      initiative: initiativeOf(turns),
    };
  }

  /** The state of `combat` the next look compares with. */
  #see(combat, { round, turn, combatantId, rolled, initiative }) {
    this.seen.set(combat.id, { round, turn, combatantId, rolled, initiative });
  }

  /** Whether a combatant that was in the tracker at the look before (`prior`) has
   * another initiative now (cleared, or dealt or rolled anew). */
  #reinitiated(prior, now) {
    const before = prior.initiative ?? {};
    return Object.entries(now.initiative).some(([id, value]) => id in before && before[id] !== value);
  }

  /** The combatants on the table (not defeated) that had an initiative at the look
   * before (`prior`) and have none now: a new round's order not dealt yet. */
  #undealt(combat, prior) {
    const had = new Set(prior.rolled ?? []);
    return Array.from(combat.turns ?? []).filter((c) => had.has(c.id) && !hasInitiative(c) && !c.isDefeated && combatantActor(c));
  }

  /** The longest a look waits for a combat to settle (ms): the option, else the world setting. */
  #roundMax() {
    if (this.roundMax !== null) return this.roundMax;
    const seconds = Number(setting("roundWait"));
    return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : ROUND_MAX_MS;
  }

  /**
   * Whether a deal that began at the look before (`prior`) is done, as far as the tracker
   * tells: none of the combatants undealt (#undealt), and
   * - in SWADE, a new round (the round went on during the deal, or before it: SWADE's
   *   resetAll, nextRound, the cards), once every combatant not defeated has a card: at its
   *   first turn, which SWADE sets then (rollInitiative's update({turn: 0})) — until then the
   *   tracker's turn is still the one Foundry kept for the reset's first combatant. Only
   *   SWADE sets it: Foundry's own rollInitiative keeps the turn with that combatant
   *   (v12's update({turn}), v13's combatTurn), so elsewhere (a GM's Reset, Next Round
   *   and Roll All) the first turn never comes, and is not waited for;
   * - a deal SWADE's later code marks (`system.awaitingNextRound`, seen during the wait: `awaiting`):
   *   in the new round, which SWADE advances only once every card is dealt.
   */
  #dealt(combat, prior, awaiting) {
    if (this.#undealt(combat, prior).length) return false;
    const round = Number(combat.round) || 0;
    if (awaiting && !(round > prior.round)) return false;
    if (game.system?.id !== "swade") return true;
    const everyone = Array.from(combat.turns ?? []).filter((c) => !c.isDefeated).every(hasInitiative);
    return !(round > prior.round && everyone && combat.turn !== 0);
  }

  /**
   * Wait until `combat` has settled: no change of it (`changed`) for roundQuiet ms
   * and its deal done (#dealt), or roundMax ms since the wait began, or the combat
   * deleted. `awaiting`: SWADE marked the deal already. Resolves with whether SWADE
   * marked it (before or during the wait).
   */
  #settle(combat, prior, awaiting = false) {
    return new Promise((resolve) => {
      let quiet = null;
      // awaiting: SWADE's later code marked the deal (its new round comes once it is dealt)
      const end = () => {
        clearTimeout(quiet);
        clearTimeout(bound);
        if (this.settling.get(combat.id) === wait) this.settling.delete(combat.id);
        resolve(awaiting);
      };
      const touch = () => {
        clearTimeout(quiet);
        awaiting ||= awaitingCards(combat);
        // quiet but not dealt: the next change (a card dealt, the turn set) or the bound ends it
        quiet = setTimeout(() => this.#dealt(combat, prior, awaiting) && end(), this.roundQuiet);
      };
      const bound = setTimeout(end, this.#roundMax());
      const wait = { touch, end };
      this.settling.set(combat.id, wait);
      touch();
    });
  }

  async #look(combat, back) {
    const marked = this.marked.get(combat.id);
    const prior = marked ?? this.seen.get(combat.id);
    let now = this.#state(combat);
    this.#see(combat, now);
    if (!this.enabled || game.combats?.get(combat.id) !== combat) return;
    const follows = this.#follows(combat);
    // a deal under way: initiative cleared (SWADE's resetAll, before its new round), one SWADE
    // marks (until its new round comes), or a new round whose initiative changed as it came; a
    // new round with every initiative as it was seen (a system that keeps it: dnd5e) deals
    // nothing: it is read at once (SWADE's round comes after its reset, within the wait the
    // reset began)
    let awaiting = Boolean(marked) || awaitingCards(combat);
    const newRound = prior?.round > 0 && now.round > prior.round;
    const dealing = prior?.round > 0 && ((awaiting && now.round >= prior.round)
      || this.#undealt(combat, prior).length > 0 || (newRound && this.#reinitiated(prior, now)));
    if (follows && dealing && this.roundQuiet > 0) {
      // a new round's order may come in several updates: read it dealt
      awaiting = await this.#settle(combat, prior, awaiting);
      now = this.#state(combat);
      this.#see(combat, now);
      if (!this.enabled || game.combats?.get(combat.id) !== combat) return;
    }
    // a deal SWADE marked whose new round has not come (the wait's bound passed while a player
    // picks a card): nothing of it is sent — its reset and part-dealt cards are no order of the
    // old round, and its turn set to the last before the new round no turn of it; SWADE refuses
    // Next Turn meanwhile. The look that sees the new round reads it, compared with the tracker
    // before the deal (or, on a page that saw nothing before it — a GM's reload —, the deal as
    // first seen).
    awaiting ||= awaitingCards(combat);
    const before = prior?.round > 0 ? prior : now;
    if (follows && awaiting && now.round > 0 && now.round === before.round) {
      this.marked.set(combat.id, before);
      return;
    }
    this.marked.delete(combat.id);
    // as an undo or redo left it: nothing of the GM's to send
    const followed = this.followed.get(combat.id);
    if (followed && sameTracker(followed, now)) return;
    this.followed.delete(combat.id);
    if (now.round < 1) return; // not begun, or back to round 0: begun again, it restarts
    // it began (again) just now
    const wasReset = this.reset.delete(combat.id);
    const fresh = wasReset || (Boolean(prior) && prior.round < 1);
    await this.client.encounterKnown?.();
    if (!this.client.writer) return; // the active GM changed meanwhile
    const encounter = this.client.encounter;
    if (encounter === undefined) {
      console.info("rollbridge | the table's encounter is not known (not connected): the combat tracker's change is not sent");
      return;
    }
    if (!follows) return this.#maybeStart(combat, now, fresh, encounter);
    if (fresh) return this.#restart(combat, now, encounter);
    if (!encounter) {
      console.info("rollbridge | no encounter runs at the table: the combat tracker's change is not sent");
      return;
    }
    await this.#catchUp(now, encounter, back);
  }

  async #maybeStart(combat, now, fresh, encounter) {
    const saved = this.#saved();
    const other = saved ? game.combats?.get(saved.id) : null;
    if (other && other.id !== combat.id && other.started) {
      if (fresh) this.client.notify("warn", "ROLLBRIDGE.Combat.Another", { data: { name: other.name ?? other.id } });
      return;
    }
    if (!fresh && encounter) return; // an encounter this combat did not start runs
    if (!now.order.length) {
      if (fresh) console.info("rollbridge | no combatant's actor is on the table: no encounter started (yet)");
      return;
    }
    await this.#start(combat, now);
  }

  /** Begun again after going back to round 0: the encounter starts afresh. */
  async #restart(combat, now, encounter) {
    if (encounter) {
      try {
        await this.client.request({ type: "encounter.end" });
      } catch (error) {
        this.#refused(error);
        return;
      }
    }
    if (!now.order.length) {
      await game.settings.set(MODULE_ID, "combat", {});
      return;
    }
    if (await this.#start(combat, now)) this.client.notify("info", "ROLLBRIDGE.Combat.Restarted");
  }

  async #start(combat, now) {
    if (now.left.length) {
      console.info(`rollbridge | not in the table's encounter (no actor on the table, or one already in it): ${now.left.join(", ")}`);
    }
    try {
      await this.client.request({ type: "encounter.start", order: now.order });
    } catch (error) {
      this.#refused(error);
      return false;
    }
    const offset = now.round - 1;
    await game.settings.set(MODULE_ID, "combat", { table: this.client.table, id: combat.id, offset });
    // begun later than at its first turn (a combat begun empty, or while not followed)
    if (this.client.encounter) await this.#catchUp(now, this.client.encounter, false);
    return true;
  }

  /** The requests that bring the server's encounter to the tracker, sent one by one. */
  async #catchUp(now, encounter, back) {
    const offset = Number(this.#saved()?.offset) || 0;
    const { requests, notice } = catchUp(encounter, { round: now.round - offset, actor: now.actor, order: now.order }, { back });
    for (const request of requests) {
      try {
        await this.client.request(request);
      } catch (error) {
        this.#refused(error); // the rest is not sent: the next look tries again from the server's state
        return;
      }
    }
    if (notice) this.client.notify("warn", notice.key, notice.data ? { data: notice.data } : undefined);
  }

  async #end(combat) {
    if (!this.#follows(combat)) return; // deleted: no longer in game.combats
    await game.settings.set(MODULE_ID, "combat", {});
    await this.client.encounterKnown?.();
    if (this.client.encounter === null) return; // none runs (unknown: sent, refused harmlessly if none)
    try {
      await this.client.request({ type: "encounter.end" });
    } catch (error) {
      this.#refused(error);
    }
  }

  #refused(error) {
    // escaped by notify (noticeData): the server's words as they came, escaped once
    const message = shownError(error, game.i18n, { context: "the server refused the encounter request", escaped: false });
    this.client.notify("error", "ROLLBRIDGE.Combat.Refused", { data: { message } });
  }
}

/** The module's combat sync for `client`, listening to Foundry's hooks. */
export function registerCombat(client, options) {
  return new CombatSync(client, options).register();
}
