// The web view opened by a client whose address has spent its HTTP rate (started by
// tests/web/test_web_address_rate.py, the server's rate made small): some of the
// page's files are answered 429, so its modules never start. Prints one line
// `RESULT {json}`: what the top bar says once a file failed (or, if it never says so,
// what it says after 20 s), in Czech, and how many requests were refused.
//
// Environment: RB_BASE (http://127.0.0.1:PORT), RB_CHROMIUM, RB_ADDRESS (the
// client's address the proxy names).

import process from "node:process";

import { DESKTOP, launch, openPage } from "./pages.mjs";

const env = process.env;
const trouble = { errors: [], dialogs: [] };
const result = {};
const options = { ...DESKTOP, locale: "cs-CZ", extraHTTPHeaders: { "X-Forwarded-For": env.RB_ADDRESS } };

const browser = await launch(env.RB_CHROMIUM);
try {
  const page = await openPage(browser, "player", options, trouble);
  const refused = [];
  page.on("response", (response) => { if (response.status() === 429) refused.push(response.url()); });
  await page.goto(`${env.RB_BASE}/tables/web`);
  result.said = await page.waitForSelector('#status[data-failed="load"]').then(() => true, () => false);
  result.status = await page.textContent("#status");
  result.lang = await page.getAttribute("#status", "lang");
  result.refused = refused.length;
  await page.context().close();
} finally {
  await browser.close();
}
process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
