// The web view's own words. The texts the server renders (narration, steps, dice
// labels, track labels, conditions, error messages) come in the language the page
// asked for in its hello (the browser's, navigator.language); these few words of
// the page itself are English.
//
// An object shaped like Foundry's Localization (adapters/client/i18n.mjs): the shared
// client's own errors and labels have keys, which read here in English.

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
};

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
