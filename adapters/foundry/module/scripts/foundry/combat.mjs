// Foundry glue: the combat tracker runs the server's encounter, so that the
// ruleset's turn hooks (on_round_start, on_turn_start, on_turn_end,
// on_round_end) run in a Foundry game. Only the active GM's client — the one
// that writes for the world — sends, and only with the world setting "Combat
// tracker runs the table's encounter" (on by default):
//
//   the combat begins (round 1)     → encounter.start {order}: the combatants
//                                     in turn order whose actors are on the table
//   a turn or a round forward       → encounter.next, one a turn (core/combat.mjs)
//   the combat deleted (its end)    → encounter.end
//
// Foundry's hooks (foundry-vtt-types 12.331 / 13.340): combatStart, combatTurn
// and combatRound fire only on the client that moves the combat, before the
// update — a player ending their own turn, or another GM, moves it on theirs —
// so the module listens to the hooks every client gets after the update:
// combatTurnChange(combat, prior, current) (v12 and v13; only for a started
// combat) and deleteCombat(combat, options, userId).
//
// One encounter runs at a table at a time, so the module follows one combat:
// the one whose start it sent (its id in the hidden world setting `combat`,
// which outlives a reload of the GM's page), until that combat is deleted.
// Another combat started meanwhile is not sent (the GM is told). The server's
// encounter as it stands comes with the welcome (`table.encounter`) and with
// each event that changes it, so a GM who reloads mid-combat goes on from it.

import { setting } from "./settings.mjs";
import { encounterOrder, maxSteps, stepsTo, turnMove } from "../core/combat.mjs";
import { errorText } from "../core/protocol.mjs";
import { isOnTable, MODULE_ID, rollbridgeIdOf } from "../core/state.mjs";

/** The rollbridge id of a combatant's actor (its token's actor when it has a
 * token: an unlinked token's synthetic actor), or null when it is on no table. */
export function combatantActor(combatant) {
  const actor = combatant?.actor;
  if (!actor || !isOnTable(actor) || actor.flags?.[MODULE_ID]?.removed) return null;
  return rollbridgeIdOf(actor);
}

export class CombatSync {
  /** @param {any} client  the FoundryClient (request, writer, table, encounter, notify) */
  constructor(client) {
    this.client = client;
    this.queue = Promise.resolve();
    this.hooks = [];
  }

  /** Listen to Foundry's combat hooks; `unregister` stops. */
  register() {
    this.hooks = [
      ["combatTurnChange", Hooks.on("combatTurnChange", (combat, prior, current) => this.turnChanged(combat, prior, current))],
      ["deleteCombat", Hooks.on("deleteCombat", (combat) => this.deleted(combat))],
    ];
    return this;
  }

  unregister() {
    for (const [name, id] of this.hooks) Hooks.off(name, id);
    this.hooks = [];
  }

  get enabled() {
    return this.client.writer && Boolean(setting("combatTracker"));
  }

  /**
   * combatTurnChange, on every client after the update. `prior` and `current`
   * are read now: Foundry assigns the next change's prior state into the same
   * object. Returns the queued work (tests wait for it), or null.
   */
  turnChanged(combat, prior, current) {
    if (!combat || !this.enabled) return null;
    const move = turnMove(prior, current);
    if (move === "start") {
      const combatants = Array.from(combat.turns ?? []).map((c) => ({ id: c.id, name: c.name, actor: combatantActor(c) }));
      return this.#enqueue(() => this.#start(combat, combatants));
    }
    if (!move) return null;
    const round = current.round;
    const actor = combatantActor(combat.combatants?.get(current.combatantId));
    return this.#enqueue(() => this.#step(combat, move, round, actor));
  }

  /** deleteCombat (Foundry's "End Combat" deletes it): the encounter ends. */
  deleted(combat) {
    if (!combat || !this.enabled) return null;
    return this.#enqueue(() => this.#end(combat));
  }

  #enqueue(task) {
    this.queue = this.queue.then(task).catch((error) => {
      console.error(`rollbridge | ${error?.message ?? error}`);
    });
    return this.queue;
  }

  /** Whether the module follows `combat` at this table (it sent its start). */
  #follows(combat) {
    const saved = setting("combat");
    return Boolean(saved?.id) && saved.id === combat.id && saved.table === this.client.table;
  }

  /** The combat the module follows at this table, if it still exists. */
  #followed() {
    const saved = setting("combat");
    if (!saved?.id || saved.table !== this.client.table) return null;
    return game.combats?.get(saved.id) ?? null;
  }

  async #start(combat, combatants) {
    const followed = this.#followed();
    if (followed && followed.id !== combat.id && followed.started) {
      this.client.notify("warn", "ROLLBRIDGE.Combat.Another", { data: { name: followed.name ?? followed.id } });
      return;
    }
    const { order, left } = encounterOrder(combatants);
    if (left.length) {
      console.info(`rollbridge | not in the table's encounter (no actor on the table, or one already in it): ${left.join(", ")}`);
    }
    if (!order.length) {
      console.info("rollbridge | no combatant's actor is on the table: no encounter started");
      return;
    }
    try {
      await this.client.request({ type: "encounter.start", order });
    } catch (error) {
      this.#refused(error);
      return;
    }
    await game.settings.set(MODULE_ID, "combat", { table: this.client.table, id: combat.id });
  }

  async #step(combat, move, round, actor) {
    if (!this.#follows(combat)) return;
    if (move === "back") {
      this.client.notify("warn", "ROLLBRIDGE.Combat.NoBack");
      return;
    }
    const encounter = this.client.encounter;
    if (!encounter) {
      console.info("rollbridge | no encounter runs at the table: the turn is not sent");
      return;
    }
    // null: a combatant not in the encounter has the turn; 0 or less: it is there already
    const steps = stepsTo(encounter, round, actor);
    if (steps === null || steps <= 0) return;
    if (steps > maxSteps(encounter)) {
      this.client.notify("warn", "ROLLBRIDGE.Combat.OutOfStep", { data: { steps } });
      return;
    }
    for (let i = 0; i < steps; i++) {
      try {
        await this.client.request({ type: "encounter.next" });
      } catch (error) {
        this.#refused(error); // the rest is not sent: the next step of the tracker tries again
        return;
      }
    }
  }

  async #end(combat) {
    if (!this.#follows(combat)) return; // deleted: no longer in game.combats
    await game.settings.set(MODULE_ID, "combat", {});
    if (!this.client.encounter) return;
    try {
      await this.client.request({ type: "encounter.end" });
    } catch (error) {
      this.#refused(error);
    }
  }

  #refused(error) {
    console.warn(`rollbridge | the server refused the encounter request: ${error?.code ?? ""} ${error?.message ?? error}`);
    this.client.notify("error", "ROLLBRIDGE.Combat.Refused", { data: { message: errorText(error, game.i18n) } });
  }
}

/** The module's combat sync for `client`, listening to Foundry's hooks. */
export function registerCombat(client) {
  return new CombatSync(client).register();
}
