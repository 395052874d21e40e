// The web view's own words. The texts the server renders (narration, steps, dice
// labels, track labels, conditions, error messages) come in the language the page
// asked for in its hello (the browser's, navigator.language); these few words of
// the page itself are English.
//
// An object shaped like Foundry's Localization (adapters/client/i18n.mjs): the shared
// client's own errors and labels have keys, which read here in English.

import { plural } from "../client/i18n.mjs";

const ENGLISH = {
  "ROLLBRIDGE.Error.ConnectionStopped": "the connection is stopped: nothing was sent.",
  "ROLLBRIDGE.Error.ConnectionRefused": "the server refused this connection's token: nothing was sent.",
  "ROLLBRIDGE.Error.StoppedUnanswered": "the connection was stopped before request {id} was answered.",
  "ROLLBRIDGE.Error.RefusedUnanswered": "request {id} was not answered: the server refused this connection's token.",
  "ROLLBRIDGE.Error.ServerRefused": "the server refused the request ({code}).",
  "ROLLBRIDGE.Notice.LocaleUnavailable": "The server has no texts in {asked}; they come in {used}.",
  "ROLLBRIDGE.Role.gm": "GM",
  "ROLLBRIDGE.Role.player": "player",
  "ROLLBRIDGE.Role.observer": "observer",
  "ROLLBRIDGE.Connection.off": "not connected",
  "ROLLBRIDGE.Connection.idle": "not connected",
  "ROLLBRIDGE.Connection.connecting": "connecting…",
  "ROLLBRIDGE.Connection.joining": "joining…",
  "ROLLBRIDGE.Connection.connected": "connected",
  "ROLLBRIDGE.Connection.waiting": "connection lost; reconnecting…",
  "ROLLBRIDGE.Connection.refused": "the server refused the token",
  "ROLLBRIDGE.Connection.stopped": "stopped",
  "ROLLBRIDGE.Web.Stats.Title": "Statistics",
  "ROLLBRIDGE.Web.Stats.Scope": "counted over",
  "ROLLBRIDGE.Web.Stats.ScopeAll": "the whole log",
  "ROLLBRIDGE.Web.Stats.ScopeEncounter": "this encounter",
  "ROLLBRIDGE.Web.Stats.ScopeHour": "the last hour",
  "ROLLBRIDGE.Web.Stats.Ask": "Count the dice",
  "ROLLBRIDGE.Web.Stats.Session": "Session",
  "ROLLBRIDGE.Web.Stats.NoEvents": "no events in this span",
  "ROLLBRIDGE.Web.Stats.Span": "{events}, seq {first}–{last}",
  "ROLLBRIDGE.Web.Stats.DieCaption": "{die}: {dice}, mean {mean} (a fair die: {expected})",
  "ROLLBRIDGE.Web.Stats.FaceCount": "{face}: {count}×",
  "ROLLBRIDGE.Web.Stats.Fair": "a fair die: {count} of each face",
  "ROLLBRIDGE.Web.Stats.Rolls.one": "{count} roll",
  "ROLLBRIDGE.Web.Stats.Rolls.few": "{count} rolls",
  "ROLLBRIDGE.Web.Stats.Rolls.many": "{count} rolls",
  "ROLLBRIDGE.Web.Stats.Rolls.other": "{count} rolls",
  "ROLLBRIDGE.Web.Stats.Successes.one": "{count} success",
  "ROLLBRIDGE.Web.Stats.Successes.few": "{count} successes",
  "ROLLBRIDGE.Web.Stats.Successes.many": "{count} successes",
  "ROLLBRIDGE.Web.Stats.Successes.other": "{count} successes",
  "ROLLBRIDGE.Web.Stats.Botches.one": "{count} botch",
  "ROLLBRIDGE.Web.Stats.Botches.few": "{count} botches",
  "ROLLBRIDGE.Web.Stats.Botches.many": "{count} botches",
  "ROLLBRIDGE.Web.Stats.Botches.other": "{count} botches",
  "ROLLBRIDGE.Web.Stats.Explosions.one": "{count} explosion",
  "ROLLBRIDGE.Web.Stats.Explosions.few": "{count} explosions",
  "ROLLBRIDGE.Web.Stats.Explosions.many": "{count} explosions",
  "ROLLBRIDGE.Web.Stats.Explosions.other": "{count} explosions",
  "ROLLBRIDGE.Web.Stats.Dice.one": "{count} die",
  "ROLLBRIDGE.Web.Stats.Dice.few": "{count} dice",
  "ROLLBRIDGE.Web.Stats.Dice.many": "{count} dice",
  "ROLLBRIDGE.Web.Stats.Dice.other": "{count} dice",
  "ROLLBRIDGE.Web.Stats.Events.one": "{count} event",
  "ROLLBRIDGE.Web.Stats.Events.few": "{count} events",
  "ROLLBRIDGE.Web.Stats.Events.many": "{count} events",
  "ROLLBRIDGE.Web.Stats.Events.other": "{count} events",
};

/**
 * A counted text: `key` names a group of plural forms (`key.one`, `.few`,
 * `.many`, `.other`, every language has all four), the form of `count` in the
 * page's language is taken and `{count}` filled.
 * @param {I18n} i18n the page's texts
 * @param {string} key the group's key, written out in full where it is used
 * @param {number} count the number counted
 * @param {object} [data] more placeholders
 * @returns {string}
 */
export function counted(i18n, key, count, data = {}) {
  const forms = Object.fromEntries(["one", "few", "many", "other"].map((form) => [form, `${key}.${form}`]));
  return plural(i18n, forms, count, data);
}

/** English texts for the shared client's keys ({name} placeholders filled). */
export const i18n = Object.freeze({
  lang: "en",
  localize: (key) => ENGLISH[key] ?? key,
  format: (key, data = {}) =>
    (ENGLISH[key] ?? key).replace(/\{(\w+)\}/g, (whole, name) => (name in data ? String(data[name]) : whole)),
});

/** The words of event kinds that carry no rendered text of their own. */
export const KIND_WORDS = {
  roll: "roll",
  resolution: "action",
  hidden: "secret (GM only)",
  "actor.created": "actor added",
  "actor.updated": "actor changed",
  "actor.removed": "actor removed",
  adjusted: "adjusted",
  undo: "undo",
  redo: "redo",
  settings: "settings changed",
  "encounter.started": "encounter started",
  "encounter.turn": "next turn",
  "encounter.ended": "encounter ended",
  "approval.requested": "waiting for the GM",
  "approval.rejected": "rejected by the GM",
  "dice.committed": "dice committed",
  "dice.revealed": "dice revealed",
  "dice.drawn": "dice drawn",
};
