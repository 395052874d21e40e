// Foundry glue: the module's settings (game.settings.register).
//
// serverUrl      world   the URL `rollbridge serve` prints (ws://HOST:PORT/tables/TABLE)
// token          per client (v12 "client") / per user (v13 "user"): the join token;
//                never printed, never in a URL; its input is a password field
// systemMapping  world   auto | none | sr5 | swade — system data paths the GM writes
// serverDice     world   off | on: every Foundry roll draws its dice from the server
//                        (the `rollbridge` fulfillment method as Foundry's default;
//                        foundry/fulfillment.mjs). A world setting: the GM's to change
// combatTracker  world   on | off: the combat tracker runs the table's encounter
//                        (foundry/combat.mjs): the active GM's client sends encounter.start,
//                        encounter.next, encounter.reorder and encounter.end as the combat
//                        moves and sorts its turns again. On by default
// roundWait      world   1–60 s (5): the longest a followed combat's new round waits for
//                        the tracker to settle (its order dealt) before it is sent
// cursor         world   hidden: the (epoch, seq) the GM's client last applied, to resume
// combat         world   hidden: {table, id, offset}: the combat whose encounter the module
//                        started (offset: its round then − 1)
// outcomes       world   hidden: how pending requests were settled, as the active GM's
//                        client saw their events (core/outcomes.mjs): what approval cards
//                        say, a GM's to write alone
// mapped         world   hidden: the actors a mapping chosen by hand wrote the GM's values
//                        into (foundry/marks.mjs), read only as a GM wrote it last: where
//                        a switch back to `auto` made while the GM's client was away resets

import { MODULE_ID } from "../core/state.mjs";

export const MAPPING_CHOICES = {
  auto: "ROLLBRIDGE.Settings.Mapping.Auto",
  none: "ROLLBRIDGE.Settings.Mapping.None",
  sr5: "ROLLBRIDGE.Settings.Mapping.SR5",
  swade: "ROLLBRIDGE.Settings.Mapping.SWADE",
};

/** "user" on Foundry v13 (kept per user), "client" on v12 (kept in this browser). */
/**
 * The token's scope. Typed `any`: foundry-vtt-types 13.340.1 lists only "client" |
 * "world" and rejects Foundry v13's own "user" scope (type-check override).
 * @returns {any}
 */
export function tokenScope() {
  return (game.release?.generation ?? 12) >= 13 ? "user" : "client";
}

/**
 * Register the module's settings.
 * @param {() => void} onConnectionChange
 * @param {{onServerDice?: (on: boolean) => void, onOutcomes?: () => void, onMapping?: () => void}} [options]
 */
export function registerSettings(onConnectionChange, { onServerDice = () => {}, onOutcomes = () => {}, onMapping = () => {} } = {}) {
  game.settings.register(MODULE_ID, "serverUrl", {
    name: "ROLLBRIDGE.Settings.ServerUrl.Name",
    hint: "ROLLBRIDGE.Settings.ServerUrl.Hint",
    scope: "world",
    config: true,
    type: String,
    default: "",
    onChange: () => onConnectionChange(),
  });
  game.settings.register(MODULE_ID, "token", {
    name: "ROLLBRIDGE.Settings.Token.Name",
    hint: "ROLLBRIDGE.Settings.Token.Hint",
    scope: tokenScope(),
    config: true,
    type: String,
    default: "",
    onChange: () => onConnectionChange(),
  });
  game.settings.register(MODULE_ID, "systemMapping", {
    name: "ROLLBRIDGE.Settings.Mapping.Name",
    hint: "ROLLBRIDGE.Settings.Mapping.Hint",
    scope: "world",
    config: true,
    type: String,
    choices: MAPPING_CHOICES,
    default: "auto",
    onChange: () => onMapping(),
  });
  game.settings.register(MODULE_ID, "serverDice", {
    name: "ROLLBRIDGE.Settings.ServerDice.Name",
    hint: "ROLLBRIDGE.Settings.ServerDice.Hint",
    scope: "world",
    config: true,
    type: Boolean,
    default: false,
    onChange: (value) => onServerDice(Boolean(value)),
  });
  game.settings.register(MODULE_ID, "combatTracker", {
    name: "ROLLBRIDGE.Settings.CombatTracker.Name",
    hint: "ROLLBRIDGE.Settings.CombatTracker.Hint",
    scope: "world",
    config: true,
    type: Boolean,
    default: true,
  });
  game.settings.register(MODULE_ID, "roundWait", {
    name: "ROLLBRIDGE.Settings.RoundWait.Name",
    hint: "ROLLBRIDGE.Settings.RoundWait.Hint",
    scope: "world",
    config: true,
    type: Number,
    range: { min: 1, max: 60, step: 1 },
    default: 5,
  });
  game.settings.register(MODULE_ID, "cursor", {
    scope: "world",
    config: false,
    type: Object,
    default: {},
  });
  game.settings.register(MODULE_ID, "combat", {
    scope: "world",
    config: false,
    type: Object,
    default: {},
  });
  game.settings.register(MODULE_ID, "outcomes", {
    scope: "world",
    config: false,
    type: Object,
    default: {},
    onChange: () => onOutcomes(),
  });
  game.settings.register(MODULE_ID, "mapped", {
    scope: "world",
    config: false,
    type: Object,
    default: {},
  });
}

/**
 * The module's setting `key`.
 * @param {any} key  one of the keys registered above (SettingConfig in tests/foundry/types)
 * @returns {any}
 */
export function setting(key) {
  return game.settings.get(MODULE_ID, key);
}

/**
 * The GM's record of outcomes (the world setting `outcomes`, core/outcomes.mjs) when a
 * GM wrote it last, else null: also when it is not registered or was never written.
 * Foundry's server lets any user with the permission SETTINGS_MODIFY write a world
 * setting (an assistant and a full gamemaster by default; the GM may grant it to
 * players), so who wrote it is read from its Setting document's `_stats.lastModifiedBy`,
 * which the server sets (WorldSettings#getSetting, v12 and v13).
 * @returns {unknown}
 */
export function gmRecord() {
  return gmWritten("outcomes");
}

/**
 * The module's world setting `key` when a GM wrote it last (gmRecord's test), else null.
 * @param {any} key  one of the keys registered above
 * @returns {unknown}
 */
export function gmWritten(key) {
  try {
    const world = /** @type {any} */ (game.settings).storage?.get("world");
    const writer = world?.getSetting?.(`${MODULE_ID}.${key}`)?._stats?.lastModifiedBy;
    if (typeof writer !== "string" || !game.users?.get(writer)?.isGM) return null;
    return game.settings.get(MODULE_ID, key);
  } catch {
    return null;
  }
}

/** Make the token's input a password field in the settings window (v12: jQuery, v13: element). */
export function maskTokenInput(html) {
  const root = html instanceof HTMLElement ? html : html?.[0];
  const input = root?.querySelector?.(`input[name="${MODULE_ID}.token"]`);
  if (input) {
    input.type = "password";
    input.autocomplete = "off";
  }
}
