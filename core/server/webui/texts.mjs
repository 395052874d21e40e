// The web view's own words, in the viewer's language: lang/en.json, cs.json,
// de.json and ru.json (served as /static/web/lang/LANG.json), nested under
// ROLLBRIDGE as the Foundry module's lang files are. The texts the server
// renders (narration, steps, dice labels, track labels, conditions, error
// messages) come in the language the page asked for in its hello; these are
// the page's headings, buttons and labels.
//
// `i18n` is shaped like Foundry's Localization (adapters/client/i18n.mjs), so the
// shared client's errors and labels read from it too. Every key is written out
// in full where it is used (a counted text names its group of plural forms), so
// tests/web/test_web_i18n.py finds each one in all four files.

import { plural } from "../client/i18n.mjs";

/** The languages the page has its own words in (the first is the fallback). */
export const LANGUAGES = ["en", "cs", "de", "ru"];
/** Each language's name in that language: what the page's language list offers. */
export const LANGUAGE_NAMES = { en: "English", cs: "Čeština", de: "Deutsch", ru: "Русский" };
/** Where the viewer's choice of language is kept: the browser's localStorage, so every
 * tab and table of this server reads in it (a choice, not a secret). loading.mjs,
 * which imports nothing, reads the same key. */
export const CHOSEN_LANGUAGE = "rollbridge.web.language";

function lasting(storage) {
  try {
    return storage ?? globalThis.localStorage ?? null;
  } catch {
    return null; // storage denied (a browser's setting)
  }
}

/** The language the viewer chose on a page of this server (one of LANGUAGES), or
 * null: none chosen, the browser's language then. */
export function chosenLanguage(storage = undefined) {
  try {
    const lang = lasting(storage)?.getItem(CHOSEN_LANGUAGE) ?? null;
    return LANGUAGES.includes(lang) ? lang : null;
  } catch {
    return null;
  }
}

/** Keep `lang` (one of LANGUAGES) as the viewer's choice for every page of this
 * server; whether it was kept (not when the browser denies the page its storage). */
export function chooseLanguage(lang, storage = undefined) {
  if (!LANGUAGES.includes(lang)) return false;
  try {
    const kept = lasting(storage);
    kept?.setItem(CHOSEN_LANGUAGE, lang);
    return Boolean(kept);
  } catch {
    return false;
  }
}

/** The texts of the page's language, and English for a key it lacks. */
const catalogs = { chosen: {}, english: {} };

function flatten(tree, prefix = "", out = {}) {
  for (const [key, value] of Object.entries(tree ?? {})) {
    if (value && typeof value === "object") flatten(value, `${prefix}${key}.`, out);
    else out[`${prefix}${key}`] = String(value);
  }
  return out;
}

function textOf(key) {
  return catalogs.chosen[key] ?? catalogs.english[key] ?? key;
}

/** The page's texts: `localize(key)`, `format(key, data)` ({name} placeholders
 * filled), `lang` the language they are in. A key no file has reads as itself. */
export const i18n = {
  lang: "en",
  localize: (key) => textOf(key),
  format: (key, data = {}) =>
    textOf(key).replace(/\{(\w+)\}/g, (whole, name) => (name in data ? String(data[name]) : whole)),
};

/** The language of the page's own words for a locale tag ("cs-CZ" → "cs"); en
 * when the page has none in it. */
export function pageLanguage(locale) {
  const base = String(locale ?? "").toLowerCase().split(/[-_]/)[0];
  return LANGUAGES.includes(base) ? base : LANGUAGES[0];
}

async function fetchCatalog(lang, fetchFn) {
  try {
    const answer = await fetchFn(`/static/web/lang/${lang}.json`, { credentials: "omit", referrerPolicy: "no-referrer" });
    return answer.ok ? flatten(await answer.json()) : {};
  } catch {
    return {};
  }
}

/**
 * Load the page's words in `lang` (one of LANGUAGES) and English beside them
 * (for a key the language lacks), both files at once; `i18n` reads them from then on.
 * @param {string} lang the language, as pageLanguage gives it
 * @returns {Promise<void>}
 */
export async function useLanguage(lang, fetchFn = globalThis.fetch) {
  const [english, chosen] = await Promise.all([
    fetchCatalog("en", fetchFn),
    lang === "en" ? null : fetchCatalog(lang, fetchFn),
  ]);
  catalogs.english = english;
  catalogs.chosen = chosen ?? english;
  i18n.lang = Object.keys(catalogs.chosen).length ? lang : "en";
}

/**
 * Fill the static markup's words: each element with `data-i18n="KEY"` gets the
 * key's text as its text (never as HTML), each with `data-i18n-label="KEY"` as its
 * accessible name (`aria-label`: a landmark's); the root's `lang` says the language.
 * A key no file has (the files could not be fetched) leaves the markup's
 * English in place.
 * @param {Document} doc the page
 */
export function localizePage(doc = globalThis.document) {
  doc.documentElement.lang = i18n.lang;
  for (const node of doc.querySelectorAll("[data-i18n]")) {
    const key = node.dataset.i18n;
    const text = i18n.localize(key);
    if (text !== key) node.textContent = text;
  }
  for (const node of doc.querySelectorAll("[data-i18n-label]")) {
    const key = node.dataset.i18nLabel;
    const text = i18n.localize(key);
    if (text !== key) node.setAttribute("aria-label", text);
  }
}

