// The first words of the table's page, while its modules and words load (on a slow
// line that takes seconds): the top bar says "loading…" in the browser's language,
// not "not connected" in English. It imports nothing and is the page's first
// script, so it runs as soon as it arrives, before the other modules and the
// language files (lang/*.json) are in; these words are the files'
// ROLLBRIDGE.Web.Connection.Loading (tests/web/test_web_i18n.py checks they agree),
// and table.mjs puts the connection's status in their place once the files are in.

/** "loading…" in each language the page has its own words in (texts.mjs's LANGUAGES). */
const LOADING = { en: "loading…", cs: "načítá se…", de: "wird geladen…", ru: "загрузка…" };

const asked = String(globalThis.navigator?.languages?.[0] ?? globalThis.navigator?.language ?? "en");
const base = asked.toLowerCase().split(/[-_]/)[0];
const lang = Object.hasOwn(LOADING, base) ? base : "en";
const status = document.getElementById("status");
if (status) {
  status.lang = lang;
  status.textContent = LOADING[lang];
}
