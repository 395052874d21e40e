// The web view opened by one client behind the operator's proxy, under the
// server's default limits (started by tests/web/test_web_address_rate.py): a GM's
// page joins the table `web` in German, with X-Forwarded-For naming the client as a
// proxy would; prints one line `RESULT {json}`: every HTTP request the page made
// (its address and status) and the page's trouble. The Python test judges it.
//
// Environment: RB_BASE (http://127.0.0.1:PORT), RB_TOKEN (the GM's token; never
// printed), RB_CHROMIUM, RB_ADDRESS (the client's address the proxy names).

import process from "node:process";

import { DESKTOP, joinedPage, launch } from "./pages.mjs";

const env = process.env;
const trouble = { errors: [], dialogs: [] };
const result = { requests: [] };
const options = { ...DESKTOP, locale: "de-DE", extraHTTPHeaders: { "X-Forwarded-For": env.RB_ADDRESS } };

const browser = await launch(env.RB_CHROMIUM);
try {
  const page = await joinedPage(browser, "gm", options, trouble, `${env.RB_BASE}/tables/web`, env.RB_TOKEN);
  // the log before it joined comes over HTTP too (the session-log export)
  await page.waitForFunction(() => document.body.dataset.history !== undefined);
  await page.waitForLoadState("networkidle");
  result.requests = await page.evaluate(() =>
    [...performance.getEntriesByType("navigation"), ...performance.getEntriesByType("resource")]
      .map((entry) => [new URL(entry.name).pathname, entry.responseStatus]));
  result.status = await page.evaluate(() => document.body.dataset.status);
  await page.context().close();
} finally {
  result.trouble = trouble;
  await browser.close();
}
process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