/**
 * A counted text: `key` names a group of plural forms (`key.one`, `.few`,
 * `.many`, `.other`, every language has all four), the form of `count` in the
 * page's language is taken and `{count}` filled.
 * @param {object} texts the page's texts (i18n)
 * @param {string} key the group's key, written out in full where it is used
 * @param {number} count the number counted
 * @param {object} [data] more placeholders
 * @returns {string}
 */
export function counted(texts, key, count, data = {}) {
  const forms = Object.fromEntries(["one", "few", "many", "other"].map((form) => [form, `${key}.${form}`]));
  return plural(texts, forms, count, data);
}

/** The words of each event kind in the log (a kind not listed: kindWord). */
export const KIND_WORDS = {
  roll: "ROLLBRIDGE.Web.Kind.Roll",
  resolution: "ROLLBRIDGE.Web.Kind.Resolution",
  hidden: "ROLLBRIDGE.Web.Kind.Hidden",
  "actor.created": "ROLLBRIDGE.Web.Kind.ActorCreated",
  "actor.updated": "ROLLBRIDGE.Web.Kind.ActorUpdated",
  "actor.removed": "ROLLBRIDGE.Web.Kind.ActorRemoved",
  adjusted: "ROLLBRIDGE.Web.Kind.Adjusted",
  undo: "ROLLBRIDGE.Web.Kind.Undo",
  redo: "ROLLBRIDGE.Web.Kind.Redo",
  settings: "ROLLBRIDGE.Web.Kind.Settings",
  "encounter.started": "ROLLBRIDGE.Web.Kind.EncounterStarted",
  "encounter.turn": "ROLLBRIDGE.Web.Kind.EncounterTurn",
  "encounter.reordered": "ROLLBRIDGE.Web.Kind.EncounterReordered",
  "encounter.ended": "ROLLBRIDGE.Web.Kind.EncounterEnded",
  "approval.requested": "ROLLBRIDGE.Web.Kind.ApprovalRequested",
  "approval.rejected": "ROLLBRIDGE.Web.Kind.ApprovalRejected",
  "dice.committed": "ROLLBRIDGE.Web.Kind.DiceCommitted",
  "dice.revealed": "ROLLBRIDGE.Web.Kind.DiceRevealed",
  "dice.revealed.gm": "ROLLBRIDGE.Web.Kind.DiceRevealedGm",
  "dice.abandoned": "ROLLBRIDGE.Web.Kind.DiceAbandoned",
  "dice.drawn": "ROLLBRIDGE.Web.Kind.DiceDrawn",
};

/** The words of an event's kind (`kind`) in the page's language: KIND_WORDS's, or
 * for a kind the page has no words for (a newer server's, another ruleset's) *an
 * event of another kind* — its code (`table.noted`) was shown as the kind, a word no
 * player reads (its code stays on the entry as a tooltip: kindCode). */
export function kindWord(texts, kind) {
  const code = String(kind ?? "");
  return texts.localize(Object.hasOwn(KIND_WORDS, code) ? KIND_WORDS[code] : "ROLLBRIDGE.Web.Kind.Other");
}

/** The tooltip of an entry whose kind the page has no words for (kindWord): its code,
 * for whoever asks the GM or the server's people what it was; null for a kind the page
 * has words for. */
export function kindCode(texts, kind) {
  const code = String(kind ?? "");
  return Object.hasOwn(KIND_WORDS, code) ? null : texts.format("ROLLBRIDGE.Web.Kind.OtherCode", { code });
}

/** The words of a die's tags, said to a screen reader beside the die ("3, dropped"):
 * on the page a tag is a colour, an outline or a strike-through only. */
export const DIE_TAG_WORDS = {
  success: "ROLLBRIDGE.Web.Dice.Tag.success",
  failure: "ROLLBRIDGE.Web.Dice.Tag.failure",
  compounded: "ROLLBRIDGE.Web.Dice.Tag.compounded",
  exploded: "ROLLBRIDGE.Web.Dice.Tag.exploded",
  explosion: "ROLLBRIDGE.Web.Dice.Tag.explosion",
  wild: "ROLLBRIDGE.Web.Dice.Tag.wild",
  reroll: "ROLLBRIDGE.Web.Dice.Tag.reroll",
  rerolled: "ROLLBRIDGE.Web.Dice.Tag.rerolled",
  botch: "ROLLBRIDGE.Web.Dice.Tag.botch",
  dropped: "ROLLBRIDGE.Web.Dice.Tag.dropped",
  max: "ROLLBRIDGE.Web.Dice.Tag.max",
  min: "ROLLBRIDGE.Web.Dice.Tag.min",
};

/** The words of an actor's status in the common damage state. */
export const STATUS_WORDS = {
  ok: "ROLLBRIDGE.ActorStatus.ok",
  impaired: "ROLLBRIDGE.ActorStatus.impaired",
  down: "ROLLBRIDGE.ActorStatus.down",
  dying: "ROLLBRIDGE.ActorStatus.dying",
  dead: "ROLLBRIDGE.ActorStatus.dead",
};
