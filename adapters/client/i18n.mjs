// Texts for the Foundry-independent code in core/: core/ never reads
// game.i18n itself. The glue hands it an `i18n` object shaped like Foundry's
// Localization — in Foundry that is game.i18n itself:
//
//   i18n.lang               the user's language ("en", "cs", "de", "ru", …)
//   i18n.localize(key)      the text of a key (Foundry: the key itself when unknown)
//   i18n.format(key, data)  the same with {name} placeholders filled from data
//
// Every key is written out in full where it is used (a constant or a call), so
// tests/foundry/test_foundry_i18n.py finds each one in lang/en.json.

/** Stands in when no i18n is given: every text is its key (as Foundry shows a
 * key it has no translation for). */
/**
 * What the texts are made with: Foundry's game.i18n or core/i18n.mjs.
 * @typedef {{lang: string, localize: (key: string) => string,
 *            format: (key: string, data?: any) => string}} I18n
 */

/** @type {Readonly<I18n>} */
export const KEYS_ONLY = Object.freeze({
  lang: "en",
  localize: (key) => key,
  format: (key) => key,
});

/** A key's text, formatted when there is data. */
export function text(i18n, key, data) {
  return data ? i18n.format(key, data) : i18n.localize(key);
}

/** The plural category (Intl.PluralRules: one, few, many, other) of `count` in `lang`. */
export function pluralCategory(lang, count) {
  try {
    return new Intl.PluralRules(lang || "en").select(Number(count));
  } catch {
    return Number(count) === 1 ? "one" : "other"; // a tag Intl does not take
  }
}

/**
 * A counted text in the user's language. `forms` maps plural categories to
 * keys ({one, few, many, other}: Czech and Russian use all four, English and
 * German one and other); `{count}` is filled with the number.
 */
export function plural(i18n, forms, count, data = {}) {
  const key = forms[pluralCategory(i18n.lang, count)] ?? forms.other;
  return i18n.format(key, { ...data, count });
}

/** The label of a code from a code → key table; a code the table lacks is shown as it is. */
export function labelOf(i18n, keys, value) {
  const code = String(value ?? "");
  return Object.hasOwn(keys, code) ? i18n.localize(keys[code]) : code;
}

/** A member's role at the table (the welcome's `role`). */
export const ROLE_LABELS = {
  gm: "ROLLBRIDGE.Role.gm",
  player: "ROLLBRIDGE.Role.player",
  observer: "ROLLBRIDGE.Role.observer",
};

/** The connection's status (Connection#status; "off" when there is none). */
export const CONNECTION_LABELS = {
  off: "ROLLBRIDGE.Connection.off",
  idle: "ROLLBRIDGE.Connection.idle",
  connecting: "ROLLBRIDGE.Connection.connecting",
  joining: "ROLLBRIDGE.Connection.joining",
  connected: "ROLLBRIDGE.Connection.connected",
  waiting: "ROLLBRIDGE.Connection.waiting",
  refused: "ROLLBRIDGE.Connection.refused",
  stopped: "ROLLBRIDGE.Connection.stopped",
};
