// The first words of the table's page, while its modules and words load (on a slow
// line that takes seconds): the top bar says "loading…" in the viewer's language
// (the one chosen on the page, else the browser's),
// not "not connected" in English. It imports nothing and is the page's first
// script, asked for before the styles and the other modules (a server short of
// HTTP rate for the address answers the first requests), and runs as soon as it arrives, before the other modules and the
// language files (lang/*.json) are in; these words are the files'
// ROLLBRIDGE.Web.Connection.Loading (tests/web/test_web_i18n.py checks they agree),
// and table.mjs puts the connection's status in their place once the files are in.
// If a script or style of the page fails to load (a server past its HTTP rate answers
// 429 to a reload storm), the page can never start: the bar says so and to reload in a
// moment (ROLLBRIDGE.Web.Connection.LoadFailed), instead of "loading…" for good.

/** "loading…" in each language the page has its own words in (texts.mjs's LANGUAGES). */
const LOADING = { en: "loading…", cs: "načítá se…", de: "wird geladen…", ru: "загрузка…" };

/** The language the viewer chose on a page of this server (texts.mjs's
 * CHOSEN_LANGUAGE, in localStorage), else the browser's. */
function askedLanguage() {
  try {
    // only one of the page's languages, as texts.mjs's chosenLanguage: a stale or
    // foreign value ("xx", "<img>") is no choice, and the browser's language counts
    const chosen = globalThis.localStorage?.getItem("rollbridge.web.language");
    if (chosen && Object.hasOwn(LOADING, chosen)) return chosen;
  } catch {
    // storage denied: the browser's language
  }
  // the first of the browser's languages the page has words in (session.mjs's browserLocale)
  const asked = [...(globalThis.navigator?.languages ?? []), globalThis.navigator?.language ?? "en"];
  return asked.map(String).find((tag) => Object.hasOwn(LOADING, baseOf(tag))) ?? asked[0];
}

/** A language tag's language ("cs-CZ" → "cs"). */
function baseOf(tag) {
  return String(tag).toLowerCase().split(/[-_]/)[0];
}

const base = baseOf(askedLanguage());
const lang = Object.hasOwn(LOADING, base) ? base : "en";
/** The page did not load whole, in the same languages (the files' LoadFailed). */
const FAILED = {
  en: "the page did not load whole: reload it in a moment",
  cs: "stránka se nenačetla celá: za chvíli ji načtěte znovu",
  de: "Seite nicht vollständig geladen: bitte gleich neu laden",
  ru: "страница загрузилась не полностью: обновите её через минуту",
};
/** The page's few other first words (the files' ROLLBRIDGE.Web.Page.Language and
 * .Title): the page reads in one language from its first paint, `html lang` too
 * (a screen reader speaks the bar's words in it), not English until table.mjs runs. */
const LANGUAGE = { en: "Language", cs: "Jazyk", de: "Sprache", ru: "Язык" };
const TITLE = { en: "rollbridge table", cs: "stůl rollbridge", de: "rollbridge-Tisch", ru: "стол rollbridge" };
document.documentElement.lang = lang;
const languageLabel = document.querySelector('label[for="language"]');
if (languageLabel) languageLabel.textContent = LANGUAGE[lang];
if (document.title === TITLE.en) document.title = TITLE[lang];
const status = document.getElementById("status");
if (status) {
  status.lang = lang;
  status.textContent = LOADING[lang];
  // a script or style that did not load fires "error" at its element (no bubbling)
  globalThis.addEventListener("error", (event) => {
    const element = event.target;
    if (!(element instanceof HTMLScriptElement || element instanceof HTMLLinkElement)) return;
    status.dataset.i18n = "ROLLBRIDGE.Web.Connection.LoadFailed";
    status.dataset.failed = "load";
    status.textContent = FAILED[lang];
  }, true);
}
