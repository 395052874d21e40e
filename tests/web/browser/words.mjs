// A ruleset's words on the web table's action form, in the reader's language, in
// headless Chromium against a real rollbridge server (started by
// tests/web/test_web_i18n.py): for each locale in RB_LOCALES a player's page joins
// the table `web` (sr2) and chooses the action RB_ACTION; prints one line
// `RESULT {json}` of what the page shows: the action list, the form's summary and
// button, and each parameter's label, hint and (for an enum) options. The Python
// test judges it. Exits non-zero when a step cannot be done at all.
//
// Environment: RB_BASE (http://127.0.0.1:PORT), RB_TOKENS (JSON: table → role →
// token; never printed), RB_CHROMIUM, RB_LOCALES (comma-separated, e.g.
// "cs-CZ,de-DE"), RB_ACTION.

import process from "node:process";

import { PHONE, joinedPage, launch } from "./pages.mjs";

const env = process.env;
const BASE = env.RB_BASE;
const TOKENS = JSON.parse(env.RB_TOKENS);
const trouble = { errors: [], dialogs: [] };
const result = { pages: {} };

const browser = await launch(env.RB_CHROMIUM);
try {
  for (const locale of env.RB_LOCALES.split(",")) {
    process.stderr.write(`words: a player reading ${locale}\n`);
    const page = await joinedPage(browser, locale, { ...PHONE, locale }, trouble, `${BASE}/tables/web`, TOKENS.web.player);
    await page.selectOption("#action-select", env.RB_ACTION);
    await page.waitForSelector(`form.action-form[data-action="${env.RB_ACTION}"]`);
    result.pages[locale] = await page.evaluate(() => {
      const form = document.querySelector("form.action-form");
      const fields = {};
      for (const control of form.querySelectorAll("[name]")) {
        const row = control.closest(".field");
        if (!row || control.name === "actor" || control.name === "target") continue;
        fields[control.name] = {
          label: row.querySelector("label")?.textContent ?? null,
          hint: row.querySelector("small.hint")?.textContent ?? null,
          options: control.tagName === "SELECT" ? [...control.options].map((o) => [o.value, o.textContent]) : null,
        };
      }
      return {
        lang: document.documentElement.lang,
        actions: [...document.querySelectorAll("#action-select option")].map((o) => [o.value, o.textContent]),
        summary: form.querySelector("p.summary")?.textContent ?? null,
        button: form.querySelector('button[type="submit"]').textContent,
        fields,
      };
    });
    await page.context().close();
  }
} finally {
  result.trouble = trouble;
  await browser.close();
}
process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
